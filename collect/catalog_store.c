/*
 * catalog_store.c - a run's modules, functions and instruction rows (see
 * catalog_store.h).  Instruction rows go in statements of many rows each,
 * their text bound where it lies in the decoded rows: the cost of a run
 * that registers many small functions is these inserts.
 */
#include "catalog_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pp__catalog_finish(run_catalog *c)
{
    sqlite3_finalize(c->insert_function); /* errors were reported by their steps */
    sqlite3_finalize(c->insert_row);
    sqlite3_finalize(c->insert_rows);
    c->insert_function = c->insert_row = c->insert_rows = NULL;
}

void pp__run_catalog_free(run_catalog *c)
{
    pp__catalog_finish(c);
    free(c->module_ids);
    free(c->func_ids);
    *c = (run_catalog){0};
}

/* Room for nmods module ids and nfuncs function ids (never less than c
 * holds). */
static int reserve(run_catalog *c, size_t nmods, size_t nfuncs, char *err, size_t errcap)
{
    nmods = nmods > c->nmodules ? nmods : c->nmodules;
    nfuncs = nfuncs > c->nfuncs ? nfuncs : c->nfuncs;
    int64_t *m = realloc(c->module_ids, (nmods + 1) * sizeof *m);
    if (m)
        c->module_ids = m;
    int64_t *f = m ? realloc(c->func_ids, (nfuncs + 1) * sizeof *f) : NULL;
    if (f)
        c->func_ids = f;
    if (!m || !f) {
        snprintf(err, errcap, "out of memory writing the functions");
        return -1;
    }
    return 0;
}

/* s stays where it is until the statement has run. */
static int bind_static_text(sqlite3_stmt *st, int i, const char *s)
{
    return sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
}

static int insert_modules(profile_db *p, int64_t run, const reg_module *mods, size_t from,
                          size_t to, int64_t *ids, char *err, size_t errcap)
{
    if (from >= to)
        return 0;
    sqlite3_stmt *st;
    if (pp__pdb_prepare(p, "INSERT INTO modules (run_id, name) VALUES (?,?)", &st, err, errcap) != 0)
        return -1;
    int rc = 0;
    for (size_t i = from; rc == 0 && i < to; i++) {
        int b = sqlite3_bind_int64(st, 1, run);
        b = b ? b : bind_static_text(st, 2, mods[i].name);
        rc = pp__pdb_run(p, st, b, err, errcap);
        ids[i] = sqlite3_last_insert_rowid(p->db);
    }
    return pp__pdb_finalize(p, st, err, errcap) || rc ? -1 : 0;
}

static int insert_functions(profile_db *p, int64_t run, const reg_function *funcs, size_t n,
                            run_catalog *c, char *err, size_t errcap)
{
    if (!c->insert_function &&
        pp__pdb_prepare(p,
                        "INSERT INTO functions (run_id, module_id, idx, name, address, size, code,"
                        " checksum) VALUES (?,?,?,?,?,?,?,?)",
                        &c->insert_function, err, errcap) != 0)
        return -1;
    sqlite3_stmt *st = c->insert_function;
    const int64_t *module_ids = c->module_ids;
    int64_t *ids = c->func_ids + c->nfuncs;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const reg_function *f = &funcs[i];
        int b = sqlite3_bind_int64(st, 1, run);
        b = b ? b : sqlite3_bind_int64(st, 2, module_ids[f->module]);
        b = b ? b : sqlite3_bind_int64(st, 3, f->index);
        b = b ? b : bind_static_text(st, 4, f->name);
        b = b ? b : sqlite3_bind_int64(st, 5, (sqlite3_int64)f->stored);
        b = b ? b : sqlite3_bind_int64(st, 6, (sqlite3_int64)f->size);
        b = b ? b : sqlite3_bind_blob64(st, 7, f->code, f->size, SQLITE_STATIC);
        b = b ? b : sqlite3_bind_int64(st, 8, (sqlite3_int64)f->rows.checksum);
        rc = pp__pdb_run_rebound(p, st, b, err, errcap);
        ids[i] = sqlite3_last_insert_rowid(p->db);
    }
    return rc;
}

/* Instruction rows, ROWS_PER_INSERT to a statement (the rest one by one). */
enum { ROWS_PER_INSERT = 32, INSN_COLUMNS = 8 };

typedef struct row_batch {
    sqlite3_stmt *many, *one;
    struct {
        int64_t function_id;
        func_row row;
    } rows[ROWS_PER_INSERT];
    int n;
} row_batch;

static int bind_row(sqlite3_stmt *st, int first, int64_t id, const func_row *r)
{
    int b = sqlite3_bind_int64(st, first, id);
    b = b ? b : sqlite3_bind_int64(st, first + 1, r->offset);
    b = b ? b : sqlite3_bind_int64(st, first + 2, r->length);
    b = b ? b : sqlite3_bind_int64(st, first + 3, r->opcode);
    b = b ? b : bind_static_text(st, first + 4, r->text);
    b = b ? b : bind_static_text(st, first + 5, r->regs);
    b = b ? b : bind_static_text(st, first + 6, r->imms);
    return b ? b : bind_static_text(st, first + 7, r->targets);
}

/* Insert the rows held: all in one statement when it is full, else one
 * statement each. */
static int flush_rows(profile_db *p, row_batch *rb, char *err, size_t errcap)
{
    int rc = 0;
    if (rb->n == ROWS_PER_INSERT) {
        int b = SQLITE_OK;
        for (int i = 0; b == SQLITE_OK && i < rb->n; i++)
            b = bind_row(rb->many, i * INSN_COLUMNS + 1, rb->rows[i].function_id, &rb->rows[i].row);
        rc = pp__pdb_run_rebound(p, rb->many, b, err, errcap);
    } else {
        for (int i = 0; rc == 0 && i < rb->n; i++)
            rc = pp__pdb_run_rebound(p, rb->one,
                                     bind_row(rb->one, 1, rb->rows[i].function_id, &rb->rows[i].row),
                                     err, errcap);
    }
    rb->n = 0;
    return rc;
}

/* The two statements of instruction rows in c, prepared once. */
static int prepare_rows(profile_db *p, run_catalog *c, size_t n_rows, row_batch *rb, char *err,
                        size_t errcap)
{
    static const char head[] = "INSERT INTO instructions (function_id, offset, length, opcode,"
                               " text, regs, imms, targets) VALUES ";
    static const char values[] = "(?,?,?,?,?,?,?,?)";
    char sql[sizeof head + ROWS_PER_INSERT * sizeof values];
    size_t len = (size_t)snprintf(sql, sizeof sql, "%s%s", head, values);
    if (!c->insert_row && pp__pdb_prepare(p, sql, &c->insert_row, err, errcap) != 0)
        return -1;
    for (int i = 1; i < ROWS_PER_INSERT; i++)
        len += (size_t)snprintf(sql + len, sizeof sql - len, ",%s", values);
    /* The long one only where there are that many rows (its parsing costs
     * as much as a few hundred rows' inserts). */
    if (!c->insert_rows && n_rows >= ROWS_PER_INSERT &&
        pp__pdb_prepare(p, sql, &c->insert_rows, err, errcap) != 0)
        return -1;
    rb->n = 0;
    rb->one = c->insert_row;
    rb->many = c->insert_rows;
    return 0;
}

static int insert_instructions(profile_db *p, const reg_function *funcs, size_t n, run_catalog *c,
                               uint64_t *cut_short, char *err, size_t errcap)
{
    row_batch rb;
    size_t n_rows = 0;
    for (size_t i = 0; i < n; i++)
        n_rows += funcs[i].rows.nrows;
    if (prepare_rows(p, c, n_rows, &rb, err, errcap) != 0)
        return -1;
    const int64_t *ids = c->func_ids + c->nfuncs;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        *cut_short += funcs[i].rows.cut_short;
        size_t pos = 0;
        while (rc == 0 && pp__func_rows_next(&funcs[i].rows, &pos, &rb.rows[rb.n].row)) {
            rb.rows[rb.n++].function_id = ids[i];
            if (rb.n == ROWS_PER_INSERT)
                rc = flush_rows(p, &rb, err, errcap);
        }
    }
    return rc == 0 ? flush_rows(p, &rb, err, errcap) : -1;
}

int pp__catalog_write(profile_db *p, int64_t run, const reg_module *mods, size_t nmods,
                      const reg_function *funcs, size_t n, run_catalog *c, uint64_t *cut_short,
                      char *err, size_t errcap)
{
    *cut_short = 0;
    size_t m0 = c->nmodules < nmods ? c->nmodules : nmods;
    return reserve(c, nmods, c->nfuncs + n, err, errcap) ||
                   insert_modules(p, run, mods, m0, nmods, c->module_ids, err, errcap) ||
                   insert_functions(p, run, funcs, n, c, err, errcap) ||
                   insert_instructions(p, funcs, n, c, cut_short, err, errcap)
               ? -1
               : 0;
}

void pp__catalog_written(run_catalog *c, size_t nmods, size_t n, uint64_t cut_short)
{
    c->cut_short += cut_short;
    if (nmods > c->nmodules)
        c->nmodules = nmods;
    c->nfuncs += n;
}
