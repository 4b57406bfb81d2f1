/*
 * insn_build.h - a function's instructions as the analysis sees them
 * (an_insn), made from its code, decoded with the run's opcode table (runs
 * in Pulley's encoding), or from its stored instruction rows (schema 6):
 * registers become the function's register ids (regs.h), the windows of
 * registers an opcode reads or writes implicitly become the function's
 * an_implicit entries, and branch and jump-table targets are reported as
 * edges.
 */
#ifndef AN_INSN_BUILD_H
#define AN_INSN_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "isa_table.h"
#include "profile_model.h"
#include "regs.h"

/* The function being built: each instruction made is the one that will
 * be f->insns[f->ninsns] (the caller appends it). */
typedef struct an_fbuild {
    an_func *f;
    an_regmap regs;
    uint32_t implicit_cap;
} an_fbuild;

/* Start building f (its instructions, registers and windows empty). */
void an_fbuild_start(an_fbuild *b, an_func *f);

/* Where a branch or jump table may go: byte offset `target`. */
typedef void (*an_edge_fn)(void *ctx, uint32_t target);

/* Decode the instruction at code[off] into *out; the targets of a branch
 * or a jump table are passed to `edge` (may be NULL).  Returns 0, -1 if
 * the bytes are not an instruction of this table, -2 when out of memory. */
int an_decode(const an_isa *isa, an_fbuild *b, const uint8_t *code, size_t size, size_t off,
              an_insn *out, an_edge_fn edge, void *ctx);

/* An instruction from its stored row: offset, length, opcode, and the
 * lists regs, imms and targets.  An instruction whose registers cannot be
 * named (the table does not declare their kinds, a register number that
 * is none, more registers than regs.h gives ids) is opaque.  Returns 0;
 * -1 with why saying what is wrong with the row; -2 when out of memory. */
int an_insn_from_row(const an_isa *isa, an_fbuild *b, uint32_t off, int64_t len, int64_t opcode,
                     const char *regs, const char *imms, const char *targets, an_insn *out,
                     an_edge_fn edge, void *ctx, const char **why);

#endif
