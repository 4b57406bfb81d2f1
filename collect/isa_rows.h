/*
 * isa_rows.h - an interpreter's opcode table (pulleyprof_isa) checked
 * once when a run opens, indexed by opcode id, and the decoding of code
 * into instruction rows through the ISA's decoder (or the one-byte default)
 * with every decoded instruction checked against its row.
 */
#ifndef PULLEY_ISA_ROWS_H
#define PULLEY_ISA_ROWS_H

#include <pulley/profile.h>

#include <stddef.h>
#include <stdint.h>

typedef struct isa_rows {
    const pulleyprof_isa *isa;
    const pulleyprof_opcode **by_id; /* sorted by id */
    unsigned char *nregs;            /* register operands of by_id[i] (its roles) */
    size_t n;
    uint64_t hash;                   /* isa->hash, or computed from the rows */
} isa_rows;

/* Check every row of isa (see pulleyprof_open) and index it.  0, or -1
 * with err naming the row and what is wrong. */
int pp__isa_rows_init(isa_rows *r, const pulleyprof_isa *isa, char *err, size_t cap);
void pp__isa_rows_free(isa_rows *r);

/* The row with this id, or NULL; *nregs gets its register operand count. */
const pulleyprof_opcode *pp__isa_rows_find(const isa_rows *r, unsigned id, unsigned *nregs);
/* The row named `name`, or NULL. */
const pulleyprof_opcode *pp__isa_rows_named(const isa_rows *r, const char *name);

/* Decode the instruction at code[off] into *insn (its text into text, of
 * cap > 0 bytes; its targets grown by the library), then check it: a known
 * opcode, a length inside the code, the row's number of register operands,
 * targets inside the code.  Its opcode's row, or NULL when the bytes are
 * no instruction of the table (the caller counts the function as cut
 * short). */
const pulleyprof_opcode *pp__isa_rows_decode(const isa_rows *r, const void *ctx,
                                             const uint8_t *code, size_t size, size_t off,
                                             pulleyprof_insn *insn, char *text, size_t cap);

#endif
