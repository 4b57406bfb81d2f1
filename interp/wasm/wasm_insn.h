/*
 * wasm_insn.h - Wasm instructions as C types, derived from wasm_opcodes.def:
 * the opcode enum, a descriptor per opcode (text, immediates, stack types),
 * and the decoder of one instruction (opcode and immediates) used by the
 * validator, the constant-expression reader and the translator.
 */
#ifndef PULLEY_WASM_INSN_H
#define PULLEY_WASM_INSN_H

#include <stdint.h>

#include "wasm_reader.h"

typedef enum pvm_wasm_op {
#define OP(name, code, text, imm, p1, p2, p3, r) PVM_WASM_OP_##name,
#define FC(name, code, text, imm, p1, p2, p3, r) PVM_WASM_OP_##name,
#include "wasm_opcodes.def"
    PVM_WASM_OP_COUNT
} pvm_wasm_op;

typedef enum pvm_wasm_imm {
    PVM_WASM_IMM_NONE,
    PVM_WASM_IMM_BLOCKTYPE,
    PVM_WASM_IMM_LABEL,
    PVM_WASM_IMM_BR_TABLE,
    PVM_WASM_IMM_FUNC,
    PVM_WASM_IMM_CALL_INDIRECT,
    PVM_WASM_IMM_LOCAL,
    PVM_WASM_IMM_GLOBAL,
    PVM_WASM_IMM_TABLE,
    PVM_WASM_IMM_ELEM,
    PVM_WASM_IMM_DATA,
    PVM_WASM_IMM_MEM8,
    PVM_WASM_IMM_MEM16,
    PVM_WASM_IMM_MEM32,
    PVM_WASM_IMM_MEM64,
    PVM_WASM_IMM_MEM0,
    PVM_WASM_IMM_MEM0_MEM0,
    PVM_WASM_IMM_DATA_MEM0,
    PVM_WASM_IMM_ELEM_TABLE,
    PVM_WASM_IMM_TABLE_TABLE,
    PVM_WASM_IMM_I32,
    PVM_WASM_IMM_I64,
    PVM_WASM_IMM_F32,
    PVM_WASM_IMM_F64,
    PVM_WASM_IMM_REFTYPE,
    PVM_WASM_IMM_SELECT_T,
} pvm_wasm_imm;

/* Stack-type columns of the table: a pvm_wasm_valtype code, or these. */
#define PVM_WASM_T_NONE 0x00 /* "_" */
#define PVM_WASM_T_SPEC 0x01 /* typed by hand in the validator */

typedef struct pvm_wasm_op_info {
    const char *text;   /* "i32.add" */
    uint8_t prefix;     /* 0 or 0xFC */
    uint32_t code;      /* the byte, or the code after 0xFC */
    uint8_t imm;        /* pvm_wasm_imm */
    uint8_t pop[3];     /* operand types, first operand first; T_NONE-padded */
    uint8_t push;       /* result type, T_NONE, or T_SPEC */
    uint8_t mem_bytes;  /* bytes accessed by a load or store, else 0 */
} pvm_wasm_op_info;

extern const pvm_wasm_op_info pvm_wasm_ops[PVM_WASM_OP_COUNT];

/* A block type. */
typedef enum pvm_wasm_bt_kind {
    PVM_WASM_BT_EMPTY, /* [] -> [] */
    PVM_WASM_BT_VALUE, /* [] -> [valtype] */
    PVM_WASM_BT_TYPE,  /* the function type `type` */
} pvm_wasm_bt_kind;

/* One decoded instruction.  Which fields are set depends on the opcode's
 * immediate kind; the others are zero. */
typedef struct pvm_wasm_insn {
    uint16_t op;       /* pvm_wasm_op */
    uint32_t pos;      /* offset of the first opcode byte */
    uint32_t end;      /* offset just after the instruction */
    uint32_t idx;      /* LABEL, FUNC, LOCAL, GLOBAL, TABLE, ELEM, DATA index;
                          CALL_INDIRECT type; ELEM_TABLE elem; TABLE_TABLE dst;
                          DATA_MEM0 data; BR_TABLE default label */
    uint32_t idx2;     /* CALL_INDIRECT table; ELEM_TABLE table; TABLE_TABLE src */
    uint32_t align;    /* MEM*: log2 of the alignment */
    uint32_t offset;   /* MEM*: the static offset */
    uint64_t value;    /* I32 (zero-extended bits), I64, F32, F64 raw bits */
    uint8_t type;      /* BLOCKTYPE value, REFTYPE, SELECT_T first type */
    uint8_t bt;        /* BLOCKTYPE: pvm_wasm_bt_kind; its type index in idx */
    uint32_t count;    /* BR_TABLE targets (default excluded); SELECT_T types */
    uint32_t vec;      /* BR_TABLE: offset of the first target (u32 LEBs) */
} pvm_wasm_insn;

/* Decode the instruction at r->pos (opcode and immediates, structurally: no
 * index is checked against the module).  Malformed input fails with an error
 * naming the offset ("illegal opcode", "zero byte expected", ...).
 * pvm_wasm_insn_read reads the common shapes itself (a one-byte opcode with
 * no immediate, or an index, an i32 constant or a memory argument of
 * one-byte LEBs) and leaves the others to pvm_wasm_insn_read_any: the
 * validator and the translator read every instruction this way. */
int pvm_wasm_insn_read_any(pvm_wasm_reader *r, pvm_wasm_insn *insn);

/* Opcode number + 1 of each first byte; 0: illegal, or the 0xFC prefix. */
extern const uint8_t pvm_wasm_byte_ops[256];

static inline int pvm_wasm_insn_read(pvm_wasm_reader *r, pvm_wasm_insn *in)
{
    size_t pos = r->pos;
    if (pos + 3 > r->end) /* room for an opcode and two one-byte LEBs */
        return pvm_wasm_insn_read_any(r, in);
    const uint8_t *p = r->bytes + pos;
    unsigned op1 = pvm_wasm_byte_ops[p[0]];
    if (!op1)
        return pvm_wasm_insn_read_any(r, in);
    size_t len;
    uint32_t idx = 0, align = 0, offset = 0, value = 0;
    switch ((pvm_wasm_imm)pvm_wasm_ops[op1 - 1].imm) {
    case PVM_WASM_IMM_NONE:
        len = 1;
        break;
    case PVM_WASM_IMM_LABEL: case PVM_WASM_IMM_FUNC: case PVM_WASM_IMM_LOCAL:
    case PVM_WASM_IMM_GLOBAL:
        if (p[1] & 0x80)
            return pvm_wasm_insn_read_any(r, in);
        idx = p[1];
        len = 2;
        break;
    case PVM_WASM_IMM_I32: /* a one-byte signed LEB: bit 6 is the sign */
        if (p[1] & 0x80)
            return pvm_wasm_insn_read_any(r, in);
        value = p[1] & 0x40 ? (uint32_t)p[1] | 0xffffff80u : p[1];
        len = 2;
        break;
    case PVM_WASM_IMM_MEM8: case PVM_WASM_IMM_MEM16: case PVM_WASM_IMM_MEM32:
    case PVM_WASM_IMM_MEM64:
        if ((p[1] | p[2]) & 0x80)
            return pvm_wasm_insn_read_any(r, in);
        align = p[1];
        offset = p[2];
        len = 3;
        break;
    default:
        return pvm_wasm_insn_read_any(r, in);
    }
    *in = (pvm_wasm_insn){.op = (uint16_t)(op1 - 1), .pos = (uint32_t)pos,
                          .end = (uint32_t)(pos + len), .idx = idx, .align = align,
                          .offset = offset, .value = value};
    r->pos = pos + len;
    return 0;
}

#endif
