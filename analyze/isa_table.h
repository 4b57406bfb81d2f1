/*
 * isa_table.h - the opcode table stored with a run (the `opcodes` rows),
 * and a table-driven decoder over it.  Nothing here uses the compiled-in
 * ISA, so profiles taken with an older opcode table stay readable.
 */
#ifndef AN_ISA_TABLE_H
#define AN_ISA_TABLE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

typedef struct an_opdesc {
    uint8_t valid;
    uint8_t flags;
    uint8_t nregs, regf, defs;
    uint8_t imm_kind;  /* an_imm */
    uint8_t imm_bytes; /* for a table: its count */
    uint8_t hdr;       /* opcode bytes: 1, or 3 behind the 0xFF escape */
    uint16_t gop;      /* global opcode index */
    uint32_t length;
} an_opdesc;

typedef struct an_isa {
    an_opdesc *ops; /* indexed by opcode id */
    unsigned nops;
} an_isa;

/* Load the opcode table of `run` from db; opcode names are interned in p.
 * Returns 0, or -1 with err. */
int an_isa_load(sqlite3 *db, int64_t run, an_profile *p, an_isa *isa, char *err, size_t cap);
void an_isa_free(an_isa *isa);

/* Describe one row (exposed for tests): operand kinds such as "x x s32",
 * the encoded length, flags and the one-line semantics ("x[a] = ..." marks
 * operand a written).  Returns 0, or -1 if the row is inconsistent. */
int an_opdesc_parse(an_opdesc *d, unsigned id, const char *operands, unsigned length,
                    unsigned flags, const char *semantics);

/* Decode the instruction at code[off] into *out (op, registers, immediate,
 * length); jump-table entries are passed to `edge` (may be NULL).  Returns
 * 0, or -1 if the bytes are not an instruction of this table. */
typedef void (*an_edge_fn)(void *ctx, uint32_t target);
int an_decode(const an_isa *isa, const uint8_t *code, size_t size, size_t off, an_insn *out,
              an_edge_fn edge, void *ctx);

#endif
