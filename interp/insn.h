/*
 * insn.h - one instruction, decoded: the generic encoder and decoder that
 * every tool shares (assembler, disassembler, verifier, analysis).  The
 * interpreter does not use these: it reads operands in place with the
 * per-opcode constants of isa.h.
 */
#ifndef PULLEY_INSN_H
#define PULLEY_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bytes.h"
#include "isa.h"

typedef struct pvm_insn {
    uint16_t op;                /* pvm_op */
    uint8_t reg[PVM_MAX_REGS];  /* register numbers, in operand order */
    uint32_t length;            /* encoded bytes, jump table entries included */
    /* The immediates, in operand order (imm is the first): sign-extended
     * for S8, S16, S32, OFF32 and REL32; zero-extended for U32, FUNC, HOST,
     * GLOBAL, TABLEIDX, TYPE and TRAP; the raw bits for I64, F32 and F64;
     * the entry count for TABLE. */
    union {
        int64_t imm;
        int64_t imms[PVM_MAX_IMMS];
    };
    const uint8_t *table; /* TABLE: the entries, 4 little-endian bytes each */
} pvm_insn;

/* Decode the instruction at code[off] (off < size).  Returns NULL and fills
 * *out, or returns a static message saying what is wrong: an unknown opcode,
 * an instruction running past `size`, non-zero padding bits in the register
 * pack.  Never reads code[size] or beyond. */
const char *pvm_decode(const uint8_t *code, size_t size, size_t off, pvm_insn *out);

/* Entry i of a jump table (i < insn->imm). */
static inline int32_t pvm_insn_table_entry(const pvm_insn *insn, uint32_t i)
{
    return (int32_t)pvm_rd32(insn->table + 4 * (size_t)i);
}

/* The descriptor of the instruction's format. */
static inline const pvm_format_info *pvm_insn_format(const pvm_insn *insn)
{
    return &pvm_formats[pvm_ops[insn->op].format];
}

/* The opcode number of the instruction at p, whose opcode bytes are there
 * (the escape byte's two more): extended ones are 256 + their code. */
static inline unsigned pvm_opcode_at(const uint8_t *p)
{
    return p[0] == PVM_ESCAPE_BYTE ? PVM_OP_EXT_FIRST + pvm_rd16(p + 1) : p[0];
}

/* Write the opcode bytes of op at p (the escape byte and two more for an
 * extended one); their number. */
static inline unsigned pvm_write_opcode(uint8_t *p, unsigned op)
{
    if (PVM_OP_IS_EXT(op)) {
        p[0] = PVM_ESCAPE_BYTE;
        pvm_wr16(p + 1, (uint16_t)(op - PVM_OP_EXT_FIRST));
        return 3;
    }
    p[0] = (uint8_t)op;
    return 1;
}

/* Does an instruction of this format name code offsets (a branch offset,
 * a jump table), which move with the code and must land on instructions? */
static inline bool pvm_format_names_code_offsets(const pvm_format_info *fmt)
{
    for (unsigned k = 0; k < fmt->nimms; k++)
        if (fmt->imm[k] == PVM_IMM_REL32 || fmt->imm[k] == PVM_IMM_TABLE)
            return true;
    return false;
}

/* The branch offset of a decoded instruction: its REL32 immediate (a
 * branch, or a macro op ending in one); 0 when it has none.  *found says
 * whether it has one (may be NULL). */
int64_t pvm_insn_rel(const pvm_insn *insn, int *found);

/* Append the encoding of insn to b (insn->length is ignored; for a jump
 * table, as many entries as its count are copied from insn->table).  Returns the number
 * of bytes appended, or 0 if insn->op is not an opcode or a register number
 * or immediate does not fit its operand.  Allocation failure sets b->failed. */
size_t pvm_encode(pvm_buf *b, const pvm_insn *insn);

/* Does value v fit immediate kind k (as pvm_insn.imm would hold it)? */
int pvm_imm_fits(pvm_imm_kind k, int64_t v);

#endif
