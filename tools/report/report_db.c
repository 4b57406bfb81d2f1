/*
 * report_db.c - run summaries and stored disassembly for pulley-report,
 * read with SQL from the databases the profile was loaded from.
 */
#include "report_db.h"

#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocks.h"
#include "db_open.h"

/* Is run r the first of the profile's runs read from its database? */
static int first_of_db(const an_profile *p, size_t r)
{
    const char *db = an_profile_member(p, r).db;
    for (size_t k = 0; k < r; k++)
        if (strcmp(an_profile_member(p, k).db, db) == 0)
            return 0;
    return 1;
}

static int fail(sqlite3 *db, const char *path, const char *what, int rc, char *err, size_t cap)
{
    snprintf(err, cap, "%s: %s: %s", path, what, rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(db));
    sqlite3_close(db);
    return -1;
}

/* A text column copied, NULL for NULL; *oom set when the copy failed. */
static char *text_col(sqlite3_stmt *st, int col, int *oom)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    if (!t)
        return NULL;
    char *s = strdup((const char *)t);
    if (!s)
        *oom = 1;
    return s;
}

static int64_t int_col(sqlite3_stmt *st, int col)
{
    return sqlite3_column_type(st, col) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, col);
}

static const char run_sql[] =
    "SELECT start_time, outcome, build_flags, host, command_line, collector, duration_ns,"
    " sample_hz, samples_taken, samples_written, samples_dropped,"
    " (SELECT coalesce(sum(samples), 0) FROM pc_samples WHERE run_id = ?1 AND function_id IS NULL),"
    " (SELECT coalesce(sum(samples), 0) FROM pc_samples WHERE run_id = ?1 AND function_id IS NOT NULL)"
    " FROM runs WHERE id = ?1";

static int read_run(sqlite3_stmt *st, int64_t id, rp_run_info *info)
{
    int rc = sqlite3_reset(st);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 1, id);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc != SQLITE_ROW)
        return rc == SQLITE_DONE ? SQLITE_NOTFOUND : rc;
    int oom = 0;
    char **texts[] = {&info->start_time, &info->outcome, &info->build_flags, &info->host,
                      &info->command_line, &info->collector};
    for (int c = 0; c < 6; c++)
        *texts[c] = text_col(st, c, &oom);
    info->duration_ns = int_col(st, 6);
    info->sample_hz = int_col(st, 7);
    info->samples_taken = int_col(st, 8);
    info->samples_written = int_col(st, 9);
    info->samples_dropped = int_col(st, 10);
    info->host_samples = sqlite3_column_int64(st, 11);
    info->bytecode_samples = sqlite3_column_int64(st, 12);
    return oom ? SQLITE_NOMEM : SQLITE_OK;
}

int rp_read_runs(const an_profile *p, rp_run_info *info, char *err, size_t cap)
{
    size_t nread = an_profile_nread(p);
    memset(info, 0, nread * sizeof *info);
    for (size_t r = 0; r < nread; r++) {
        const char *path = an_profile_member(p, r).db;
        if (!first_of_db(p, r))
            continue;
        sqlite3 *db;
        sqlite3_stmt *st;
        if (an_db_open_reading(path, &db, err, cap) != 0)
            return -1;
        int rc = sqlite3_prepare_v2(db, run_sql, -1, &st, NULL);
        if (rc != SQLITE_OK)
            return fail(db, path, "reading runs", rc, err, cap);
        for (size_t k = r; k < nread && rc == SQLITE_OK; k++)
            if (strcmp(an_profile_member(p, k).db, path) == 0)
                rc = read_run(st, an_profile_member(p, k).id, &info[k]);
        if (rc != SQLITE_OK) {
            sqlite3_finalize(st);
            if (rc == SQLITE_NOTFOUND) {
                snprintf(err, cap, "%s: a run disappeared while reading", path);
                sqlite3_close(db);
                return -1;
            }
            return fail(db, path, "reading runs", rc, err, cap);
        }
        sqlite3_finalize(st);
        sqlite3_close(db);
    }
    return 0;
}

void rp_free_runs(rp_run_info *info, size_t n)
{
    for (size_t r = 0; info && r < n; r++) {
        free(info[r].start_time);
        free(info[r].outcome);
        free(info[r].build_flags);
        free(info[r].host);
        free(info[r].command_line);
        free(info[r].collector);
    }
}

static int read_function_text(sqlite3_stmt *st, hc_func *h)
{
    const an_func *f = h->f;
    if (!(h->text = calloc(f->ninsns + 1, sizeof *h->text)))
        return SQLITE_NOMEM;
    int rc = sqlite3_reset(st);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 1, f->id);
    while ((rc == SQLITE_OK || rc == SQLITE_ROW) && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t off = sqlite3_column_int64(st, 0);
        long i = off >= 0 && off <= UINT32_MAX ? an_insn_at(f, (uint32_t)off) : -1;
        const unsigned char *t = sqlite3_column_text(st, 1);
        if (i < 0 || !t || h->text[i])
            continue;
        if (!(h->text[i] = strdup((const char *)t)))
            return SQLITE_NOMEM;
    }
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* The database function h was read from. */
static const char *db_of(const an_profile *p, const hc_func *h)
{
    return an_func_db(&p->runs[h->run], h->f);
}

int rp_read_text(const an_profile *p, hc_func *funcs, size_t n, char *err, size_t cap)
{
    for (size_t r = 0; r < n; r++) {
        const char *path = db_of(p, &funcs[r]);
        int seen = 0;
        for (size_t k = 0; k < r && !seen; k++)
            seen = strcmp(db_of(p, &funcs[k]), path) == 0;
        if (seen)
            continue;
        sqlite3 *db;
        sqlite3_stmt *st;
        if (an_db_open_reading(path, &db, err, cap) != 0)
            return -1;
        int rc = sqlite3_prepare_v2(db, "SELECT offset, text FROM instructions WHERE function_id = ?1",
                                    -1, &st, NULL);
        if (rc != SQLITE_OK)
            return fail(db, path, "reading instructions", rc, err, cap);
        for (size_t k = r; k < n && rc == SQLITE_OK; k++)
            if (!funcs[k].text && strcmp(db_of(p, &funcs[k]), path) == 0)
                rc = read_function_text(st, &funcs[k]);
        sqlite3_finalize(st);
        if (rc != SQLITE_OK)
            return fail(db, path, "reading instructions", rc, err, cap);
        sqlite3_close(db);
    }
    return 0;
}

const char *rp_insn_text(const an_profile *p, const hc_func *h, uint32_t i, char *buf, size_t cap)
{
    if (h->text && h->text[i])
        return h->text[i];
    const an_insn *in = &h->f->insns[i];
    size_t len = (size_t)snprintf(buf, cap, "%s", p->opnames[in->op]);
    for (unsigned k = 0; k < in->nregs && len < cap; k++) {
        const an_reg *r = &h->f->regs[in->reg[k]];
        len += (size_t)snprintf(buf + len, cap - len, "%s%s%" PRIu32, k ? ", " : " ",
                                p->kinds[r->kind], r->number);
    }
    if (len < cap && in->imm_kind != AN_IMM_NONE) {
        const char *sep = in->nregs ? ", " : " ";
        if (in->imm_kind == AN_IMM_REL)
            len += (size_t)snprintf(buf + len, cap - len, "%s%+" PRId64, sep, in->imm);
        else if (in->imm_kind == AN_IMM_TABLE)
            len += (size_t)snprintf(buf + len, cap - len, "%s[%" PRId64 " targets]", sep, in->imm);
        else
            len += (size_t)snprintf(buf + len, cap - len, "%s%" PRId64, sep, in->imm);
        if (in->nimms > 1 && len < cap) /* a macro op: the rest are in the stored text */
            snprintf(buf + len, cap - len, ", ...");
    }
    return buf;
}
