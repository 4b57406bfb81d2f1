/*
 * isa_table.h - the opcode table stored with a run, as the analysis sees
 * it: the rows' encoding (opcode_rows.h) and, beside each row, what the
 * analysis needs from it - its flags, which register operands it reads
 * and writes (the stored roles), its global opcode index.  Instructions decode (with
 * opcode_decode.h) into an_insn, branch and jump-table targets reported as
 * edges.  Nothing here uses the compiled-in ISA, so profiles taken with an
 * older opcode table stay readable.
 */
#ifndef AN_ISA_TABLE_H
#define AN_ISA_TABLE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "opcode_rows.h"
#include "profile_model.h"

/* What the analysis keeps about one opcode row. */
typedef struct an_isa_op {
    uint16_t gop;  /* global opcode index (an_profile.opnames) */
    uint16_t mgop; /* the global opcode it is matched as: its wide form's, or gop */
    uint8_t flags; /* AN_BRANCH ... */
    uint16_t uses; /* bit i: register operand i is read */
    uint16_t defs; /* bit i: register operand i is written */
    double cost;   /* machine instructions per execution (schema 8), 0: not stored */
} an_isa_op;

typedef struct an_isa {
    ot_table rows;  /* the encoding, sorted by id */
    an_isa_op *ops; /* ops[i] belongs to rows.ops[i] */
    size_t cap;
} an_isa;

/* Load the opcode table of `run` from db; opcode names are interned in p.
 * Returns 0, or -1 with err. */
int an_isa_load(sqlite3 *db, int64_t run, an_profile *p, an_isa *isa, char *err, size_t cap);

/* Add one stored row (ids increasing; isa starts zeroed): its operand kinds
 * such as "x x s32", the encoded length, the bits of each register
 * operand (8, or 5 in older profiles), the flags and the role of each
 * register operand ("w r r": r read, w written, rw both).  Returns 0, or
 * -1 with err saying what is wrong with the row. */
int an_isa_add(an_isa *isa, an_profile *p, int64_t id, const char *name, const char *operands,
               int64_t length, int64_t reg_bits, int64_t flags, const char *roles, char *err,
               size_t cap);

void an_isa_free(an_isa *isa);

/* Decode the instruction at code[off] into *out (op, registers, immediate,
 * length); the targets of a branch or a jump table are passed to `edge`
 * (may be NULL).  Returns 0, or -1 if the bytes are not an instruction of
 * this table. */
typedef void (*an_edge_fn)(void *ctx, uint32_t target);
int an_decode(const an_isa *isa, const uint8_t *code, size_t size, size_t off, an_insn *out,
              an_edge_fn edge, void *ctx);

/* An instruction from its stored row (schema version 6: the run's rows
 * carry their operands as its interpreter's decoder reported them):
 * offset, length, opcode, and the lists regs, imms and targets.  Register
 * operands of another class than x and f, or numbered 32 or more, are
 * left out of the analysis (*unanalysed is set).  Returns 0, or -1 with
 * why saying what is wrong with the row. */
int an_insn_from_row(const an_isa *isa, uint32_t off, int64_t len, int64_t opcode,
                     const char *regs, const char *imms, const char *targets, an_insn *out,
                     an_edge_fn edge, void *ctx, int *unanalysed, const char **why);

#endif
