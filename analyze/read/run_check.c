/*
 * run_check.c - checking a run's functions against their stored
 * instruction rows and checksums (see run_check.h).
 */
#include "run_check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "blocks.h"

#include "func_checksum.h"

static const an_func *find(const an_run *run, int64_t id)
{
    size_t lo = 0, hi = run->nfuncs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (run->funcs[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < run->nfuncs && run->funcs[lo].id == id ? &run->funcs[lo] : NULL;
}

/* The global opcodes of stored opcodes below MEMO_OPS, looked up once. */
enum { MEMO_OPS = 512 };
typedef struct op_memo {
    int32_t gop[MEMO_OPS]; /* -2: not looked up yet */
} op_memo;

/* The global opcode of stored opcode `id`, or -1. */
static long global_op(const an_isa *isa, op_memo *m, int64_t id)
{
    if (id < 0 || id > UINT32_MAX)
        return -1;
    if (id < MEMO_OPS && m->gop[id] != -2)
        return m->gop[id];
    const ot_opcode *op = ot_table_find(&isa->rows, (uint32_t)id);
    long g = op ? isa->ops[op - isa->rows.ops].gop : -1;
    if (id < MEMO_OPS)
        m->gop[id] = (int32_t)g;
    return g;
}

/* Fold function f's rows at the cursor (the run's rows by function and
 * offset) into its checksum h, stepping past them; 1 with why when a row
 * is not the instruction f's code decodes to at its offset. */
static int check_rows(sqlite3_stmt *rows, int *more, const an_func *f, const an_isa *isa,
                      op_memo *memo, int operands_stored, uint64_t *h, char *why, size_t cap)
{
    long i = -1;
    while (*more == SQLITE_ROW && sqlite3_column_int64(rows, 0) == f->id) {
        int64_t off = sqlite3_column_int64(rows, 1), len = sqlite3_column_int64(rows, 2);
        int64_t op = sqlite3_column_int64(rows, 3);
        /* Rows come by offset: most often the instruction after the last. */
        if (i + 1 < (long)f->ninsns && f->insns[i + 1].off == off)
            i++;
        else
            i = off >= 0 && off <= UINT32_MAX ? an_insn_at(f, (uint32_t)off) : -1;
        const an_insn *in = i >= 0 ? &f->insns[i] : NULL;
        if (!in || in->off != off || in->len != len || global_op(isa, memo, op) != in->op) {
            snprintf(why, cap,
                     "function %s: the instruction row at offset 0x%04" PRIx64
                     " is not what its code decodes to",
                     f->name, off);
            return 1;
        }
        *h = pvm_checksum_row(*h, off, len, op, (const char *)sqlite3_column_text(rows, 4));
        if (operands_stored)
            *h = pvm_checksum_operands(*h, (const char *)sqlite3_column_text(rows, 5),
                                       (const char *)sqlite3_column_text(rows, 6),
                                       (const char *)sqlite3_column_text(rows, 7));
        *more = sqlite3_step(rows);
    }
    return 0;
}

/* The instruction rows of run ?1, by function and offset: ordered by f.id,
 * which the functions_run index gives, so that SQLite sorts nothing. */
#define RUN_ROWS                                                                                   \
    " FROM instructions i JOIN functions f ON f.id = i.function_id"                                \
    " WHERE f.run_id = ?1 ORDER BY f.id, i.offset"

int an_check_run(sqlite3 *db, const an_run *run, const an_isa *isa, int has_checksum,
                 int operands_stored, char *why, size_t cap)
{
    sqlite3_stmt *funcs = NULL, *rows = NULL;
    int rc = sqlite3_prepare_v2(db,
                                has_checksum
                                    ? "SELECT id, code, checksum FROM functions WHERE run_id = ?1"
                                      " ORDER BY id"
                                    : "SELECT id, code, NULL FROM functions WHERE run_id = ?1"
                                      " ORDER BY id",
                                -1, &funcs, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db,
                                operands_stored
                                    ? "SELECT i.function_id, i.offset, i.length, i.opcode, i.text,"
                                      " i.regs, i.imms, i.targets" RUN_ROWS
                                    : "SELECT i.function_id, i.offset, i.length, i.opcode, i.text"
                                      RUN_ROWS,
                                -1, &rows, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(funcs, 1, run->id);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(rows, 1, run->id);
    op_memo *memo = malloc(sizeof *memo);
    if (memo)
        for (size_t k = 0; k < MEMO_OPS; k++)
            memo->gop[k] = -2;
    int result = rc == SQLITE_OK && memo ? 0 : -1;
    if (result != 0)
        snprintf(why, cap, "checking the functions: %s", memo ? sqlite3_errmsg(db) : "out of memory");
    int more = rc == SQLITE_OK ? sqlite3_step(rows) : rc;
    while (result == 0 && (rc = sqlite3_step(funcs)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(funcs, 0);
        const an_func *f = find(run, id);
        if (!f)
            continue; /* added since the run was loaded: not analysed */
        /* Rows of functions before this one have no function: skip them. */
        while (more == SQLITE_ROW && sqlite3_column_int64(rows, 0) < id)
            more = sqlite3_step(rows);
        uint64_t h = pvm_checksum_bytes(PVM_CHECKSUM_START, sqlite3_column_blob(funcs, 1),
                                        (size_t)sqlite3_column_bytes(funcs, 1));
        result = check_rows(rows, &more, f, isa, memo, operands_stored, &h, why, cap);
        if (result == 0 && sqlite3_column_type(funcs, 2) != SQLITE_NULL &&
            (uint64_t)sqlite3_column_int64(funcs, 2) != h) {
            snprintf(why, cap,
                     "function %s: its code or instruction rows changed since they were written"
                     " (checksum mismatch)",
                     f->name);
            result = 1;
        }
    }
    if (result == 0 && (rc != SQLITE_DONE || (more != SQLITE_ROW && more != SQLITE_DONE))) {
        snprintf(why, cap, "checking the functions: %s", sqlite3_errmsg(db));
        result = -1;
    }
    sqlite3_finalize(funcs);
    sqlite3_finalize(rows);
    free(memo);
    return result;
}

/* The first row of `sql` (?1: the run), or SQLITE_DONE; *st is left
 * stepped on it.  Other results: SQLite's error. */
static int first_row(sqlite3 *db, const char *sql, int64_t run, sqlite3_stmt **st)
{
    int rc = sqlite3_prepare_v2(db, sql, -1, st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(*st, 1, run);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(*st);
    return rc;
}

int an_check_run_rows(sqlite3 *db, int64_t run, int exact, char *why, size_t cap)
{
    /* typeof() and IS NULL look at the record's header, not the code. */
    static const char *const functions_sql =
        "SELECT id, name IS NULL, typeof(code), name FROM functions"
        " WHERE run_id = ?1 AND (name IS NULL OR typeof(code) != 'blob') ORDER BY id LIMIT 1";
    /* By the key (function_id, offset): ids past either end of the
     * functions' ids, without a scan of the table. */
    static const char *const dangling_sql =
        "SELECT function_id, offset, run_id FROM exec_counts WHERE function_id >"
        " coalesce((SELECT max(id) FROM functions), -9223372036854775807 - 1) AND run_id = ?1"
        " UNION ALL SELECT function_id, offset, run_id FROM exec_counts WHERE function_id <"
        " (SELECT min(id) FROM functions) AND run_id = ?1 LIMIT 1";
    /* A run without counts: any row on its functions is stray. */
    static const char *const stray_sql =
        "SELECT c.function_id, c.offset, c.run_id FROM functions f"
        " CROSS JOIN exec_counts c ON c.function_id = f.id WHERE f.run_id = ?1 LIMIT 1";
    sqlite3_stmt *st = NULL;
    int rc = first_row(db, functions_sql, run, &st);
    if (rc == SQLITE_ROW) {
        if (sqlite3_column_int(st, 1))
            snprintf(why, cap, "functions row %" PRId64 ": its name is NULL",
                     (int64_t)sqlite3_column_int64(st, 0));
        else
            snprintf(why, cap, "function %s (functions row %" PRId64 "): its code is %s, not a blob",
                     (const char *)sqlite3_column_text(st, 3), (int64_t)sqlite3_column_int64(st, 0),
                     (const char *)sqlite3_column_text(st, 2));
        sqlite3_finalize(st);
        return 1;
    }
    for (int q = 0; q < 2 && rc == SQLITE_DONE; q++) {
        if (q == 1 && exact)
            break;
        sqlite3_finalize(st);
        st = NULL;
        rc = first_row(db, q == 0 ? dangling_sql : stray_sql, run, &st);
        if (rc != SQLITE_ROW)
            continue;
        int64_t fid = sqlite3_column_int64(st, 0), row_run = sqlite3_column_int64(st, 2);
        char off[32];
        if (sqlite3_column_type(st, 1) == SQLITE_INTEGER)
            snprintf(off, sizeof off, "%" PRId64, (int64_t)sqlite3_column_int64(st, 1));
        else
            snprintf(off, sizeof off, "%s", "not an integer");
        if (q == 0)
            snprintf(why, cap,
                     "exec_counts row (function_id %" PRId64 ", offset %s): function_id %" PRId64
                     " is not a function of run %" PRId64 " (nor of any run)",
                     fid, off, fid, run);
        else if (row_run != run)
            snprintf(why, cap,
                     "exec_counts row (function_id %" PRId64 ", offset %s): its run_id is %" PRId64
                     ", not %" PRId64 ", the run of its function",
                     fid, off, row_run, run);
        else
            snprintf(why, cap,
                     "exec_counts row (function_id %" PRId64 ", offset %s): an exact count in a"
                     " run without exact counts (runs.exact 0)",
                     fid, off);
        sqlite3_finalize(st);
        return 1;
    }
    if (rc != SQLITE_DONE)
        snprintf(why, cap, "checking the rows of run %" PRId64 ": %s", run, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}
