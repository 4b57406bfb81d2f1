/*
 * insn_text.h - decode one instruction with an opcode table (opcode_table.h)
 * and write it as text, the way the disassembler (interp/disasm.h) writes
 * it into the `instructions` table: "xadd64 x1, x1, x4", branch targets as
 * signed byte offsets ("jump -18"), function operands by name when the
 * names of the module are given, otherwise "#N".
 */
#ifndef SX_INSN_TEXT_H
#define SX_INSN_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "opcode_table.h"
#include "text_buf.h"

typedef struct sx_insn {
    const sx_opcode *op;
    uint32_t length;      /* encoded bytes, jump table entries included */
    uint8_t reg[4];
    /* Sign-extended for signed kinds, zero-extended for unsigned ones and
     * indices, the raw bits for i64, f32, f64 and unknown kinds; a jump
     * table's entry count. */
    int64_t imm;
    const uint8_t *table; /* TABLE: the entries, 4 little-endian bytes each */
} sx_insn;

/* Decode the instruction at code[off] (off < size).  Returns 0, or -1 with
 * err saying what is wrong (an unknown opcode, an instruction running past
 * the end of the code, padding bits set in the register pack, a jump table
 * without entries).  Never reads code[size] or beyond. */
int sx_decode(const sx_optable *t, const uint8_t *code, size_t size, size_t off, sx_insn *out,
              char *err, size_t cap);

/* Names of a module's functions, by index (the `idx` of `functions`). */
typedef struct sx_func_name {
    uint32_t index;
    char *name;
} sx_func_name;

typedef struct sx_names {
    sx_func_name *items; /* sorted by index */
    size_t n, cap;
} sx_names;

/* Add a name (indices must increase); 0, or -1 when out of memory. */
int sx_names_add(sx_names *names, uint32_t index, const char *name);
/* The name of function `index`, or NULL. */
const char *sx_names_find(const sx_names *names, uint32_t index);
void sx_names_free(sx_names *names);

/* Append the text of insn (branch targets relative to it); names may be
 * NULL. */
void sx_format(sx_text *out, const sx_insn *insn, const sx_names *names);

#endif
