/*
 * isa_table.c - the run's opcode table read from the database, with the
 * analysis's facts about each row: flags, roles, register kinds, macro
 * parts, wide forms, costs and windows of registers.  The rows are
 * checked by opcode_rows.c, never by the compiled-in ISA.
 */
#include "isa_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "legacy_roles.h"
#include "stored_text.h"

/* The kinds of a row's nregs register operands: the first words of its
 * operands (none: not known).  0, or -1 when out of memory. */
static int set_kinds(an_isa_op *op, an_profile *p, const char *operands, unsigned nregs)
{
    op->kinds_known = operands && *operands;
    for (unsigned i = 0; i < nregs && op->kinds_known; i++) {
        char word[64];
        size_t len = strcspn(operands, " ");
        if (len == 0) { /* fewer kind words than register operands */
            op->kinds_known = 0;
            break;
        }
        snprintf(word, sizeof word, "%.*s", (int)len, operands);
        int k = an_profile_intern_kind(p, word);
        if (k < 0)
            return -1;
        op->kind[i] = (uint8_t)k;
        for (operands += len; *operands == ' '; operands++)
            ;
    }
    return 0;
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
    memset(op, 0, sizeof *op);
    const char *problem = fmt_parse_roles(roles, row->nregs, &op->uses, &op->defs);
    if (problem) {
        snprintf(err, cap, "opcode %s (%lld), roles '%s': %s", name, (long long)id,
                 roles ? roles : "", problem);
        ot_table_drop_last(&isa->rows);
        return -1;
    }
    int g = an_profile_intern_op(p, name, (unsigned)flags);
    if (g < 0 && p->nops >= AN_MAX_OPS) {
        snprintf(err, cap, "opcode %s (%lld): more than %d distinct opcode names", name,
                 (long long)id, AN_MAX_OPS);
        ot_table_drop_last(&isa->rows);
        return -1;
    }
    if (g < 0 || set_kinds(op, p, operands, row->nregs) != 0)
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
            if (op)
                memcpy(def.kind, isa->ops[op - isa->rows.ops].kind, sizeof def.kind);
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

int an_isa_add_range(an_isa *isa, int64_t opcode, int64_t access, int64_t base, int64_t offset,
                     int64_t count_imm, int64_t count_add, int64_t open_if_zero, char *err,
                     size_t cap)
{
    const ot_opcode *row =
        opcode >= 0 && opcode <= UINT32_MAX ? ot_table_find(&isa->rows, (uint32_t)opcode) : NULL;
    an_isa_op *op = row ? &isa->ops[row - isa->rows.ops] : NULL;
    const char *bad =
        !row ? "of no opcode of the table"
        : op->nranges && op->first_range + op->nranges != isa->nranges
            ? "not beside the opcode's other windows"
        : access < 1 || access > 3 ? "an access that is not 1 (reads), 2 (writes) or 3"
        : base < 0 || base >= row->nregs ? "a base that is none of the opcode's register operands"
        : count_imm < -1 || count_imm >= OT_MAX_IMMS || (row->nimms && count_imm >= row->nimms)
            ? "a count_imm that is none of the opcode's immediates"
        : offset < INT32_MIN || offset > INT32_MAX || count_add < INT32_MIN ||
                count_add > INT32_MAX
            ? "an offset or count_add out of range"
        : (count_imm < 0 && count_add < 1) || (open_if_zero != 0 && open_if_zero != 1)
            ? "no registers, or an open_if_zero that is not 0 or 1"
            : NULL;
    if (bad) {
        snprintf(err, cap, "register window of opcode %lld: %s", (long long)opcode, bad);
        return -1;
    }
    if (BASE_GROW(isa->ranges, isa->ranges_cap, isa->nranges + 1, 16) != 0) {
        snprintf(err, cap, "out of memory");
        return -1;
    }
    if (op->nranges == 0)
        op->first_range = (uint32_t)isa->nranges;
    op->nranges++;
    isa->ranges[isa->nranges++] = (an_range){(uint8_t)access, (uint8_t)base, (uint8_t)open_if_zero,
                                             (int8_t)count_imm, (int32_t)offset,
                                             (int32_t)count_add};
    return 0;
}

/* The run's windows of registers (register_ranges, schema 9). */
static int load_ranges(sqlite3 *db, int64_t run, an_isa *isa, char *err, size_t cap)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db,
                                "SELECT opcode, access, base, offset, count_imm, count_add,"
                                " open_if_zero FROM register_ranges WHERE run_id = ?1"
                                " ORDER BY opcode, n",
                                -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 1, run);
    char why[256] = "";
    while ((rc == SQLITE_OK || rc == SQLITE_ROW) && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t v[7];
        for (int c = 0; c < 7; c++)
            v[c] = sqlite3_column_type(st, c) == SQLITE_INTEGER ? sqlite3_column_int64(st, c)
                                                                : INT64_MIN;
        if (an_isa_add_range(isa, v[0], v[1], v[2], v[3], v[4], v[5], v[6], why, sizeof why) != 0)
            break;
    }
    if (why[0] || rc != SQLITE_DONE)
        snprintf(err, cap, "run %lld: stored register windows: %s", (long long)run,
                 why[0] ? why : sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return why[0] || rc != SQLITE_DONE ? -1 : 0;
}

int an_isa_check(sqlite3 *db, int64_t run, int operands_stored, char *why, size_t cap)
{
    /* The columns of every schema version: reg_bits only from version 3. */
    sqlite3_stmt *st = NULL;
    int has_reg_bits =
        sqlite3_prepare_v2(db, "SELECT reg_bits FROM opcodes LIMIT 0", -1, &st, NULL) == SQLITE_OK;
    sqlite3_finalize(st);
    st = NULL;
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT (SELECT count(*) FROM opcodes WHERE run_id = ?1), %s,"
             " d.name, d.first, d.second FROM (SELECT 1) LEFT JOIN"
             " (SELECT name, min(id) AS first, max(id) AS second FROM opcodes WHERE run_id = ?1"
             "  GROUP BY name HAVING count(*) > 1 ORDER BY first LIMIT 1) d",
             has_reg_bits ? "(SELECT count(*) FROM opcodes WHERE run_id = ?1 AND reg_bits = 0)"
                          : "0");
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 1, run);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    int result = rc == SQLITE_ROW ? 0 : -1;
    if (result != 0) {
        snprintf(why, cap, "checking the opcode table of run %lld: %s", (long long)run,
                 sqlite3_errmsg(db));
    } else if (sqlite3_column_int64(st, 0) == 0) {
        snprintf(why, cap, "it has no opcode table (no opcodes rows): its code cannot be decoded");
        result = 1;
    } else if (sqlite3_column_type(st, 2) != SQLITE_NULL) {
        snprintf(why, cap,
                 "stored opcode table: the name '%s' appears twice (opcodes %lld and %lld):"
                 " their counts would merge",
                 (const char *)sqlite3_column_text(st, 2), (long long)sqlite3_column_int64(st, 3),
                 (long long)sqlite3_column_int64(st, 4));
        result = 1;
    } else if (sqlite3_column_int64(st, 1) > 0 && !operands_stored) {
        snprintf(why, cap,
                 "stored opcode table: its rows are of another interpreter's encoding"
                 " (reg_bits 0) but its instruction rows carry no operands"
                 " (runs.operands_stored 0): there is nothing to read its code with");
        result = 1;
    }
    sqlite3_finalize(st);
    return result;
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
            /* A row no collector writes: the run is damaged. */
            snprintf(err, cap, "stored opcode table: %s", row_err);
            sqlite3_finalize(st);
            an_isa_free(isa);
            return 1;
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
    if (version >= 9 && load_ranges(db, run, isa, err, cap) != 0)
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
    free(isa->ranges);
    memset(isa, 0, sizeof *isa);
}

/* FNV-1a over v's bytes. */
static uint64_t fp_mix(uint64_t h, const void *v, size_t n)
{
    const unsigned char *b = v;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

uint64_t an_isa_fingerprint(const an_isa *isa)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < isa->rows.n; i++) {
        const ot_opcode *o = &isa->rows.ops[i];
        const an_isa_op *a = &isa->ops[i];
        uint8_t row[8] = {o->hdr, o->reg_bits, o->nregs, o->pack, o->nimms, o->imm_bytes, o->length,
                          (uint8_t)(o->declared | o->foreign << 1)};
        uint8_t op[6] = {a->flags, a->kinds_known, (uint8_t)a->uses, (uint8_t)(a->uses >> 8),
                         (uint8_t)a->defs, (uint8_t)(a->defs >> 8)};
        h = fp_mix(h, &o->id, sizeof o->id);
        h = fp_mix(h, row, sizeof row);
        h = fp_mix(h, &o->regf, sizeof o->regf);
        h = fp_mix(h, o->imm, sizeof o->imm);
        h = fp_mix(h, o->imm_size, sizeof o->imm_size);
        h = fp_mix(h, &a->gop, sizeof a->gop);
        h = fp_mix(h, &a->mgop, sizeof a->mgop);
        h = fp_mix(h, op, sizeof op);
        h = fp_mix(h, a->kind, sizeof a->kind);
        h = fp_mix(h, &a->nranges, sizeof a->nranges);
        for (uint32_t k = 0; k < a->nranges && a->first_range + k < isa->nranges; k++) {
            const an_range *r = &isa->ranges[a->first_range + k];
            uint8_t rb[4] = {r->access, r->base, r->open_if_zero, (uint8_t)r->count_imm};
            h = fp_mix(h, rb, sizeof rb);
            h = fp_mix(h, &r->offset, sizeof r->offset);
            h = fp_mix(h, &r->count_add, sizeof r->count_add);
        }
    }
    return h;
}
