/*
 * isa_table.c - the run's opcode table read from the database, with the
 * analysis's facts about each row, and instructions decoded into an_insn.
 * The rows are checked and decoded by opcode_rows.c and opcode_decode.c,
 * never by the compiled-in ISA.
 */
#include "isa_table.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "legacy_roles.h"
#include "opcode_decode.h"
#include "stored_text.h"

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
               int64_t length, int64_t reg_bits, int64_t flags, const char *roles, char *err,
               size_t cap)
{
    if (flags < 0 || flags > 255) {
        snprintf(err, cap, "opcode %s (%lld): flags %lld are not flag bits", name ? name : "?",
                 (long long)id, (long long)flags);
        return -1;
    }
    if (BASE_GROW(isa->ops, isa->cap, isa->rows.n + 1, 256) != 0)
        goto oom;
    if (reg_bits == 0 ? ot_table_add_declared(&isa->rows, id, name, operands, fmt_count_words(roles),
                                              err, cap)
                      : ot_table_add(&isa->rows, id, name, operands, length, reg_bits, err, cap))
        return -1;
    const ot_opcode *row = &isa->rows.ops[isa->rows.n - 1];
    an_isa_op *op = &isa->ops[isa->rows.n - 1];
    const char *problem = fmt_parse_roles(roles, row->nregs, &op->uses, &op->defs);
    if (problem) {
        snprintf(err, cap, "opcode %s (%lld), roles '%s': %s", name, (long long)id,
                 roles ? roles : "", problem);
        ot_table_drop_last(&isa->rows);
        return -1;
    }
    int g = an_profile_intern_op(p, name, (unsigned)flags);
    if (g < 0)
        goto oom;
    op->gop = op->mgop = (uint16_t)g;
    op->flags = (uint8_t)flags;
    return 0;
oom:
    snprintf(err, cap, "out of memory");
    return -1;
}

/* The parts of the run's macro ops (macro_parts) into p's definitions. */
static int load_parts(sqlite3 *db, int64_t run, an_profile *p, const an_isa *isa, char *err,
                      size_t cap)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db,
                                "SELECT opcode, part, part_opcode, regs, imms FROM macro_parts "
                                "WHERE run_id = ?1 ORDER BY opcode, part",
                                -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 1, run);
    an_opdef def;
    const ot_opcode *macro = NULL;
    const char *bad = NULL;
    while (!bad && (rc == SQLITE_OK || rc == SQLITE_ROW) && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const ot_opcode *op = ot_table_find(&isa->rows, (uint32_t)sqlite3_column_int64(st, 0));
        const ot_opcode *part = ot_table_find(&isa->rows, (uint32_t)sqlite3_column_int64(st, 2));
        int64_t k = sqlite3_column_int64(st, 1);
        if (op != macro) {
            if (macro && an_profile_define_op(p, isa->ops[macro - isa->rows.ops].gop, &def) != 0)
                bad = "out of memory";
            memset(&def, 0, sizeof def);
            macro = op;
            def.regf = op ? op->regf : 0;
        }
        if (!op || !part || k != def.nparts || k >= AN_MAX_N) {
            bad = "a part of no macro op, of no opcode, or out of order";
            break;
        }
        int nr = fmt_parse_indices((const char *)sqlite3_column_text(st, 3), def.reg[k], AN_MAX_REGS,
                               op->nregs);
        if (nr != part->nregs || (unsigned)fmt_parse_indices((const char *)sqlite3_column_text(st, 4),
                                                         (uint8_t[AN_MAX_N]){0}, AN_MAX_N,
                                                         op->nimms) != part->nimms) {
            bad = "operands that are not the part's or not the macro op's";
            break;
        }
        def.part[k] = isa->ops[part - isa->rows.ops].gop;
        def.nregs[k] = (uint8_t)nr;
        def.nimms[k] = part->nimms;
        def.nparts++;
    }
    if (!bad && rc == SQLITE_DONE && macro &&
        an_profile_define_op(p, isa->ops[macro - isa->rows.ops].gop, &def) != 0)
        bad = "out of memory";
    if (bad || rc != SQLITE_DONE)
        snprintf(err, cap, "run %lld: stored macro parts: %s", (long long)run,
                 bad ? bad : sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return bad || rc != SQLITE_DONE ? -1 : 0;
}

/* What an opcode row's stored value (column 1 of st) makes of row (NULL:
 * the value's id, column 0, is no row of the table); NULL, or what is
 * wrong with it. */
typedef const char *stored_value_fn(an_profile *p, an_isa *isa, const ot_opcode *row,
                                    sqlite3_stmt *st);

/* Run sql ("SELECT id, VALUE FROM opcodes WHERE run_id = ?1 AND VALUE IS
 * NOT NULL") and give each row to `take`.  0, or -1 with err naming the
 * run and what is wrong. */
static int each_stored_value(sqlite3 *db, int64_t run, const char *sql, stored_value_fn *take,
                             an_profile *p, an_isa *isa, char *err, size_t cap)
{
    sqlite3_stmt *st = NULL;
    const char *bad = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 1, run);
    while (!bad && (rc == SQLITE_OK || rc == SQLITE_ROW)) {
        if ((rc = sqlite3_step(st)) != SQLITE_ROW)
            break;
        int64_t id = sqlite3_column_int64(st, 0);
        bad = take(p, isa, id >= 0 && id <= UINT32_MAX ? ot_table_find(&isa->rows, (uint32_t)id)
                                                       : NULL, st);
    }
    if (bad || rc != SQLITE_DONE)
        snprintf(err, cap, "run %lld: stored opcode table: %s", (long long)run,
                 bad ? bad : sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return bad || rc != SQLITE_DONE ? -1 : 0;
}

/* An opcode with a stored wide form is matched as that opcode. */
static const char *take_wide_form(an_profile *p, an_isa *isa, const ot_opcode *row,
                                  sqlite3_stmt *st)
{
    int64_t wide = sqlite3_column_int64(st, 1);
    const ot_opcode *to = wide >= 0 && wide <= UINT32_MAX
                              ? ot_table_find(&isa->rows, (uint32_t)wide)
                              : NULL;
    if (!row || !to || to == row)
        return "a wide_form that is no other opcode of the table";
    an_isa_op *op = &isa->ops[row - isa->rows.ops];
    op->mgop = isa->ops[to - isa->rows.ops].gop;
    p->opwide[op->gop] = op->mgop;
    return NULL;
}

/* The stored cost of an opcode's handler (schema 8). */
static const char *take_cost(an_profile *p, an_isa *isa, const ot_opcode *row, sqlite3_stmt *st)
{
    (void)p;
    double cost = sqlite3_column_double(st, 1);
    if (!row || sqlite3_column_type(st, 1) == SQLITE_TEXT || !(cost > 0 && cost <= 1e9))
        return "a cost that is no positive number, or of no opcode";
    isa->ops[row - isa->rows.ops].cost = cost;
    return NULL;
}

int an_isa_load(sqlite3 *db, int64_t run, an_profile *p, an_isa *isa, char *err, size_t cap)
{
    sqlite3_stmt *st = NULL;
    memset(isa, 0, sizeof *isa);
    /* Rows of a version 1 or 2 file store no roles: read them as version 3. */
    int64_t version = 3;
    int rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL);
    if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        version = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    st = NULL;
    rc = sqlite3_prepare_v2(db,
                            version >= 3
                                ? "SELECT id, name, operands, length, flags, roles, reg_bits "
                                  "FROM opcodes WHERE run_id = ?1 ORDER BY id"
                                : "SELECT id, name, operands, length, " PVM_LEGACY_FLAGS_SQL ", "
                                  PVM_LEGACY_ROLES_SQL ", 5 FROM opcodes "
                                  "WHERE run_id = ?1 ORDER BY id",
                            -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 1, run);
    while ((rc == SQLITE_OK || rc == SQLITE_ROW) && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        char row_err[256];
        if (an_isa_add(isa, p, sqlite3_column_int64(st, 0),
                       (const char *)sqlite3_column_text(st, 1),
                       (const char *)sqlite3_column_text(st, 2), sqlite3_column_int64(st, 3),
                       sqlite3_column_int64(st, 6), sqlite3_column_int64(st, 4),
                       (const char *)sqlite3_column_text(st, 5), row_err, sizeof row_err) != 0) {
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
    st = NULL;
    if (isa->rows.n == 0) {
        snprintf(err, cap, "run %lld has no opcode table", (long long)run);
        return -1;
    }
    if (version >= 3 && load_parts(db, run, p, isa, err, cap) != 0)
        goto fail;
    if (version >= 7 && each_stored_value(db, run,
                                          "SELECT id, wide_form FROM opcodes WHERE run_id = ?1"
                                          " AND wide_form IS NOT NULL",
                                          take_wide_form, p, isa, err, cap) != 0)
        goto fail;
    if (version >= 8 && each_stored_value(db, run,
                                          "SELECT id, cost FROM opcodes WHERE run_id = ?1"
                                          " AND cost IS NOT NULL",
                                          take_cost, p, isa, err, cap) != 0)
        goto fail;
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
    out->mop = op->mgop;
    out->flags = op->flags;
    out->nregs = in.op->nregs;
    memcpy(out->reg, in.reg, sizeof out->reg);
    out->regf = in.op->regf;
    out->uses = op->uses;
    out->defs = op->defs;
    out->nimms = in.op->nimms;
    /* The immediate the analysis describes: the first one that is not a
     * branch offset (a macro op ending in a branch has others first). */
    for (unsigned i = 0; i < in.op->nimms; i++) {
        an_imm kind = imm_class((ot_imm)in.op->imm[i]);
        if (out->imm_kind == AN_IMM_NONE || out->imm_kind == AN_IMM_REL) {
            out->imm_kind = (uint8_t)kind;
            out->imm = in.imms[i];
        }
        if (!edge || !(out->flags & AN_BRANCH))
            continue;
        if (kind == AN_IMM_TABLE) {
            for (uint32_t e = 0; e < (uint64_t)in.imms[i]; e++) {
                int64_t target = (int64_t)off + ot_jump_entry(&in, e);
                if (target >= 0)
                    edge(ctx, (uint32_t)target);
            }
        } else if (kind == AN_IMM_REL && (int64_t)off + in.imms[i] >= 0) {
            edge(ctx, (uint32_t)((int64_t)off + in.imms[i]));
        }
    }
    return 0;
}

int an_insn_from_row(const an_isa *isa, uint32_t off, int64_t len, int64_t opcode,
                     const char *regs, const char *imms, const char *targets, an_insn *out,
                     an_edge_fn edge, void *ctx, int *unanalysed, const char **why)
{
    const ot_opcode *row = opcode >= 0 && opcode <= UINT32_MAX
                               ? ot_table_find(&isa->rows, (uint32_t)opcode)
                               : NULL;
    int64_t reg[AN_MAX_REGS], imm[OT_MAX_IMMS];
    int nregs = fmt_parse_ints(regs, reg, AN_MAX_REGS), nimms = fmt_parse_ints(imms, imm, OT_MAX_IMMS);
    *why = !row                             ? "an opcode of no row of the run's table"
           : len <= 0 || len > UINT32_MAX   ? "a length that is none"
           : nregs != row->nregs            ? "register operands that are not its row's"
           : nimms < 0                      ? "immediates that are not a list of numbers"
           : row->nimms && nimms != row->nimms ? "immediates that are not its row's"
                                            : NULL;
    if (*why)
        return -1;
    const an_isa_op *op = &isa->ops[row - isa->rows.ops];
    memset(out, 0, sizeof *out);
    out->off = off;
    out->len = (uint32_t)len;
    out->op = op->gop;
    out->mop = op->mgop;
    out->flags = op->flags;
    int analysed = !row->foreign;
    for (int i = 0; i < nregs; i++)
        analysed &= reg[i] >= 0 && reg[i] < 32;
    if (analysed) {
        out->nregs = row->nregs;
        out->regf = row->regf;
        out->uses = op->uses;
        out->defs = op->defs;
        for (int i = 0; i < nregs; i++)
            out->reg[i] = (uint8_t)reg[i];
    }
    *unanalysed = !analysed;
    out->nimms = (uint8_t)nimms;
    for (int i = 0; i < nimms; i++) {
        an_imm kind = row->nimms ? imm_class((ot_imm)row->imm[i]) : AN_IMM_OTHER;
        if (out->imm_kind == AN_IMM_NONE || out->imm_kind == AN_IMM_REL) {
            out->imm_kind = (uint8_t)kind;
            out->imm = imm[i];
        }
    }
    for (const char *p = targets ? targets : ""; edge && *p;) {
        char *end;
        errno = 0;
        unsigned long long t = strtoull(p, &end, 10);
        if (end == p || errno || t > UINT32_MAX) {
            *why = "branch targets that are not a list of offsets";
            return -1;
        }
        edge(ctx, (uint32_t)t);
        for (p = end; *p == ' '; p++)
            ;
    }
    return 0;
}
