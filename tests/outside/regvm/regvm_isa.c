/*
 * regvm_isa.c - regvm's opcode table (regvm_isa.h), its encoding, and the
 * same table as libpulleyprof reads it: rows, the window of registers
 * `sum` reads, and the decoder that tells the library each instruction's
 * operands and branch targets.
 */
#include "regvm_isa.h"

#include "regvm_fuse.h"

#include <stdio.h>
#include <string.h>

regvm_op regvm_ops[REGVM_MAX_OPS];
unsigned regvm_nops;

pulleyprof_opcode regvm_rows[REGVM_MAX_OPS];

/* sum rA, rB, N reads rB .. rB+N-1: a window from register operand 1
 * whose count is immediate 0. */
static const pulleyprof_range sum_reads[] = {
    {.access = PULLEYPROF_READS, .base = 1, .offset = 0, .count_imm = 0, .count_add = 0},
};

static int decode_for_library(const void *ctx, const uint8_t *code, size_t size, size_t off,
                              pulleyprof_insn *out);

pulleyprof_isa regvm_isa = {.name = "regvm", .opcodes = regvm_rows, .decode = decode_for_library};

static const struct {
    const char *name, *operands, *roles;
    uint8_t nregs, nimms;
    unsigned flags;
} base[] = {
#define REGVM_ROW(name, operands, roles, nregs, nimms, flags) {#name, operands, roles, nregs, nimms, flags},
    REGVM_OPS(REGVM_ROW)
#undef REGVM_ROW
};

int regvm_isa_init(void)
{
    for (unsigned i = 0; i < REGVM_NBASE; i++) {
        regvm_op *op = &regvm_ops[i];
        *op = (regvm_op){base[i].name, base[i].nregs, base[i].nimms, base[i].flags, -1};
        if (base[i].flags & PULLEYPROF_BRANCH)
            op->rel = (int8_t)(base[i].nimms - 1); /* the branch offset comes last */
        regvm_rows[i] = (pulleyprof_opcode){.id = i, .name = base[i].name, .operands = base[i].operands,
                                      .roles = base[i].roles, .flags = base[i].flags};
    }
    regvm_rows[OP_sum].implicit = sum_reads;
    regvm_rows[OP_sum].nimplicit = 1;
    regvm_nops = REGVM_NBASE;
    regvm_isa.nopcodes = regvm_nops;
    return regvm_macros_init();
}

const char *regvm_base_operands(unsigned op)
{
    return op < REGVM_NBASE ? base[op].operands : "";
}

const char *regvm_base_roles(unsigned op)
{
    return op < REGVM_NBASE ? base[op].roles : "";
}

static int read_sleb(const uint8_t *code, size_t size, size_t *at, int64_t *out)
{
    uint64_t v = 0;
    unsigned shift = 0;
    for (;;) {
        if (*at >= size || shift > 63)
            return -1;
        uint8_t b = code[(*at)++];
        v |= (uint64_t)(b & 0x7F) << shift;
        shift += 7;
        if (!(b & 0x80)) {
            if (shift < 64 && (b & 0x40))
                v |= ~(uint64_t)0 << shift;
            *out = (int64_t)v;
            return 0;
        }
    }
}

/* Write v as a signed LEB128 number, in at least `min` bytes. */
static unsigned write_sleb(int64_t v, uint8_t *out, unsigned min)
{
    unsigned n = 0;
    for (;;) {
        uint8_t b = (uint8_t)(v & 0x7F);
        v >>= 7; /* arithmetic: implementation-defined, but every compiler we build with */
        int done = ((v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40))) && n + 1 >= min;
        out[n++] = done ? b : (uint8_t)(b | 0x80);
        if (done)
            return n;
    }
}

int regvm_decode(const uint8_t *code, size_t size, size_t off, regvm_insn *in)
{
    if (off >= size || code[off] >= regvm_nops)
        return -1;
    const regvm_op *op = &regvm_ops[code[off]];
    size_t at = off + 1;
    in->op = code[off];
    if (at + op->nregs > size)
        return -1;
    memcpy(in->reg, code + at, op->nregs);
    at += op->nregs;
    for (unsigned i = 0; i < op->nimms; i++)
        if (read_sleb(code, size, &at, &in->imm[i]) != 0 ||
            ((int)i == op->rel && (in->imm[i] < INT32_MIN || in->imm[i] > INT32_MAX)))
            return -1; /* a branch offset is a 32-bit number */
    in->len = (unsigned)(at - off);
    return 0;
}

unsigned regvm_encode(const regvm_insn *in, uint8_t *out)
{
    const regvm_op *op = &regvm_ops[in->op];
    unsigned n = 0;
    out[n++] = (uint8_t)in->op;
    memcpy(out + n, in->reg, op->nregs);
    n += op->nregs;
    for (unsigned i = 0; i < op->nimms; i++)
        n += write_sleb(in->imm[i], out + n, (int)i == op->rel ? REGVM_REL_BYTES : 1);
    return n;
}

static int decode_for_library(const void *ctx, const uint8_t *code, size_t size, size_t off,
                              pulleyprof_insn *out)
{
    (void)ctx;
    regvm_insn in;
    if (regvm_decode(code, size, off, &in) != 0)
        return -1;
    const regvm_op *op = &regvm_ops[in.op];
    out->opcode = in.op;
    out->length = in.len;
    out->nregs = op->nregs;
    out->nimms = op->nimms;
    size_t n = (size_t)snprintf(out->text, out->text_cap, "%s", op->name);
    for (unsigned i = 0; i < op->nregs; i++) {
        out->regs[i] = in.reg[i];
        if (n < out->text_cap)
            n += (size_t)snprintf(out->text + n, out->text_cap - n, "%s r%u", i ? "," : "",
                                  in.reg[i]);
    }
    for (unsigned i = 0; i < op->nimms; i++) {
        out->imms[i] = in.imm[i];
        if (n < out->text_cap)
            n += (size_t)snprintf(out->text + n, out->text_cap - n, "%s %lld",
                                  i || op->nregs ? "," : "", (long long)in.imm[i]);
    }
    if (op->rel >= 0 && (int64_t)off + in.imm[op->rel] >= 0 &&
        pulleyprof_insn_add_target(out, (uint32_t)((int64_t)off + in.imm[op->rel])) != 0)
        return -1;
    return 0;
}
