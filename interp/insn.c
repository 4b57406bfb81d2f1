/*
 * insn.c - the generic instruction encoder and decoder, driven by the
 * format descriptors of isa.c.
 */
#include "insn.h"

#include <string.h>

static int64_t read_imm(pvm_imm_kind k, const uint8_t *p)
{
    switch (k) {
    case PVM_IMM_NONE:
    case PVM_IMM_COUNT: return 0;
    case PVM_IMM_S8: return (int8_t)p[0];
    case PVM_IMM_S16: return (int16_t)pvm_rd16(p);
    case PVM_IMM_S32:
    case PVM_IMM_OFF32:
    case PVM_IMM_REL32: return (int32_t)pvm_rd32(p);
    case PVM_IMM_U32:
    case PVM_IMM_FUNC:
    case PVM_IMM_HOST:
    case PVM_IMM_F32:
    case PVM_IMM_TABLE:
    case PVM_IMM_GLOBAL:
    case PVM_IMM_TABLEIDX:
    case PVM_IMM_TYPE: return (int64_t)pvm_rd32(p);
    case PVM_IMM_TRAP: return p[0];
    case PVM_IMM_I64:
    case PVM_IMM_F64: return (int64_t)pvm_rd64(p);
    }
    return 0;
}

const char *pvm_decode(const uint8_t *code, size_t size, size_t off, pvm_insn *out)
{
    size_t avail = size - off;
    unsigned op = code[off];
    size_t hdr = 1;
    if (op == PVM_ESCAPE_BYTE) {
        if (avail < 3)
            return "truncated extended opcode";
        op = PVM_OP_EXT_FIRST + pvm_rd16(code + off + 1);
        hdr = 3;
    }
    const pvm_op_info *info = pvm_op_lookup(op);
    if (!info)
        return hdr == 1 ? "invalid opcode" : "invalid extended opcode";
    const pvm_format_info *fmt = &pvm_formats[info->format];
    if (avail < info->length)
        return "truncated instruction";

    const uint8_t *p = code + off + hdr;
    memset(out->reg, 0, sizeof out->reg); /* the operands the format lacks: 0 */
    for (unsigned i = 0; i < fmt->nregs; i++) {
        if (p[i] > 31)
            return "non-zero padding bits in a register operand (a register is 0..31)";
        out->reg[i] = p[i];
    }

    out->op = (uint16_t)op;
    out->table = NULL;
    out->length = info->length;
    memset(out->imms, 0, sizeof out->imms);
    for (unsigned i = 0; i < fmt->nimms; i++) {
        out->imms[i] = read_imm((pvm_imm_kind)fmt->imm[i], p + fmt->pack_bytes + fmt->imm_at[i]);
        if (fmt->imm[i] != PVM_IMM_TABLE)
            continue;
        uint64_t entries = (uint64_t)out->imms[i];
        if (entries == 0)
            return "jump table without entries";
        if (entries > (avail - info->length) / 4)
            return "jump table runs past the end of the code";
        out->table = code + off + info->length;
        out->length += (uint32_t)(4 * entries);
    }
    return NULL;
}

int64_t pvm_insn_rel(const pvm_insn *insn, int *found)
{
    const pvm_format_info *fmt = pvm_insn_format(insn);
    for (unsigned i = 0; i < fmt->nimms; i++)
        if (fmt->imm[i] == PVM_IMM_REL32) {
            if (found)
                *found = 1;
            return insn->imms[i];
        }
    if (found)
        *found = 0;
    return 0;
}

int pvm_imm_fits(pvm_imm_kind k, int64_t v)
{
    switch (k) {
    case PVM_IMM_NONE:
    case PVM_IMM_COUNT: return v == 0;
    case PVM_IMM_S8: return v >= INT8_MIN && v <= INT8_MAX;
    case PVM_IMM_S16: return v >= INT16_MIN && v <= INT16_MAX;
    case PVM_IMM_S32:
    case PVM_IMM_OFF32:
    case PVM_IMM_REL32: return v >= INT32_MIN && v <= INT32_MAX;
    case PVM_IMM_U32:
    case PVM_IMM_FUNC:
    case PVM_IMM_HOST:
    case PVM_IMM_F32:
    case PVM_IMM_GLOBAL:
    case PVM_IMM_TABLEIDX:
    case PVM_IMM_TYPE: return v >= 0 && v <= (int64_t)UINT32_MAX;
    case PVM_IMM_TABLE: return v >= 1 && v <= (int64_t)UINT32_MAX;
    case PVM_IMM_TRAP: return v >= 0 && v <= UINT8_MAX;
    case PVM_IMM_I64:
    case PVM_IMM_F64: return 1;
    }
    return 0;
}

size_t pvm_encode(pvm_buf *b, const pvm_insn *insn)
{
    const pvm_op_info *info = pvm_op_lookup(insn->op);
    if (!info)
        return 0;
    const pvm_format_info *fmt = &pvm_formats[info->format];
    int64_t table_count = 0;
    for (unsigned i = 0; i < fmt->nimms; i++) {
        if (!pvm_imm_fits((pvm_imm_kind)fmt->imm[i], insn->imms[i]))
            return 0;
        if (fmt->imm[i] == PVM_IMM_TABLE)
            table_count = insn->imms[i];
    }
    for (unsigned i = 0; i < fmt->nregs; i++)
        if (insn->reg[i] > 31)
            return 0;

    /* One reservation for the whole instruction, then the bytes in place:
     * the opcode, the register pack, the immediates at their offsets, the
     * jump table's entries. */
    size_t len = info->length + 4 * (size_t)table_count;
    uint8_t *const start = pvm_buf_reserve(b, len), *p = start;
    if (!start)
        return 0;
    p += pvm_write_opcode(p, insn->op);
    memcpy(p, insn->reg, fmt->pack_bytes);
    for (unsigned i = 0; i < fmt->nimms; i++) {
        uint8_t *at = p + fmt->pack_bytes + fmt->imm_at[i];
        uint64_t v = (uint64_t)insn->imms[i];
        switch (pvm_imm_size(fmt->imm[i])) {
        case 1: at[0] = (uint8_t)v; break;
        case 2: pvm_wr16(at, (uint16_t)v); break;
        case 4: pvm_wr32(at, (uint32_t)v); break;
        case 8: pvm_wr64(at, v); break;
        default: break;
        }
    }
    if (table_count)
        memcpy(start + info->length, insn->table, 4 * (size_t)table_count);
    return len;
}
