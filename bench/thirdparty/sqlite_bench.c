/* sqlite_bench.c - the work of a database engine on an in-memory SQLite
 * database, built with SQLITE_OS_OTHER: the minimal VFS below (no files,
 * a fixed clock, deterministic randomness) is the same natively and on
 * wasm32-wasi.  Steps: inserts in a transaction, an index, indexed and full
 * scans with bound parameters, updates and deletes, a join with GROUP BY
 * and ORDER BY, string functions and LIKE, a recursive CTE, a sort.  Each
 * step prints its name and a checksum of the rows it returned.
 *
 *   sqlite_bench [ROWS]   (default 20000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqlite3.h"

/* the VFS: every database is :memory:, so nothing opens a file */
static int vfs_open(sqlite3_vfs *v, sqlite3_filename name, sqlite3_file *f, int flags, int *out)
{
    (void)v, (void)name, (void)flags, (void)out;
    f->pMethods = 0;
    return SQLITE_CANTOPEN;
}
static int vfs_delete(sqlite3_vfs *v, const char *name, int sync)
{
    (void)v, (void)name, (void)sync;
    return SQLITE_IOERR_DELETE;
}
static int vfs_access(sqlite3_vfs *v, const char *name, int flags, int *res)
{
    (void)v, (void)name, (void)flags;
    *res = 0;
    return SQLITE_OK;
}
static int vfs_fullpathname(sqlite3_vfs *v, const char *name, int n, char *out)
{
    (void)v;
    sqlite3_snprintf(n, out, "%s", name);
    return SQLITE_OK;
}
static int vfs_randomness(sqlite3_vfs *v, int n, char *out)
{
    static unsigned int s = 12345;
    (void)v;
    for (int i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        out[i] = (char)(s >> 16);
    }
    return n;
}
static int vfs_sleep(sqlite3_vfs *v, int us)
{
    (void)v;
    return us;
}
static int vfs_currenttime(sqlite3_vfs *v, double *t)
{
    (void)v;
    *t = 2461000.5; /* a fixed Julian day */
    return SQLITE_OK;
}
static int vfs_lasterror(sqlite3_vfs *v, int n, char *out)
{
    (void)v, (void)n, (void)out;
    return 0;
}
static int vfs_currenttime64(sqlite3_vfs *v, sqlite3_int64 *t)
{
    (void)v;
    *t = (sqlite3_int64)2461000 * 86400000 + 43200000;
    return SQLITE_OK;
}
static sqlite3_vfs bench_vfs = {
    2, sizeof(sqlite3_file), 512, 0, "bench", 0, vfs_open, vfs_delete, vfs_access,
    vfs_fullpathname, 0, 0, 0, 0, vfs_randomness, vfs_sleep, vfs_currenttime, vfs_lasterror,
    vfs_currenttime64, 0, 0, 0,
};
int sqlite3_os_init(void) { return sqlite3_vfs_register(&bench_vfs, 1); }
int sqlite3_os_end(void) { return SQLITE_OK; }

static sqlite3 *db;
static unsigned int lcg = 1;
static unsigned int next_rand(void)
{
    lcg = lcg * 1664525u + 1013904223u;
    return lcg >> 8;
}

static void fail(const char *what)
{
    fprintf(stderr, "sqlite_bench: %s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
}

static void exec(const char *sql)
{
    char *err = 0;
    if (sqlite3_exec(db, sql, 0, 0, &err) != SQLITE_OK) {
        fprintf(stderr, "sqlite_bench: %s: %s\n", sql, err ? err : "?");
        exit(1);
    }
}

static sqlite3_stmt *prepare(const char *sql)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, 0) != SQLITE_OK)
        fail(sql);
    return st;
}

/* step ST to its end, folding every column of every row into *h (FNV-1a);
 * the number of rows */
static long run(sqlite3_stmt *st, unsigned int *h)
{
    long rows = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        rows++;
        for (int i = 0; i < sqlite3_column_count(st); i++) {
            const unsigned char *t = sqlite3_column_text(st, i);
            for (; t && *t; t++)
                *h = (*h ^ *t) * 16777619u;
            *h = (*h ^ 0xff) * 16777619u;
        }
    }
    if (rc != SQLITE_DONE)
        fail(sqlite3_sql(st));
    sqlite3_reset(st);
    return rows;
}

/* run SQL once: its rows, folded into *h */
static long once(const char *sql, unsigned int *h)
{
    sqlite3_stmt *st = prepare(sql);
    long rows = run(st, h);
    sqlite3_finalize(st);
    return rows;
}

static void report(const char *step, long rows, unsigned int h)
{
    printf("%-10s %8ld rows  %08x\n", step, rows, h);
}

static const char *words[] = {"zero", "one", "two", "three", "four", "five", "six", "seven",
                              "eight", "nine", "ten", "eleven", "twelve", "thirteen"};

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20000;
    if (n < 100)
        n = 100;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK)
        fail("open");
    exec("PRAGMA cache_size=-16384");
    exec("CREATE TABLE t1(a INTEGER PRIMARY KEY, b INTEGER, c TEXT);"
         "CREATE TABLE t2(x INTEGER PRIMARY KEY, y TEXT, z REAL);");

    /* inserts, one transaction, a prepared statement */
    unsigned int h = 2166136261u;
    long rows = 0;
    sqlite3_stmt *ins = prepare("INSERT INTO t1 VALUES(?1, ?2, ?3)");
    char text[128];
    exec("BEGIN");
    for (int i = 1; i <= n; i++) {
        unsigned int r = next_rand() % (unsigned)(n * 4);
        snprintf(text, sizeof text, "%s %s %s-%u", words[r % 14], words[(r / 14) % 14],
                 words[i % 14], r);
        sqlite3_bind_int(ins, 1, i);
        sqlite3_bind_int(ins, 2, (int)r);
        sqlite3_bind_text(ins, 3, text, -1, SQLITE_TRANSIENT);
        rows += run(ins, &h);
    }
    sqlite3_finalize(ins);
    ins = prepare("INSERT INTO t2 VALUES(?1, ?2, ?3)");
    for (int i = 0; i < 1000; i++) {
        snprintf(text, sizeof text, "group-%s-%d", words[i % 14], i % 37);
        sqlite3_bind_int(ins, 1, i);
        sqlite3_bind_text(ins, 2, text, -1, SQLITE_TRANSIENT);
        sqlite3_bind_double(ins, 3, i * 0.25);
        run(ins, &h);
    }
    sqlite3_finalize(ins);
    exec("COMMIT");
    h = 2166136261u;
    once("SELECT count(*), sum(b), max(c) FROM t1", &h);
    report("insert", n, h);

    /* an index, then range queries through it and through the table */
    exec("CREATE INDEX t1b ON t1(b); CREATE INDEX t1c ON t1(c)");
    h = 2166136261u, rows = 0;
    sqlite3_stmt *q = prepare("SELECT count(*), sum(a), avg(length(c)) FROM t1 WHERE b BETWEEN ?1 AND ?2");
    for (int i = 0; i < n / 4; i++) {
        int lo = (int)(next_rand() % (unsigned)(n * 4));
        sqlite3_bind_int(q, 1, lo);
        sqlite3_bind_int(q, 2, lo + 100);
        rows += run(q, &h);
    }
    sqlite3_finalize(q);
    report("range", rows, h);
    h = 2166136261u, rows = 0;
    q = prepare("SELECT a, b FROM t1 WHERE c >= ?1 ORDER BY c LIMIT 5");
    for (int i = 0; i < n / 8; i++) {
        unsigned int w1 = next_rand() % 14, w2 = next_rand() % 14;
        snprintf(text, sizeof text, "%s %s", words[w1], words[w2]);
        sqlite3_bind_text(q, 1, text, -1, SQLITE_TRANSIENT);
        rows += run(q, &h);
    }
    sqlite3_finalize(q);
    report("textindex", rows, h);
    h = 2166136261u, rows = 0;
    q = prepare("SELECT count(*) FROM t1 WHERE c LIKE ?1");
    for (int i = 0; i < 8; i++) {
        snprintf(text, sizeof text, "%%%s%%-%d%%", words[i], i);
        sqlite3_bind_text(q, 1, text, -1, SQLITE_TRANSIENT);
        rows += run(q, &h);
    }
    sqlite3_finalize(q);
    report("like", rows, h);

    /* updates and deletes */
    exec("BEGIN;"
         "UPDATE t1 SET b = b + 1, c = upper(c) WHERE a % 7 = 0;"
         "DELETE FROM t1 WHERE b % 11 = 3;"
         "UPDATE t1 SET c = substr(c, 1, 12) || '/' || (a % 97) WHERE b < 5000;"
         "COMMIT");
    h = 2166136261u;
    rows = once("SELECT count(*), sum(b), sum(length(c)), min(c), max(c) FROM t1", &h);
    report("update", rows, h);

    /* a join, grouped and ordered */
    h = 2166136261u;
    rows = once("SELECT t2.y, count(*), sum(t1.b), round(avg(t2.z), 3) FROM t1"
                " JOIN t2 ON t2.x = t1.b % 1000 GROUP BY t2.y ORDER BY 2 DESC, 1",
                &h);
    report("join", rows, h);
    h = 2166136261u;
    rows = once("SELECT a.a, b.a FROM t1 AS a JOIN t1 AS b ON b.b = a.b + 1"
                " WHERE a.a % 5 = 0 ORDER BY 1, 2",
                &h);
    report("selfjoin", rows, h);

    /* string building and a recursive CTE */
    h = 2166136261u;
    rows = once("SELECT a % 50, group_concat(substr(c, 1, 3), ''), count(DISTINCT b % 13)"
                " FROM t1 GROUP BY 1 ORDER BY 1",
                &h);
    report("strings", rows, h);
    q = prepare("WITH RECURSIVE s(i, v) AS (SELECT 1, 1 UNION ALL"
                " SELECT i + 1, (v * 31 + i) % 1000003 FROM s WHERE i < ?1)"
                " SELECT count(*), sum(v), max(v) FROM s");
    sqlite3_bind_int(q, 1, n * 5);
    h = 2166136261u;
    rows = run(q, &h);
    sqlite3_finalize(q);
    report("cte", rows, h);

    /* a sort of every row on an expression */
    h = 2166136261u;
    rows = once("SELECT a, c FROM t1 ORDER BY (b * 7919) % 10007, c DESC", &h);
    report("sort", rows, h);

    if (sqlite3_close(db) != SQLITE_OK)
        fail("close");
    return 0;
}
