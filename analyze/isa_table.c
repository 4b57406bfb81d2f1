/*
 * isa_table.c - the run's opcode table from the database and the decoder
 * driven by it: operand kinds, lengths and flags come from the `opcodes`
 * rows, never from the compiled-in ISA.
 */
#include "isa_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *word;
    an_imm kind;
} imm_words[] = {
    {"s8", AN_IMM_SIGNED},     {"s16", AN_IMM_SIGNED},   {"s32", AN_IMM_SIGNED},
    {"off32", AN_IMM_SIGNED},  {"i64", AN_IMM_SIGNED},   {"u32", AN_IMM_UNSIGNED},
    {"rel32", AN_IMM_REL},     {"table", AN_IMM_TABLE},
};

/* Operand a is written when the semantics begin "x[a] =" or "f[a].f64 =". */
static int writes_first(const char *sem)
{
    if (!sem || (sem[0] != 'x' && sem[0] != 'f') || strncmp(sem + 1, "[a]", 3) != 0)
        return 0;
    const char *p = sem + 4;
    if (*p == '.')
        p += strcspn(p, " ");
    return p[0] == ' ' && p[1] == '=' && p[2] != '=';
}

int an_opdesc_parse(an_opdesc *d, unsigned id, const char *operands, unsigned length,
                    unsigned flags, const char *semantics)
{
    memset(d, 0, sizeof *d);
    d->hdr = id >= 256 ? 3 : 1;
    d->flags = (uint8_t)flags;
    d->length = length;
    int seen_imm = 0;
    for (const char *p = operands; *p;) {
        size_t len = strcspn(p, " ");
        if (len == 1 && (*p == 'x' || *p == 'f')) {
            if (d->nregs == 4 || seen_imm)
                return -1;
            if (*p == 'f')
                d->regf |= (uint8_t)(1u << d->nregs);
            d->nregs++;
        } else if (len > 0) {
            if (seen_imm)
                return -1;
            seen_imm = 1;
            d->imm_kind = AN_IMM_OTHER;
            for (size_t i = 0; i < sizeof imm_words / sizeof imm_words[0]; i++)
                if (strlen(imm_words[i].word) == len && strncmp(p, imm_words[i].word, len) == 0)
                    d->imm_kind = (uint8_t)imm_words[i].kind;
        }
        p += len;
        while (*p == ' ')
            p++;
    }
    unsigned pack = (d->nregs * 5u + 7u) / 8u;
    if (length < d->hdr + pack)
        return -1;
    unsigned imm = length - d->hdr - pack;
    if (imm > 8 || (seen_imm && imm == 0) || (!seen_imm && imm != 0))
        return -1;
    if (d->imm_kind == AN_IMM_TABLE && imm != 4)
        return -1;
    d->imm_bytes = (uint8_t)imm;
    if (d->nregs > 0 && writes_first(semantics))
        d->defs = 1;
    d->valid = 1;
    return 0;
}

int an_isa_load(sqlite3 *db, int64_t run, an_profile *p, an_isa *isa, char *err, size_t cap)
{
    sqlite3_stmt *st = NULL;
    memset(isa, 0, sizeof *isa);
    int rc = sqlite3_prepare_v2(db,
                                "SELECT id, name, operands, length, flags, semantics FROM opcodes "
                                "WHERE run_id = ?1 ORDER BY id",
                                -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 1, run);
    while ((rc == SQLITE_OK || rc == SQLITE_ROW) && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        const char *name = (const char *)sqlite3_column_text(st, 1);
        const char *ops = (const char *)sqlite3_column_text(st, 2);
        int64_t length = sqlite3_column_int64(st, 3);
        int64_t flags = sqlite3_column_int64(st, 4);
        const char *sem = (const char *)sqlite3_column_text(st, 5);
        if (id < 0 || id >= 256 + 65536 || !name || !ops || length < 1 || length > 64 ||
            flags < 0 || flags > 255) {
            snprintf(err, cap, "run %lld: bad opcode row %lld", (long long)run, (long long)id);
            goto fail;
        }
        if ((unsigned)id >= isa->nops) {
            unsigned n = (unsigned)id + 1;
            an_opdesc *grown = realloc(isa->ops, n * sizeof *grown);
            if (!grown)
                goto oom;
            memset(grown + isa->nops, 0, (n - isa->nops) * sizeof *grown);
            isa->ops = grown;
            isa->nops = n;
        }
        an_opdesc *d = &isa->ops[id];
        if (an_opdesc_parse(d, (unsigned)id, ops, (unsigned)length, (unsigned)flags, sem) != 0) {
            snprintf(err, cap, "run %lld: opcode %s: operands '%s' do not fit length %lld",
                     (long long)run, name, ops, (long long)length);
            goto fail;
        }
        int g = an_profile_intern_op(p, name, (unsigned)flags);
        if (g < 0)
            goto oom;
        d->gop = (uint16_t)g;
    }
    if (rc != SQLITE_DONE) {
        snprintf(err, cap, "reading the opcode table of run %lld: %s", (long long)run,
                 sqlite3_errmsg(db));
        goto fail;
    }
    sqlite3_finalize(st);
    if (isa->nops == 0) {
        snprintf(err, cap, "run %lld has no opcode table", (long long)run);
        return -1;
    }
    return 0;
oom:
    snprintf(err, cap, "out of memory");
fail:
    sqlite3_finalize(st);
    an_isa_free(isa);
    return -1;
}

void an_isa_free(an_isa *isa)
{
    free(isa->ops);
    isa->ops = NULL;
    isa->nops = 0;
}

static uint64_t read_le(const uint8_t *b, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)b[i] << (8 * i);
    return v;
}

static int64_t sign_extend(uint64_t v, unsigned bytes)
{
    if (bytes == 0 || bytes >= 8)
        return (int64_t)v;
    uint64_t sign = (uint64_t)1 << (8 * bytes - 1);
    return (int64_t)((v ^ sign) - sign);
}

int an_decode(const an_isa *isa, const uint8_t *code, size_t size, size_t off, an_insn *out,
              an_edge_fn edge, void *ctx)
{
    if (off >= size)
        return -1;
    unsigned id = code[off];
    if (id == 0xFF) {
        if (size - off < 3)
            return -1;
        id = 256 + (unsigned)read_le(code + off + 1, 2);
    }
    if (id >= isa->nops || !isa->ops[id].valid)
        return -1;
    const an_opdesc *d = &isa->ops[id];
    if (size - off < d->length)
        return -1;
    memset(out, 0, sizeof *out);
    out->off = (uint32_t)off;
    out->op = d->gop;
    out->flags = d->flags;
    out->nregs = d->nregs;
    out->regf = d->regf;
    out->defs = d->defs;
    out->imm_kind = d->imm_kind;
    unsigned pack = (d->nregs * 5u + 7u) / 8u;
    uint64_t bits = read_le(code + off + d->hdr, pack);
    for (unsigned i = 0; i < d->nregs; i++)
        out->reg[i] = (uint8_t)(bits >> (5 * i) & 31);
    uint64_t raw = read_le(code + off + d->hdr + pack, d->imm_bytes);
    out->imm = d->imm_kind == AN_IMM_UNSIGNED || d->imm_kind == AN_IMM_TABLE
                   ? (int64_t)raw
                   : sign_extend(raw, d->imm_bytes);
    size_t len = d->length;
    if (d->imm_kind == AN_IMM_TABLE) {
        if ((size - off - len) / 4 < raw)
            return -1;
        for (uint64_t i = 0; i < raw; i++) {
            int64_t rel = sign_extend(read_le(code + off + len + 4 * i, 4), 4);
            if (edge && (int64_t)off + rel >= 0)
                edge(ctx, (uint32_t)((int64_t)off + rel));
        }
        len += 4 * (size_t)raw;
    } else if (d->imm_kind == AN_IMM_REL && (d->flags & AN_BRANCH) && edge &&
               (int64_t)off + out->imm >= 0) {
        edge(ctx, (uint32_t)((int64_t)off + out->imm));
    }
    out->len = (uint32_t)len;
    return 0;
}
