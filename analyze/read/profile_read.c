/*
 * profile_read.c - open a profile database for reading, check it is one,
 * and load the selected runs: functions decoded with the run's own opcode
 * table, split into blocks, with samples (pc_samples) or exact counts
 * (exec_counts) attached and block frequencies estimated; each run is
 * folded into its pool as soon as it is read (run_pool.h).
 */
#include "profile_read.h"

#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "blocks.h"
#include "db_open.h"
#include "insn_build.h"
#include "isa_table.h"
#include "profile_format.h"
#include "run_check.h"
#include "run_pool.h"

static int pragma_int(sqlite3 *db, const char *sql, int64_t *out)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : -1;
}

static char *dup_col(sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    return t ? strdup((const char *)t) : NULL;
}

typedef struct edge_ctx {
    an_func *f;
    size_t cap;
    int failed;
} edge_ctx;

static void add_edge(void *ctx, uint32_t target)
{
    edge_ctx *c = ctx;
    if (BASE_GROW(c->f->edges, c->cap, c->f->nedges + 1, 8) != 0) {
        c->failed = 1;
        return;
    }
    c->f->edges[c->f->nedges++] = (an_edge){c->f->ninsns, target};
}

/* Room for one more instruction in f (cap its capacity); 0 or -1. */
static int grow_insns(an_func *f, size_t *cap, size_t hint)
{
    return BASE_GROW(f->insns, *cap, f->ninsns + 1, hint + 4);
}

/* Decode code into f->insns (stopping at undecodable bytes) and split it;
 * *opaque counts the instructions whose registers cannot be named. */
static int decode_function(an_func *f, const an_isa *isa, const uint8_t *code, size_t size,
                           an_fbuild *b, uint64_t *opaque)
{
    size_t cap = 0;
    edge_ctx ec = {f, 0, 0};
    an_fbuild_start(b, f);
    for (size_t off = 0; off < size;) {
        if (grow_insns(f, &cap, size / 4) != 0)
            return -1;
        int rc = an_decode(isa, b, code, size, off, &f->insns[f->ninsns], add_edge, &ec);
        if (rc == -2)
            return -1;
        if (rc != 0)
            break; /* the rest is not code of this table: analyse what decoded */
        off += f->insns[f->ninsns].len;
        *opaque += f->insns[f->ninsns].opaque;
        f->ninsns++;
    }
    return ec.failed ? -1 : an_split_blocks(f);
}

static int cmp_func_id(const void *a, const void *b)
{
    int64_t x = ((const an_func *)a)->id, y = ((const an_func *)b)->id;
    return (x > y) - (x < y);
}

static an_func *find_func(an_run *run, int64_t id)
{
    an_func key = {.id = id};
    if (run->nfuncs == 0) /* funcs NULL: no bsearch over nothing */
        return NULL;
    return bsearch(&key, run->funcs, run->nfuncs, sizeof key, cmp_func_id);
}

/* The instructions of a run whose rows carry their operands (schema
 * version 6), built from those rows instead of decoding the code: the
 * analysis then needs nothing of the ISA's encoding.  0, 1 when a row is
 * not an instruction of its function (why says which), -1 on failure. */
static int load_rows(sqlite3 *db, an_run *run, const an_isa *isa, char *why, size_t cap)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db,
                                "SELECT i.function_id, i.offset, i.length, i.opcode, i.regs, i.imms,"
                                " i.targets, f.size FROM instructions i"
                                " JOIN functions f ON f.id = i.function_id"
                                " WHERE f.run_id = ?1 ORDER BY f.id, i.offset",
                                -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 1, run->id);
    an_func *f = NULL;
    size_t icap = 0;
    edge_ctx ec = {0};
    an_fbuild *b = malloc(sizeof *b);
    int result = b ? 0 : -1;
    while (result == 0 && (rc == SQLITE_OK || rc == SQLITE_ROW) &&
           (rc = sqlite3_step(st)) == SQLITE_ROW) {
        an_func *g = find_func(run, sqlite3_column_int64(st, 0));
        if (!g || g->copied)
            continue; /* added since the run was listed, or built already */
        if (g != f) {
            f = g;
            icap = 0;
            ec = (edge_ctx){f, 0, 0};
            an_fbuild_start(b, f);
        }
        int64_t off = sqlite3_column_int64(st, 1), len = sqlite3_column_int64(st, 2);
        int64_t size = sqlite3_column_int64(st, 7);
        int64_t end = f->ninsns ? (int64_t)f->insns[f->ninsns - 1].off + f->insns[f->ninsns - 1].len
                                : 0;
        const char *bad = NULL;
        int made = -1;
        /* Stored values may be anything: subtract (off >= 0 here), never
         * add, so that no sum overflows. */
        if (off != end || len <= 0 || size < off || len > size - off ||
            len > (int64_t)UINT32_MAX - off)
            bad = "it does not follow the instruction before it inside the code";
        else if (grow_insns(f, &icap, 16) != 0)
            result = -1;
        else if ((made = an_insn_from_row(isa, b, (uint32_t)off, len, sqlite3_column_int64(st, 3),
                                          (const char *)sqlite3_column_text(st, 4),
                                          (const char *)sqlite3_column_text(st, 5),
                                          (const char *)sqlite3_column_text(st, 6),
                                          &f->insns[f->ninsns], add_edge, &ec, &bad)) == 0)
            run->unanalysed += f->insns[f->ninsns++].opaque;
        if (ec.failed || made == -2)
            result = -1;
        if (bad) {
            snprintf(why, cap, "function %s: the instruction row at offset 0x%04" PRIx64 ": %s",
                     f->name, off, bad);
            result = 1;
        }
    }
    if (result == 0 && rc != SQLITE_DONE) {
        snprintf(why, cap, "reading instructions: %s", sqlite3_errmsg(db));
        result = -1;
    } else if (result == -1) {
        snprintf(why, cap, "out of memory");
    }
    sqlite3_finalize(st);
    free(b);
    for (size_t i = 0; result == 0 && i < run->nfuncs; i++)
        if (!run->funcs[i].copied && an_split_blocks(&run->funcs[i]) != 0) {
            snprintf(why, cap, "out of memory");
            result = -1;
        }
    return result;
}

/* The run's functions, decoded from their code with isa unless
 * `from_rows` (load_rows builds their instructions); *sizes (the caller
 * frees it) gets each one's code bytes.  A function whose code, checksum,
 * name and opcode table are those of one read before is copied from it
 * (run_pool.h): an_check_run still checks its rows and checksum. */
static int load_functions(sqlite3 *db, an_profile *p, an_run *run, const an_isa *isa,
                          int from_rows, int version, int64_t **sizes, char *why,
                          size_t why_cap)
{
    sqlite3_stmt *st;
    uint64_t fp = an_isa_fingerprint(isa);
    int rc = sqlite3_prepare_v2(db,
                                version >= 4
                                    ? "SELECT id, name, code, checksum FROM functions WHERE run_id = ?1 ORDER BY id"
                                    : "SELECT id, name, code, NULL FROM functions WHERE run_id = ?1 ORDER BY id",
                                -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 1, run->id);
    size_t cap = 0, scap = 0;
    an_fbuild *b = from_rows ? NULL : malloc(sizeof *b);
    if (!from_rows && !b)
        rc = SQLITE_NOMEM;
    while ((rc == SQLITE_OK || rc == SQLITE_ROW) && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (BASE_GROW(run->funcs, cap, run->nfuncs + 1, 16) != 0 ||
            BASE_GROW(*sizes, scap, run->nfuncs + 1, 16) != 0) {
            rc = SQLITE_NOMEM;
            break;
        }
        an_func *f = &run->funcs[run->nfuncs++];
        memset(f, 0, sizeof *f);
        f->id = sqlite3_column_int64(st, 0);
        /* A NULL name was refused before (an_check_run_rows): NULL here
         * is out of memory. */
        f->name = dup_col(st, 1);
        f->serial = p->nfuncs++;
        const uint8_t *code = sqlite3_column_blob(st, 2);
        size_t size = (size_t)sqlite3_column_bytes(st, 2);
        (*sizes)[run->nfuncs - 1] = (int64_t)size;
        an_code_key_set(&f->key, code, size, fp, sqlite3_column_type(st, 3) == SQLITE_INTEGER,
                        sqlite3_column_int64(st, 3), from_rows);
        const an_func *built = an_pool_find_code(p, &f->key, f->name);
        if (!f->name || (built && an_func_copy_built(f, built, &run->unanalysed) != 0) ||
            (size && !built && !from_rows &&
             decode_function(f, isa, code, size, b, &run->unanalysed) != 0)) {
            rc = SQLITE_NOMEM;
            break;
        }
    }
    free(b);
    if (rc != SQLITE_DONE)
        snprintf(why, why_cap, "reading functions: %s",
                 rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* What is wrong with a row's integer column `col` (NULL:
 * nothing): it must be an integer, and not negative. */
static const char *bad_integer(sqlite3_stmt *st, int col)
{
    switch (sqlite3_column_type(st, col)) {
    case SQLITE_INTEGER: return sqlite3_column_int64(st, col) < 0 ? "is negative" : NULL;
    case SQLITE_NULL: return "is NULL";
    case SQLITE_FLOAT: return "is not an integer (a real number)";
    case SQLITE_TEXT: return "is not an integer (text)";
    default: return "is not an integer (a blob)";
    }
}

/* Add each row's value to the count of the instruction it names, as the
 * rows come: nothing is kept per row.  exec_counts is reached through the
 * run's functions (its key is the function, and it has no index on
 * run_id); pc_samples through its run_id index.  Every row must name a
 * function of the run (sizes[i]: run->funcs[i]'s code bytes) and an
 * offset inside its code, with a value that is a non-negative integer,
 * and the run's values must add up to at most INT64_MAX.  Returns 0, 1
 * when a row is damaged (why names it and says what is wrong), -1 on
 * SQLite's error, -2 when out of memory. */
static int attach(sqlite3 *db, an_run *run, const int64_t *sizes, char *why, size_t cap)
{
    const char *table = run->exact ? "exec_counts" : "pc_samples";
    const char *value = run->exact ? "count" : "samples";
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db,
                                run->exact ? "SELECT c.function_id, c.offset, c.count, c.run_id"
                                             " FROM functions f CROSS JOIN exec_counts c"
                                             " ON c.function_id = f.id WHERE f.run_id = ?1"
                                           : "SELECT function_id, offset, samples, run_id"
                                             " FROM pc_samples WHERE run_id = ?1"
                                             " AND function_id IS NOT NULL",
                                -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 1, run->id);
    an_func *f = NULL;
    int64_t total = 0;
    int damaged = 0;
    while (!damaged && (rc == SQLITE_OK || rc == SQLITE_ROW) && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t fid = sqlite3_column_int64(st, 0);
        if (!f || f->id != fid)
            f = find_func(run, fid);
        int64_t off = sqlite3_column_int64(st, 1), v = sqlite3_column_int64(st, 2);
        int64_t row_run = sqlite3_column_int64(st, 3);
        const char *off_bad = bad_integer(st, 1), *v_bad = bad_integer(st, 2);
        char what[160];
        damaged = 1;
        if (sqlite3_column_type(st, 0) != SQLITE_INTEGER)
            snprintf(what, sizeof what, "function_id is not an integer");
        else if (!f)
            snprintf(what, sizeof what, "function_id %" PRId64 " is not a function of run %" PRId64,
                     fid, run->id);
        else if (row_run != run->id)
            snprintf(what, sizeof what, "its run_id is %" PRId64 ", not %" PRId64 ", the run of its function",
                     row_run, run->id);
        else if (off_bad)
            snprintf(what, sizeof what, "offset %s", off_bad);
        else if (off >= sizes[f - run->funcs])
            snprintf(what, sizeof what, "offset is past the end of function %s (%" PRId64 " bytes)",
                     f->name, sizes[f - run->funcs]);
        else if (v_bad)
            snprintf(what, sizeof what, "%s %s", value, v_bad);
        else if (v > INT64_MAX - total)
            snprintf(what, sizeof what, "the run's %s add up past %" PRId64,
                     run->exact ? "counts" : "samples", INT64_MAX);
        else
            damaged = 0;
        if (damaged) {
            /* which row: its function and offset as stored */
            int t = sqlite3_column_type(st, 1);
            char o[32];
            snprintf(o, sizeof o, "%" PRId64, off);
            snprintf(why, cap, "%s row (function_id %" PRId64 ", offset %s): %s", table, fid,
                     t == SQLITE_INTEGER ? o : t == SQLITE_NULL ? "NULL" : "not an integer", what);
            break;
        }
        total += v;
        /* An interpreter may record an address inside the instruction
         * it runs (CPython's caller frames keep the last unit of their
         * CALL): it counts for that instruction. */
        long i = an_insn_containing(f, (uint32_t)off);
        if (i >= 0)
            f->insns[i].count += (double)v;
    }
    if (!damaged && rc != SQLITE_DONE)
        snprintf(why, cap, "%s", rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return damaged ? 1 : rc == SQLITE_DONE ? 0 : rc == SQLITE_NOMEM ? -2 : -1;
}

/* run->opcost from the costs stored with its opcode table (none: NULL). */
static int run_costs(an_run *run, const an_profile *p, const an_isa *isa)
{
    size_t known = 0;
    for (size_t i = 0; i < isa->rows.n; i++)
        known += isa->ops[i].cost > 0;
    if (!known)
        return 0;
    if (!(run->opcost = calloc(p->nops, sizeof *run->opcost)))
        return -1;
    run->nopcost = p->nops;
    for (size_t i = 0; i < isa->rows.n; i++)
        run->opcost[isa->ops[i].gop] = isa->ops[i].cost;
    return 0;
}

/* Load run's functions and counts and check them (run_check.h).  0, 1
 * when damaged (err says where), -1 on failure (err says why). */
static int load_run(sqlite3 *db, an_profile *p, an_run *run, int version, char *err, size_t cap)
{
    an_isa isa;
    int64_t *sizes = NULL;
    int loaded = an_isa_load(db, run->id, p, &isa, err, cap);
    if (loaded != 0)
        return loaded;
    int rc = load_functions(db, p, run, &isa, run->operands_stored, version, &sizes, err, cap);
    if (rc != 0) {
        an_isa_free(&isa);
        free(sizes);
        return rc;
    }
    int to_build = 0; /* functions not copied from one read before */
    for (size_t i = 0; i < run->nfuncs && !to_build; i++)
        to_build = !run->funcs[i].copied;
    if (run->operands_stored && to_build)
        rc = load_rows(db, run, &isa, err, cap);
    if (rc == 0 && run_costs(run, p, &isa) != 0) {
        snprintf(err, cap, "out of memory");
        rc = -1;
    }
    if (rc == 0)
        rc = an_check_run(db, run, &isa, version >= 4, run->operands_stored, err, cap);
    an_isa_free(&isa);
    /* Rows naming one instruction add up in attach() (no GROUP BY, which
     * would sort every row first). */
    if (rc == 0)
        rc = attach(db, run, sizes, err, cap);
    free(sizes);
    return rc == 1 || rc == 0 ? rc : -1;
}

/* Why a run is not one to analyse by default, from its row (NULL: it
 * finished and holds data). */
static const char *unfinished(sqlite3_stmt *st, char *buf, size_t cap)
{
    const char *outcome = (const char *)sqlite3_column_text(st, 4);
    int exact = sqlite3_column_int(st, 3);
    if (!outcome)
        return sqlite3_column_type(st, 10) == SQLITE_NULL
                   ? "it did not finish (killed, or still running)"
                   : "it has no recorded outcome (it ended without one)";
    if (strncmp(outcome, "incomplete", 10) == 0 || strcmp(outcome, "not run") == 0 ||
        strncmp(outcome, "collector failed", 16) == 0) {
        snprintf(buf, cap, "%s", outcome);
        return buf;
    }
    if (exact && !sqlite3_column_int(st, 6))
        return "it has no exact counts";
    if (!exact && sqlite3_column_int64(st, 5) <= 0)
        return "it has no samples";
    return NULL;
}

/* Whether run `runs.id` has exact counts, through its functions:
 * exec_counts has no index on run_id, and scanning it for every run took
 * most of the time of reading a large collection. */
#define HAS_COUNTS                                                                                 \
    "SELECT 1 FROM functions f CROSS JOIN exec_counts c ON c.function_id = f.id"                   \
    " WHERE f.run_id = runs.id"

/* The runs rows in the columns read_runs takes, for schema `version`. */
static const char *runs_query(int version)
{
    return version >= 8 ? "SELECT id, label, benchmark, exact, outcome, samples_written,"
                          " EXISTS (" HAS_COUNTS "),"
                          " operands_stored, isa_name, dispatch_cost, end_time FROM runs ORDER BY id"
           : version >= 6 ? "SELECT id, label, benchmark, exact, outcome, samples_written,"
                            " EXISTS (" HAS_COUNTS "),"
                            " operands_stored, isa_name, NULL, end_time FROM runs ORDER BY id"
                          : "SELECT id, label, benchmark, exact, outcome, samples_written,"
                            " EXISTS (" HAS_COUNTS "),"
                            " 0, isa_name, NULL, end_time FROM runs ORDER BY id";
}

/* A new run at the end of p->runs (not yet counted in p->nruns) from the
 * row at st; NULL when out of memory. */
static an_run *new_run(an_profile *p, sqlite3_stmt *st, const an_run_facts *facts)
{
    an_run *runs = realloc(p->runs, (p->nruns + 1) * sizeof *runs);
    if (!runs)
        return NULL;
    p->runs = runs;
    an_run *run = &runs[p->nruns];
    memset(run, 0, sizeof *run);
    run->id = facts->id;
    run->db = strdup(facts->db);
    run->label = dup_col(st, 1);
    run->benchmark = dup_col(st, 2);
    run->isa = dup_col(st, 8);
    run->exact = facts->exact;
    run->operands_stored = sqlite3_column_int(st, 7) != 0;
    run->dispatch_cost = sqlite3_column_double(st, 9);
    if (!run->db || !run->isa) {
        an_run_free(run);
        return NULL;
    }
    return run;
}

/* What is wrong with the runs row at st (NULL: nothing the selection and
 * reading rely on): exact must be 0 or 1, samples_written NULL or a
 * non-negative integer. */
static const char *bad_run_row(sqlite3_stmt *st)
{
    if (sqlite3_column_type(st, 3) != SQLITE_INTEGER || (uint64_t)sqlite3_column_int64(st, 3) > 1)
        return "runs.exact is neither 0 nor 1";
    if (sqlite3_column_type(st, 5) != SQLITE_NULL && bad_integer(st, 5))
        return "runs.samples_written is no non-negative integer";
    return NULL;
}

static int read_runs(sqlite3 *db, an_profile *p, const char *path, an_runsel *sel, int version,
                     char *err, size_t cap)
{
    sqlite3_stmt *st;
    int added = 0;
    char why[512];
    int rc = sqlite3_prepare_v2(db, runs_query(version), -1, &st, NULL);
    while ((rc == SQLITE_OK || rc == SQLITE_ROW) && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        /* A damaged row is read (and refused) as a finished run's. */
        const char *bad = bad_run_row(st);
        an_run_facts facts = {path, id, (const char *)sqlite3_column_text(st, 1),
                              sqlite3_column_int(st, 3) != 0,
                              bad ? NULL : unfinished(st, why, sizeof why)};
        int m = an_runsel_match(sel, &facts);
        if (m == AN_RUN_SKIPPED && an_profile_skip(p, path, id, facts.unfinished) != 0) {
            rc = SQLITE_NOMEM;
            break;
        }
        if (m != AN_RUN_SELECTED)
            continue;
        an_run *run = new_run(p, st, &facts);
        if (!run) {
            rc = SQLITE_NOMEM;
            break;
        }
        int loaded = 1;
        if (bad)
            snprintf(why, sizeof why, "%s", bad);
        else if (sqlite3_column_type(st, 9) != SQLITE_NULL &&
            (sqlite3_column_type(st, 9) == SQLITE_TEXT ||
             !(run->dispatch_cost > 0 && run->dispatch_cost <= 1e9)))
            snprintf(why, sizeof why, "runs.dispatch_cost is no positive number");
        else if ((loaded = an_isa_check(db, id, run->operands_stored, why, sizeof why)) == 0 &&
                 (loaded = an_check_run_rows(db, id, run->exact, why, sizeof why)) == 0)
            loaded = load_run(db, p, run, (int)version, why, sizeof why);
        int b = loaded == 0 ? an_profile_intern_bench(p, run->benchmark) : 0;
        if (loaded == 0 && b >= 0) {
            /* Estimated and folded into its pool now: only the pools
             * stay (run_pool.h). */
            run->bench = (uint32_t)b;
            if (an_pool_run(p, run) != 0) {
                snprintf(err, cap, "run %" PRId64 ": out of memory", id);
                sqlite3_finalize(st);
                return -1;
            }
            added++;
            continue;
        }
        an_run_free(run);
        if (loaded == 1 && sel->skip_damaged) {
            char note[640];
            snprintf(note, sizeof note, "it is damaged: %s", why);
            if (an_profile_skip(p, path, id, note) == 0)
                continue;
        }
        if (loaded == 1)
            snprintf(err, cap, "run %" PRId64 " is damaged: %s (--skip-damaged leaves such runs out)",
                     id, why);
        else
            snprintf(err, cap, "run %" PRId64 ": %s", id, b < 0 ? "out of memory" : why);
        sqlite3_finalize(st);
        return -1;
    }
    if (rc != SQLITE_DONE) {
        snprintf(err, cap, "reading runs: %s", rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(db));
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    return added;
}

int an_profile_read(an_profile *p, const char *path, an_runsel *sel, char *err, size_t cap)
{
    sqlite3 *db = NULL;
    char msg[1024] = "";
    int64_t app = 0, version = 0;
    int added = -1;
    if (an_db_open_reading(path, &db, err, cap) != 0)
        return -1;
    if (pragma_int(db, "PRAGMA application_id", &app) != 0) {
        snprintf(msg, sizeof msg, "%s: %s",
                 sqlite3_errcode(db) == SQLITE_NOTADB ? "not a database" : "cannot read",
                 sqlite3_errmsg(db));
    } else if (app != PVMP_APPLICATION_ID) {
        snprintf(msg, sizeof msg, "not a profile database (application_id %" PRId64 ")", app);
    } else if (pragma_int(db, "PRAGMA user_version", &version) != 0 || version < 1) {
        snprintf(msg, sizeof msg, "profile database without a schema version");
    } else if (version > PVMP_SCHEMA_VERSION) {
        snprintf(msg, sizeof msg,
                 "profile schema version %" PRId64 " is newer than the newest these tools"
                 " understand (%d): read it with the tools that wrote it, or newer ones",
                 version, PVMP_SCHEMA_VERSION);
    } else {
        added = read_runs(db, p, path, sel, (int)version, msg, sizeof msg);
    }
    if (added < 0)
        snprintf(err, cap, "%s: %s", path, msg);
    if (db && sqlite3_close(db) != SQLITE_OK && added >= 0) {
        snprintf(err, cap, "%s: closing: %s", path, sqlite3_errmsg(db));
        added = -1;
    }
    return added;
}

/* Every run of p of the first run's instruction set (by the name its
 * runs row gives); else -1 with err naming two runs that differ.  Opcodes
 * of different sets would meet by name in one ranking: identical
 * mnemonics merge, and proposals mix what no interpreter runs. */
static int one_isa(const an_profile *p, char *err, size_t cap)
{
    for (size_t i = 1; i < p->nruns; i++) {
        const an_run *a = &p->runs[0], *b = &p->runs[i];
        if (strcmp(a->isa, b->isa) != 0) {
            snprintf(err, cap,
                     "run %" PRId64 " of %s is of instruction set '%s' and run %" PRId64
                     " of %s of '%s': their opcodes would be mined together by name "
                     "(--mix-isas reads them anyway; --runs picks one set)",
                     a->id, a->db, a->isa, b->id, b->db, b->isa);
            return -1;
        }
    }
    return 0;
}

int an_profile_read_all(an_profile *p, char *const *paths, int n, an_runsel *sel, char *err,
                        size_t cap)
{
    if (an_runsel_check_dbs(sel, n, err, cap) != 0)
        return -1;
    int added = 0;
    for (int i = 0; i < n; i++) {
        int twice = 0;
        for (int j = 0; j < i && !twice; j++)
            twice = an_same_file(paths[j], paths[i]);
        if (twice) {
            if (an_profile_skip(p, paths[i], 0, "the same database is given twice: read once") != 0) {
                snprintf(err, cap, "out of memory");
                return -1;
            }
            continue;
        }
        int k = an_profile_read(p, paths[i], sel, err, cap);
        if (k < 0)
            return -1;
        added += k;
    }
    if (an_runsel_check_matched(sel, err, cap) != 0)
        return -1;
    return sel->mix_isas || one_isa(p, err, cap) == 0 ? added : -1;
}

void an_print_skipped(FILE *out, const char *tool, const an_profile *p)
{
    for (size_t i = 0; i < p->nskipped; i++) {
        const an_skip *s = &p->skipped[i];
        if (s->id)
            fprintf(out, "%s: left out run %" PRId64 " of %s: %s\n", tool, s->id, s->db, s->why);
        else
            fprintf(out, "%s: %s: %s\n", tool, s->db, s->why);
    }
    size_t n = an_profile_nread(p);
    for (size_t i = 0; i < n; i++) {
        an_member k = p->nmembers ? p->members[i] : (an_member){.db = p->runs[i].db, .id = p->runs[i].id,
                                                     .unanalysed = p->runs[i].unanalysed};
        if (k.unanalysed)
            fprintf(out,
                    "%s: note: run %" PRId64 " of %s: %" PRIu64 " instructions name registers"
                    " the analysis cannot (their kinds are not in the opcode table, or their"
                    " function names more than %d registers): it takes them to read every"
                    " register, and fuses none of them\n",
                    tool, k.id, k.db, k.unanalysed, AN_FUNC_REGS);
    }
}
