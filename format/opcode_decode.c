/*
 * opcode_decode.c - one instruction decoded with a table of stored opcode
 * rows: little-endian fields, the register pack (bytes, or 5-bit fields),
 * immediates
 * extended by their kind, jump tables checked to lie within the code.
 */
#include "opcode_decode.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static uint64_t read_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* The low `bytes` bytes of v as a two's complement number. */
static int64_t sign_extend(uint64_t v, unsigned bytes)
{
    if (bytes == 0 || bytes >= 8)
        return (int64_t)v;
    uint64_t sign = (uint64_t)1 << (8 * bytes - 1);
    v &= (sign << 1) - 1;
    return (int64_t)(v ^ sign) - (int64_t)sign;
}

static int is_signed(ot_imm kind)
{
    return kind == OT_IMM_S8 || kind == OT_IMM_S16 || kind == OT_IMM_S32 ||
           kind == OT_IMM_OFF32 || kind == OT_IMM_REL32;
}

int ot_decode(const ot_table *t, const uint8_t *code, size_t size, size_t off, ot_insn *out,
              char *err, size_t cap)
{
    if (off >= size) {
        snprintf(err, cap, "offset %zu is past the end of the code (%zu bytes)", off, size);
        return -1;
    }
    size_t avail = size - off;
    uint32_t id = code[off];
    if (id == OT_ESCAPE_BYTE) {
        if (avail < 3) {
            snprintf(err, cap, "truncated extended opcode (0xff and %zu byte%s)", avail - 1,
                     avail == 2 ? "" : "s");
            return -1;
        }
        id = 256 + (uint32_t)read_le(code + off + 1, 2);
    }
    const ot_opcode *op = ot_table_find(t, id);
    if (op && op->declared) {
        snprintf(err, cap, "opcode %s is not in Pulley's encoding: read the stored instruction rows",
                 op->name);
        return -1;
    }
    if (!op) {
        if (id < 256)
            snprintf(err, cap, "unknown opcode 0x%02x", (unsigned)id);
        else
            snprintf(err, cap, "unknown extended opcode 0xff 0x%04x", (unsigned)(id - 256));
        return -1;
    }
    if (avail < op->length) {
        snprintf(err, cap, "truncated instruction: %s takes %u bytes, %zu are left", op->name,
                 (unsigned)op->length, avail);
        return -1;
    }
    const uint8_t *p = code + off + op->hdr;
    for (unsigned b = 0; op->reg_bits == 8 && b < op->pack; b++)
        if (p[b] > 31) {
            snprintf(err, cap, "%s has non-zero padding bits in register operand %u", op->name,
                     b + 1);
            return -1;
        }
    for (unsigned b = 0; op->reg_bits == 5 && b < op->pack; b++) {
        unsigned used = 5u * op->nregs > 8u * b ? 5u * op->nregs - 8u * b : 0;
        if (used < 8 && (p[b] & (0xFFu << used))) {
            snprintf(err, cap, "%s has non-zero padding bits after its register operands",
                     op->name);
            return -1;
        }
    }
    memset(out, 0, sizeof *out);
    out->op = op;
    for (unsigned i = 0; op->reg_bits == 8 && i < op->nregs; i++)
        out->reg[i] = p[i];
    for (unsigned i = 0; op->reg_bits == 5 && i < op->nregs; i++) {
        unsigned bit = 5 * i, b = bit / 8;
        unsigned v = p[b] | (b + 1 < op->pack ? (unsigned)p[b + 1] << 8 : 0);
        out->reg[i] = (uint8_t)(v >> (bit % 8) & 31);
    }
    out->length = op->length;
    const uint8_t *q = p + op->pack;
    for (unsigned i = 0; i < op->nimms; i++) {
        uint64_t raw = read_le(q, op->imm_size[i]);
        q += op->imm_size[i];
        out->imms[i] = is_signed((ot_imm)op->imm[i]) ? sign_extend(raw, op->imm_size[i])
                                                     : (int64_t)raw;
        if (op->imm[i] != OT_IMM_TABLE)
            continue;
        if (raw == 0) {
            snprintf(err, cap, "%s has a jump table without entries", op->name);
            return -1;
        }
        if (raw > (avail - op->length) / 4 || raw > (UINT32_MAX - op->length) / 4) {
            snprintf(err, cap,
                     "the jump table of %s (%" PRIu64 " entries) runs past the end of the code",
                     op->name, raw);
            return -1;
        }
        out->table = code + off + op->length;
        out->length += (uint32_t)(4 * raw);
    }
    return 0;
}

int32_t ot_jump_entry(const ot_insn *insn, uint32_t i)
{
    return (int32_t)sign_extend(read_le(insn->table + 4 * (size_t)i, 4), 4);
}
