/*
 * isa_table.c - the run's opcode table read from the database, with the
 * analysis's facts about each row, and instructions decoded into an_insn.
 * The rows are checked and decoded by opcode_rows.c and opcode_decode.c,
 * never by the compiled-in ISA.
 */
#include "isa_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opcode_decode.h"

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

/* What an immediate is to the analysis. */
static an_imm imm_class(ot_imm kind)
{
    switch (kind) {
    case OT_IMM_NONE: return AN_IMM_NONE;
    case OT_IMM_S8:
    case OT_IMM_S16:
    case OT_IMM_S32:
    case OT_IMM_OFF32:
    case OT_IMM_I64: return AN_IMM_SIGNED;
    case OT_IMM_U32: return AN_IMM_UNSIGNED;
    case OT_IMM_REL32: return AN_IMM_REL;
    case OT_IMM_TABLE: return AN_IMM_TABLE;
    default: return AN_IMM_OTHER;
    }
}

int an_isa_add(an_isa *isa, an_profile *p, int64_t id, const char *name, const char *operands,
               int64_t length, int64_t flags, const char *semantics, char *err, size_t cap)
{
    if (flags < 0 || flags > 255) {
        snprintf(err, cap, "opcode %s (%lld): flags %lld are not flag bits", name ? name : "?",
                 (long long)id, (long long)flags);
        return -1;
    }
    if (isa->rows.n == isa->cap) {
        size_t n = isa->cap ? 2 * isa->cap : 256;
        an_isa_op *grown = realloc(isa->ops, n * sizeof *grown);
        if (!grown)
            goto oom;
        isa->ops = grown;
        isa->cap = n;
    }
    if (ot_table_add(&isa->rows, id, name, operands, length, err, cap) != 0)
        return -1;
    const ot_opcode *row = &isa->rows.ops[isa->rows.n - 1];
    int g = an_profile_intern_op(p, name, (unsigned)flags);
    if (g < 0)
        goto oom;
    isa->ops[isa->rows.n - 1] = (an_isa_op){
        .gop = (uint16_t)g,
        .flags = (uint8_t)flags,
        .defs = row->nregs > 0 && writes_first(semantics),
    };
    return 0;
oom:
    snprintf(err, cap, "out of memory");
    return -1;
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
        char row_err[256];
        if (an_isa_add(isa, p, sqlite3_column_int64(st, 0),
                       (const char *)sqlite3_column_text(st, 1),
                       (const char *)sqlite3_column_text(st, 2), sqlite3_column_int64(st, 3),
                       sqlite3_column_int64(st, 4), (const char *)sqlite3_column_text(st, 5),
                       row_err, sizeof row_err) != 0) {
            snprintf(err, cap, "run %lld: stored opcode table: %s", (long long)run, row_err);
            goto fail;
        }
    }
    if (rc != SQLITE_DONE) {
        snprintf(err, cap, "reading the opcode table of run %lld: %s", (long long)run,
                 sqlite3_errmsg(db));
        goto fail;
    }
    sqlite3_finalize(st);
    if (isa->rows.n == 0) {
        snprintf(err, cap, "run %lld has no opcode table", (long long)run);
        return -1;
    }
    return 0;
fail:
    sqlite3_finalize(st);
    an_isa_free(isa);
    return -1;
}

void an_isa_free(an_isa *isa)
{
    ot_table_free(&isa->rows);
    free(isa->ops);
    memset(isa, 0, sizeof *isa);
}

int an_decode(const an_isa *isa, const uint8_t *code, size_t size, size_t off, an_insn *out,
              an_edge_fn edge, void *ctx)
{
    ot_insn in;
    if (ot_decode(&isa->rows, code, size, off, &in, NULL, 0) != 0)
        return -1;
    const an_isa_op *op = &isa->ops[in.op - isa->rows.ops];
    memset(out, 0, sizeof *out);
    out->off = (uint32_t)off;
    out->len = in.length;
    out->op = op->gop;
    out->flags = op->flags;
    out->nregs = in.op->nregs;
    memcpy(out->reg, in.reg, sizeof out->reg);
    out->regf = in.op->regf;
    out->defs = op->defs;
    out->imm_kind = (uint8_t)imm_class((ot_imm)in.op->imm);
    out->imm = in.imm;
    if (!edge)
        return 0;
    if (out->imm_kind == AN_IMM_TABLE) {
        for (uint32_t i = 0; i < (uint64_t)in.imm; i++) {
            int64_t target = (int64_t)off + ot_jump_entry(&in, i);
            if (target >= 0)
                edge(ctx, (uint32_t)target);
        }
    } else if (out->imm_kind == AN_IMM_REL && (out->flags & AN_BRANCH) &&
               (int64_t)off + in.imm >= 0) {
        edge(ctx, (uint32_t)((int64_t)off + in.imm));
    }
    return 0;
}
