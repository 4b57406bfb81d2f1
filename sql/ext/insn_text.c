/*
 * insn_text.c - decode an instruction with an opcode table and write its
 * text.  Operands are printed as interp/disasm.c prints them (without
 * labels), so text made from the compiled-in table equals the text the
 * collector stored; floats and names use the assembler's lexer rules so
 * that the text reads back to the same bytes.
 */
#include "insn_text.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm_lexer.h"
#include "disasm.h"
#include "isa.h"

static uint64_t read_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static int64_t sign_extend(uint64_t v, unsigned bytes)
{
    if (bytes == 0 || bytes >= 8)
        return (int64_t)v;
    uint64_t sign = (uint64_t)1 << (8 * bytes - 1);
    v &= (sign << 1) - 1;
    return (int64_t)(v ^ sign) - (int64_t)sign;
}

int sx_decode(const sx_optable *t, const uint8_t *code, size_t size, size_t off, sx_insn *out,
              char *err, size_t cap)
{
    if (off >= size) {
        snprintf(err, cap, "offset %zu is past the end of the code (%zu bytes)", off, size);
        return -1;
    }
    size_t avail = size - off;
    uint32_t id = code[off];
    if (id == PVM_ESCAPE_BYTE) {
        if (avail < 3) {
            snprintf(err, cap, "truncated extended opcode (0xff and %zu byte%s)", avail - 1,
                     avail == 2 ? "" : "s");
            return -1;
        }
        id = 256 + pvm_rd16(code + off + 1);
    }
    const sx_opcode *op = sx_optable_find(t, id);
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
    uint64_t pack = read_le(p, op->pack);
    if (pack >> (5 * op->nregs) != 0) {
        snprintf(err, cap, "%s has non-zero padding bits after its register operands", op->name);
        return -1;
    }
    memset(out, 0, sizeof *out);
    out->op = op;
    for (unsigned i = 0; i < op->nregs; i++)
        out->reg[i] = (uint8_t)(pack >> (5 * i) & 31);
    uint64_t raw = read_le(p + op->pack, op->imm_bytes);
    switch ((sx_imm)op->imm) {
    case SX_IMM_S8:
    case SX_IMM_S16:
    case SX_IMM_S32:
    case SX_IMM_OFF32:
    case SX_IMM_REL32: out->imm = sign_extend(raw, op->imm_bytes); break;
    default: out->imm = (int64_t)raw; break;
    }
    out->length = op->length;
    if (op->imm == SX_IMM_TABLE) {
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

int sx_names_add(sx_names *names, uint32_t index, const char *name)
{
    if (names->n > 0 && names->items[names->n - 1].index >= index)
        return -1;
    if (names->n == names->cap) {
        size_t ncap = names->cap ? 2 * names->cap : 16;
        sx_func_name *grown = realloc(names->items, ncap * sizeof *grown);
        if (!grown)
            return -1;
        names->items = grown;
        names->cap = ncap;
    }
    char *copy = strdup(name);
    if (!copy)
        return -1;
    names->items[names->n++] = (sx_func_name){index, copy};
    return 0;
}

const char *sx_names_find(const sx_names *names, uint32_t index)
{
    size_t lo = 0, hi = names->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (names->items[mid].index < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < names->n && names->items[lo].index == index ? names->items[lo].name : NULL;
}

void sx_names_free(sx_names *names)
{
    for (size_t i = 0; i < names->n; i++)
        free(names->items[i].name);
    free(names->items);
    *names = (sx_names){0};
}

/* A name as the assembler reads it: bare if it is an identifier, else quoted. */
static void put_name(sx_text *out, const char *name)
{
    size_t len = strlen(name);
    if (pasm_is_bare_name(name, len)) {
        sx_text_append(out, name, len);
        return;
    }
    sx_text_append(out, "\"", 1);
    for (size_t i = 0; i < len; i++) {
        char e[4];
        int n = pasm_escape_byte(e, (uint8_t)name[i]);
        sx_text_append(out, e, (size_t)n);
    }
    sx_text_append(out, "\"", 1);
}

static void put_float(sx_text *out, uint64_t bits, int f64)
{
    char text[PVM_FLOAT_TEXT_MAX]; /* as pulley-dis writes it */
    pvm_format_float(bits, f64 != 0, text);
    sx_text_append(out, text, strlen(text));
}

void sx_format(sx_text *out, const sx_insn *insn, const sx_names *names)
{
    const sx_opcode *op = insn->op;
    sx_text_append(out, op->name, strlen(op->name));
    for (unsigned i = 0; i < op->nregs; i++)
        sx_text_printf(out, "%s%c%u", i ? ", " : " ", (op->regf >> i & 1) ? 'f' : 'x',
                       (unsigned)insn->reg[i]);
    if (op->imm == SX_IMM_NONE)
        return;
    sx_text_append(out, op->nregs ? ", " : " ", op->nregs ? 2 : 1);
    int64_t imm = insn->imm;
    const char *name;
    switch ((sx_imm)op->imm) {
    case SX_IMM_REL32: sx_text_printf(out, "%+" PRId32, (int32_t)imm); break;
    case SX_IMM_TABLE:
        for (uint64_t i = 0; i < (uint64_t)imm; i++)
            sx_text_printf(out, "%s%+" PRId32, i ? ", " : "[",
                           (int32_t)pvm_rd32(insn->table + 4 * (size_t)i));
        sx_text_append(out, "]", 1);
        break;
    case SX_IMM_FUNC:
        if (names && (uint64_t)imm <= UINT32_MAX && (name = sx_names_find(names, (uint32_t)imm)))
            put_name(out, name);
        else
            sx_text_printf(out, "#%" PRId64, imm);
        break;
    case SX_IMM_TRAP:
        if ((uint64_t)imm < PVM_TRAP_COUNT)
            sx_text_printf(out, "%s", pvm_trap_name((unsigned)imm));
        else
            sx_text_printf(out, "%" PRId64, imm);
        break;
    case SX_IMM_F32:
    case SX_IMM_F64: put_float(out, (uint64_t)imm, op->imm == SX_IMM_F64); break;
    case SX_IMM_HOST:
    case SX_IMM_GLOBAL:
    case SX_IMM_TABLEIDX:
    case SX_IMM_TYPE: sx_text_printf(out, "#%" PRId64, imm); break;
    case SX_IMM_UNKNOWN: sx_text_printf(out, "0x%" PRIx64, (uint64_t)imm); break;
    default: sx_text_printf(out, "%" PRId64, imm); break;
    }
}
