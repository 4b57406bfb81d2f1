/*
 * opcode_rows.c - stored opcode rows checked against their lengths and
 * indexed by id: the operand words, register counts and immediate sizes.
 */
#include "opcode_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

static const struct {
    const char *word;
    ot_imm kind;
    uint8_t bytes;
} imm_words[] = {
    {"s8", OT_IMM_S8, 1},         {"s16", OT_IMM_S16, 2},         {"s32", OT_IMM_S32, 4},
    {"i64", OT_IMM_I64, 8},       {"u32", OT_IMM_U32, 4},         {"off32", OT_IMM_OFF32, 4},
    {"rel32", OT_IMM_REL32, 4},   {"func", OT_IMM_FUNC, 4},       {"host", OT_IMM_HOST, 4},
    {"trap", OT_IMM_TRAP, 1},     {"f32", OT_IMM_F32, 4},         {"f64", OT_IMM_F64, 8},
    {"table", OT_IMM_TABLE, 4},   {"global", OT_IMM_GLOBAL, 4},   {"tableidx", OT_IMM_TABLEIDX, 4},
    {"type", OT_IMM_TYPE, 4},
};

/* Parse `operands` into d: registers, then immediates, with the size of
 * each known one; *unknown is set to the index of a word of a newer ISA
 * (whose size is what the length leaves), or -1.  Returns NULL, or what is
 * wrong. */
static const char *parse_operands(ot_opcode *d, const char *operands, int *unknown)
{
    *unknown = -1;
    for (const char *p = operands; *p;) {
        size_t len = strcspn(p, " ");
        if (len == 1 && (*p == 'x' || *p == 'f')) {
            if (d->nimms)
                return "a register operand follows an immediate";
            if (d->nregs == OT_MAX_REGS)
                return "more than 16 register operands";
            if (*p == 'f')
                d->regf |= (uint16_t)(1u << d->nregs);
            d->nregs++;
        } else if (len > 0) {
            if (d->nimms == OT_MAX_IMMS)
                return "more than 8 immediates";
            if (*unknown >= 0)
                return "an unknown operand word is followed by another immediate";
            if (d->nimms && d->imm[d->nimms - 1] == OT_IMM_TABLE)
                return "an immediate follows a jump table";
            unsigned i = d->nimms++;
            d->imm[i] = OT_IMM_UNKNOWN;
            for (size_t k = 0; k < sizeof imm_words / sizeof imm_words[0]; k++)
                if (strlen(imm_words[k].word) == len && memcmp(p, imm_words[k].word, len) == 0) {
                    d->imm[i] = (uint8_t)imm_words[k].kind;
                    d->imm_size[i] = imm_words[k].bytes;
                }
            if (d->imm[i] == OT_IMM_UNKNOWN)
                *unknown = (int)i;
        }
        p += len;
        while (*p == ' ')
            p++;
    }
    return NULL;
}

/* Is row `id` one that may follow t's last row?  0, or -1 with err. */
static int check_row_id(const ot_table *t, int64_t id, const char *name, const char *operands,
                        int declared, char *err, size_t cap)
{
    if (id < 0 || (!declared && (id == OT_ESCAPE_BYTE || id > 256 + 0xFFFF)) || id > UINT32_MAX) {
        snprintf(err, cap, "opcode id %lld is not an opcode number", (long long)id);
        return -1;
    }
    if (t->n > 0 && t->ops[t->n - 1].id >= (uint64_t)id) {
        snprintf(err, cap, "opcode id %lld is out of order", (long long)id);
        return -1;
    }
    if (!name || !*name || !operands) {
        snprintf(err, cap, "opcode %lld has no name or no operands", (long long)id);
        return -1;
    }
    return 0;
}

/* Append d (its name copied); 0, or -1 with err. */
static int append_row(ot_table *t, ot_opcode d, const char *name, char *err, size_t cap)
{
    if (BASE_GROW(t->ops, t->cap, t->n + 1, 256) != 0) {
        snprintf(err, cap, "out of memory");
        return -1;
    }
    if (!(d.name = strdup(name))) {
        snprintf(err, cap, "out of memory");
        return -1;
    }
    t->ops[t->n++] = d;
    return 0;
}

int ot_table_add_declared(ot_table *t, int64_t id, const char *name, const char *operands,
                          unsigned nregs, char *err, size_t cap)
{
    if (check_row_id(t, id, name, operands, 1, err, cap) != 0)
        return -1;
    ot_opcode d = {.id = (uint32_t)id, .declared = 1};
    const char *problem = nregs > OT_MAX_REGS ? "more than 16 register operands" : NULL;
    for (const char *p = operands; *p && !problem;) {
        size_t len = strcspn(p, " ");
        if (len && d.nregs < nregs) {
            if (len == 1 && *p == 'f')
                d.regf |= (uint16_t)(1u << d.nregs);
            else if (!(len == 1 && *p == 'x'))
                d.foreign = 1;
            d.nregs++;
        } else if (len && d.nimms == OT_MAX_IMMS) {
            problem = "more than 8 immediates";
        } else if (len) {
            unsigned i = d.nimms++;
            d.imm[i] = OT_IMM_UNKNOWN;
            for (size_t k = 0; k < sizeof imm_words / sizeof imm_words[0]; k++)
                if (strlen(imm_words[k].word) == len && memcmp(p, imm_words[k].word, len) == 0)
                    d.imm[i] = (uint8_t)imm_words[k].kind;
        }
        p += len;
        while (*p == ' ')
            p++;
    }
    if (!problem && *operands && d.nregs != nregs)
        problem = "fewer operand kinds than roles";
    if (!*operands)
        d.nregs = (uint8_t)nregs, d.foreign = nregs > 0; /* undeclared kinds */
    if (problem) {
        snprintf(err, cap, "opcode %s (%lld), operands '%s': %s", name, (long long)id, operands,
                 problem);
        return -1;
    }
    return append_row(t, d, name, err, cap);
}

int ot_table_add(ot_table *t, int64_t id, const char *name, const char *operands,
                 int64_t length, int64_t reg_bits, char *err, size_t cap)
{
    if (reg_bits != 5 && reg_bits != 8) {
        snprintf(err, cap,
                 "opcode %s (%lld): %lld bits per register operand (5 or 8; 0 is a code"
                 " not in Pulley's encoding, whose instructions cannot be decoded here)",
                 name ? name : "?", (long long)id, (long long)reg_bits);
        return -1;
    }
    if (check_row_id(t, id, name, operands, 0, err, cap) != 0)
        return -1;
    ot_opcode d = {.id = (uint32_t)id, .hdr = id >= 256 ? 3 : 1, .reg_bits = (uint8_t)reg_bits};
    int unknown;
    const char *problem = parse_operands(&d, operands, &unknown);
    d.pack = (uint8_t)(reg_bits == 8 ? d.nregs : (d.nregs * 5u + 7u) / 8u);
    unsigned fixed = d.hdr + d.pack, imm_bytes = 0;
    for (unsigned i = 0; i < d.nimms; i++)
        imm_bytes += d.imm_size[i];
    if (!problem && (length < fixed || length > 255))
        problem = "its length is too small or too large";
    if (!problem && unknown < 0 && fixed + imm_bytes != length)
        problem = "the operands do not fit its length";
    if (!problem && unknown >= 0) { /* unknown word: its size is what is left */
        int64_t rest = length - fixed - imm_bytes;
        if (rest < 1 || rest > 8)
            problem = "the operands do not fit its length";
        else
            d.imm_size[unknown] = (uint8_t)rest, imm_bytes += (unsigned)rest;
    }
    if (problem) {
        snprintf(err, cap, "opcode %s (%lld), operands '%s', length %lld: %s", name,
                 (long long)id, operands, (long long)length, problem);
        return -1;
    }
    d.imm_bytes = (uint8_t)imm_bytes;
    d.length = (uint8_t)length;
    return append_row(t, d, name, err, cap);
}

void ot_table_drop_last(ot_table *t)
{
    if (t->n > 0)
        free(t->ops[--t->n].name);
}

const ot_opcode *ot_table_find(const ot_table *t, uint32_t id)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->ops[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->n && t->ops[lo].id == id ? &t->ops[lo] : NULL;
}

void ot_table_free(ot_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->ops[i].name);
    free(t->ops);
    *t = (ot_table){0};
}
