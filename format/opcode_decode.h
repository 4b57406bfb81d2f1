/*
 * opcode_decode.h - decode one instruction with an opcode table made of
 * stored rows (opcode_rows.h): the opcode, plain or behind the escape
 * byte, the register pack, the immediate and a jump table's entries.  It
 * checks what the VM's decoder checks and says what is wrong, naming the
 * opcode.  Pure C, shared by analyze/ (isa_table.c) and the SQLite
 * extension (sql/ext).
 */
#ifndef OT_OPCODE_DECODE_H
#define OT_OPCODE_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "opcode_rows.h"

typedef struct ot_insn {
    const ot_opcode *op;
    uint32_t length; /* encoded bytes, jump table entries included */
    uint8_t reg[OT_MAX_REGS];
    /* The immediates in order (imm is the first): sign-extended for the
     * signed kinds (s8 s16 s32 off32 rel32), zero-extended for unsigned
     * ones and indices, the raw bits for i64, f32, f64 and unknown kinds;
     * a jump table's entry count. */
    union {
        int64_t imm;
        int64_t imms[OT_MAX_IMMS];
    };
    const uint8_t *table; /* OT_IMM_TABLE: the entries (ot_jump_entry) */
} ot_insn;

/* Decode the instruction at code[off] into *out.  Returns 0, or -1 with
 * err saying what is wrong (an offset past the end, an unknown opcode, an
 * instruction running past the end of the code, padding bits set in the
 * register pack, a jump table without entries or with more than the code
 * holds); err may be NULL when cap is 0.  Never reads code[size] or
 * beyond. */
int ot_decode(const ot_table *t, const uint8_t *code, size_t size, size_t off, ot_insn *out,
              char *err, size_t cap);

/* Entry i (< insn->imm) of a decoded jump table: a branch offset relative
 * to the instruction, as rel32 immediates are. */
int32_t ot_jump_entry(const ot_insn *insn, uint32_t i);

#endif
