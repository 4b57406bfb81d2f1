/*
 * wasm_insn.c - the Wasm opcode descriptor table (expanded from
 * wasm_opcodes.def) and the decoder of one instruction's opcode and
 * immediates.
 */
#include "wasm_insn.h"

#include <string.h>

#define T__ PVM_WASM_T_NONE
#define T_SPEC PVM_WASM_T_SPEC
#define T_I32 PVM_WASM_I32
#define T_I64 PVM_WASM_I64
#define T_F32 PVM_WASM_F32
#define T_F64 PVM_WASM_F64

#define MEM_BYTES(imm)                                                         \
    (PVM_WASM_IMM_##imm == PVM_WASM_IMM_MEM8    ? 1                            \
     : PVM_WASM_IMM_##imm == PVM_WASM_IMM_MEM16 ? 2                            \
     : PVM_WASM_IMM_##imm == PVM_WASM_IMM_MEM32 ? 4                            \
     : PVM_WASM_IMM_##imm == PVM_WASM_IMM_MEM64 ? 8                            \
                                                : 0)

const pvm_wasm_op_info pvm_wasm_ops[PVM_WASM_OP_COUNT] = {
#define ROW(name, prefix, code, text, imm, p1, p2, p3, r)                      \
    [PVM_WASM_OP_##name] = {text, prefix, code, PVM_WASM_IMM_##imm,            \
                            {T_##p1, T_##p2, T_##p3}, T_##r, MEM_BYTES(imm)},
#define OP(name, code, text, imm, p1, p2, p3, r) ROW(name, 0, code, text, imm, p1, p2, p3, r)
#define FC(name, code, text, imm, p1, p2, p3, r) ROW(name, 0xFC, code, text, imm, p1, p2, p3, r)
#include "wasm_opcodes.def"
#undef ROW
};

/* Opcode number + 1 by first byte, and by 0xFC code; 0 = illegal. */
const uint8_t pvm_wasm_byte_ops[256] = {
#define OP(name, code, text, imm, p1, p2, p3, r) [code] = PVM_WASM_OP_##name + 1,
#include "wasm_opcodes.def"
};
#define FC_CODES 32
static const uint8_t fc_ops[FC_CODES] = {
#define FC(name, code, text, imm, p1, p2, p3, r) [code] = PVM_WASM_OP_##name + 1,
#include "wasm_opcodes.def"
};
_Static_assert(PVM_WASM_OP_COUNT < 255, "opcode numbers must fit the lookup tables");

static int zero_byte(pvm_wasm_reader *r)
{
    size_t at = r->pos;
    uint8_t b;
    if (pvm_wasm_read_u8(r, &b))
        return -1;
    if (b != 0)
        return pvm_wasm_fail(r, at, "zero byte expected (memory index 0), found 0x%02x", b);
    return 0;
}

static int read_blocktype(pvm_wasm_reader *r, pvm_wasm_insn *in)
{
    size_t at = r->pos;
    uint8_t b;
    if (pvm_wasm_read_u8(r, &b))
        return -1;
    if (b == 0x40) {
        in->bt = PVM_WASM_BT_EMPTY;
        return 0;
    }
    if (pvm_wasm_is_valtype(b)) {
        in->bt = PVM_WASM_BT_VALUE;
        in->type = b;
        return 0;
    }
    r->pos = at;
    int64_t x;
    if (pvm_wasm_read_s33(r, &x))
        return -1;
    if (x < 0)
        return pvm_wasm_fail(r, at, "malformed block type");
    in->bt = PVM_WASM_BT_TYPE;
    in->idx = (uint32_t)x;
    return 0;
}

static int read_immediates(pvm_wasm_reader *r, pvm_wasm_insn *in)
{
    uint64_t v;
    switch ((pvm_wasm_imm)pvm_wasm_ops[in->op].imm) {
    case PVM_WASM_IMM_NONE:
        return 0;
    case PVM_WASM_IMM_BLOCKTYPE:
        return read_blocktype(r, in);
    case PVM_WASM_IMM_LABEL: case PVM_WASM_IMM_FUNC: case PVM_WASM_IMM_LOCAL:
    case PVM_WASM_IMM_GLOBAL: case PVM_WASM_IMM_TABLE: case PVM_WASM_IMM_ELEM:
    case PVM_WASM_IMM_DATA:
        return pvm_wasm_read_u32(r, &in->idx);
    case PVM_WASM_IMM_BR_TABLE:
        if (pvm_wasm_read_count(r, 1, &in->count))
            return -1;
        in->vec = (uint32_t)r->pos;
        for (uint32_t i = 0; i < in->count; i++)
            if (pvm_wasm_read_u32(r, &in->idx))
                return -1;
        return pvm_wasm_read_u32(r, &in->idx);
    case PVM_WASM_IMM_CALL_INDIRECT: case PVM_WASM_IMM_ELEM_TABLE:
    case PVM_WASM_IMM_TABLE_TABLE:
        if (pvm_wasm_read_u32(r, &in->idx))
            return -1;
        return pvm_wasm_read_u32(r, &in->idx2);
    case PVM_WASM_IMM_MEM8: case PVM_WASM_IMM_MEM16: case PVM_WASM_IMM_MEM32:
    case PVM_WASM_IMM_MEM64:
        if (pvm_wasm_read_u32(r, &in->align))
            return -1;
        return pvm_wasm_read_u32(r, &in->offset);
    case PVM_WASM_IMM_MEM0:
        return zero_byte(r);
    case PVM_WASM_IMM_MEM0_MEM0:
        return zero_byte(r) || zero_byte(r) ? -1 : 0;
    case PVM_WASM_IMM_DATA_MEM0:
        if (pvm_wasm_read_u32(r, &in->idx))
            return -1;
        return zero_byte(r);
    case PVM_WASM_IMM_I32: {
        int32_t x;
        if (pvm_wasm_read_s32(r, &x))
            return -1;
        in->value = (uint32_t)x;
        return 0;
    }
    case PVM_WASM_IMM_I64: {
        int64_t x;
        if (pvm_wasm_read_s64(r, &x))
            return -1;
        in->value = (uint64_t)x;
        return 0;
    }
    case PVM_WASM_IMM_F32:
        if (pvm_wasm_read_fixed(r, 4, &v))
            return -1;
        in->value = v;
        return 0;
    case PVM_WASM_IMM_F64:
        if (pvm_wasm_read_fixed(r, 8, &v))
            return -1;
        in->value = v;
        return 0;
    case PVM_WASM_IMM_REFTYPE:
        return pvm_wasm_read_reftype(r, &in->type);
    case PVM_WASM_IMM_SELECT_T:
        if (pvm_wasm_read_count(r, 1, &in->count))
            return -1;
        for (uint32_t i = 0; i < in->count; i++) {
            uint8_t t;
            if (pvm_wasm_read_valtype(r, &t))
                return -1;
            if (i == 0)
                in->type = t;
        }
        return 0;
    }
    return pvm_wasm_fail(r, in->pos, "internal error: unknown immediate kind");
}

int pvm_wasm_insn_read_any(pvm_wasm_reader *r, pvm_wasm_insn *in)
{
    memset(in, 0, sizeof *in);
    in->pos = (uint32_t)r->pos;
    uint8_t b;
    if (pvm_wasm_read_u8(r, &b))
        return -1;
    unsigned op1;
    if (b == 0xFC) {
        uint32_t code;
        if (pvm_wasm_read_u32(r, &code))
            return -1;
        op1 = code < FC_CODES ? fc_ops[code] : 0;
        if (!op1)
            return pvm_wasm_fail(r, in->pos, "illegal opcode 0xfc %u", code);
    } else {
        op1 = pvm_wasm_byte_ops[b];
        if (!op1)
            return pvm_wasm_fail(r, in->pos, "illegal opcode 0x%02x", b);
    }
    in->op = (uint16_t)(op1 - 1);
    if (read_immediates(r, in))
        return -1;
    in->end = (uint32_t)r->pos;
    return 0;
}
