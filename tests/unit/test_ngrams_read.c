/*
 * test_ngrams_read.c - reading profile databases: files that are not
 * profiles are refused with their path in the message, a lock held for a
 * moment is waited for, runs are selected by id and label, opcode rows
 * give the analysis what each instruction writes and where it branches, a bad row refuses its run, a bad
 * count or sample row refuses its run naming the row, bytes that do
 * not decode end a function without losing what decoded before them, and
 * an old file's rows (no roles stored) read as the collector migrates them.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "func_checksum.h"
#include "insn_build.h"
#include "isa_table.h"
#include "profile_read.h"
#include "test_ngrams_db.h"

static int read_sel(const char *path, an_runsel *sel, an_profile *p, char *err, size_t cap)
{
    memset(p, 0, sizeof *p);
    char *paths[] = {(char *)path};
    return an_profile_read_all(p, paths, 1, sel, err, cap);
}

static int read_db(const char *path, const char *runs, an_profile *p, char *err, size_t cap)
{
    an_runsel sel;
    an_runsel_init(&sel);
    if (runs)
        assert_int_equal(an_runsel_parse(&sel, runs, err, cap), 0);
    return read_sel(path, &sel, p, err, cap);
}

static void run_selections_parse(void **state)
{
    (void)state;
    an_runsel s;
    char err[256];
    an_runsel_init(&s);
    assert_int_equal(an_runsel_parse(&s, "all", err, sizeof err), 0);
    assert_true(s.all);
    an_runsel_init(&s);
    assert_int_equal(an_runsel_parse(&s, "3,1,20", err, sizeof err), 0);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.items[2].sort, AN_SEL_ID);
    assert_int_equal(s.items[2].id, 20);
    assert_int_equal(s.items[2].db, 0);
    an_runsel_init(&s);
    assert_int_equal(
        an_runsel_parse(&s, "label:base,dir/a.db:7,kind:exact,kind:sampled", err, sizeof err), 0);
    assert_int_equal(s.n, 4);
    assert_string_equal(s.text + s.items[0].label, "base");
    assert_string_equal(s.text + s.items[1].db, "dir/a.db");
    assert_int_equal(s.items[1].id, 7);
    assert_true(s.items[2].sort == AN_SEL_KIND && s.items[2].exact);
    assert_true(s.items[3].sort == AN_SEL_KIND && !s.items[3].exact);
    const char *bad[] = {"", "1,,2", "1,", "x", "0", "label:", "-3", "kind:fast", ":3", "a.db:"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        an_runsel_init(&s);
        err[0] = '\0';
        assert_int_equal(an_runsel_parse(&s, bad[i], err, sizeof err), -1);
        assert_true(err[0]);
    }
}

static void foreign_files_are_refused(void **state)
{
    (void)state;
    tdb t;
    an_profile p;
    char err[512];
    tdb_create(&t);
    assert_int_equal(sqlite3_exec(t.db, "PRAGMA application_id = 7", NULL, NULL, NULL), SQLITE_OK);
    tdb_close(&t);
    assert_int_equal(read_db(t.path, "all", &p, err, sizeof err), -1);
    assert_non_null(strstr(err, t.path));
    assert_non_null(strstr(err, "not a profile database"));
    an_profile_free(&p);
    tdb_remove(&t);
    assert_int_equal(read_db("/nonexistent/profile.db", "all", &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent/profile.db: "));
    an_profile_free(&p);
}

/* A lock another connection holds for a moment (a collector committing,
 * another reader opening the same WAL file) is waited for: the file is
 * read, not refused as "database is locked". */
static void a_database_locked_for_a_moment_is_waited_for(void **state)
{
    (void)state;
    tdb t;
    an_profile p;
    char err[512] = "";
    tcode c = {{0}, 0};
    TC0(&c, T_RET);
    tdb_create(&t);
    tdb_run(&t, 1, NULL, "a.wasm", 0);
    tdb_function(&t, 1, 1, "main", &c);
    tdb_samples(&t, 1, 1, 0, 5);
    tdb_close(&t);
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) { /* holds an exclusive lock for 300 ms */
        sqlite3 *db;
        int ok = sqlite3_open(t.path, &db) == SQLITE_OK &&
                 sqlite3_exec(db, "BEGIN EXCLUSIVE", NULL, NULL, NULL) == SQLITE_OK;
        ssize_t said = write(ready[1], ok ? "y" : "n", 1);
        nanosleep(&(struct timespec){0, 300 * 1000 * 1000}, NULL);
        sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
        sqlite3_close(db);
        _exit(ok && said == 1 ? 0 : 1);
    }
    char locked = 0;
    assert_int_equal(read(ready[0], &locked, 1), 1);
    assert_int_equal(locked, 'y');
    int got = read_db(t.path, NULL, &p, err, sizeof err);
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    close(ready[0]);
    close(ready[1]);
    assert_int_equal(status, 0);
    if (got != 1)
        fail_msg("read: %s", err);
    an_profile_free(&p);
    tdb_remove(&t);
}

/* Labels narrow the finished runs; an id reads that run; an id or a
 * label that selects nothing is an error. */
static void runs_by_id_and_label(void **state)
{
    (void)state;
    tdb t;
    an_profile p;
    char err[512];
    tcode c = {{0}, 0};
    TC0(&c, T_RET);
    tdb_create(&t);
    tdb_run(&t, 1, "base", "a.wasm", 0);
    tdb_run(&t, 2, "fused", "a.wasm", 0);
    tdb_run(&t, 3, "base", "b.wasm", 0);
    for (int64_t r = 1; r <= 3; r++) {
        tdb_function(&t, r, r, "main", &c);
        tdb_samples(&t, r, r, 0, 5);
    }
    tdb_close(&t);
    assert_int_equal(read_db(t.path, "label:base", &p, err, sizeof err), 2);
    assert_int_equal(p.nbenches, 2);
    assert_int_equal(p.runs[1].id, 3);
    assert_int_equal(p.runs[1].nfuncs, 1);
    an_profile_free(&p);
    assert_int_equal(read_db(t.path, "2", &p, err, sizeof err), 1);
    assert_string_equal(p.runs[0].label, "fused");
    an_profile_free(&p);
    assert_int_equal(read_db(t.path, "2,9", &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "no run 9"));
    an_profile_free(&p);
    assert_int_equal(read_db(t.path, "label:nosuch", &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "no run is labelled 'nosuch'"));
    an_profile_free(&p);
    assert_int_equal(read_db(t.path, "label:base,kind:exact", &p, err, sizeof err), 0);
    an_profile_free(&p);
    tdb_remove(&t);
}

/* Runs of different instruction sets are not mined together by default:
 * their opcodes would meet by name.  The error names a run of each set;
 * --mix-isas reads them anyway, and --runs can pick one set. */
static void runs_of_two_instruction_sets_are_refused_together(void **state)
{
    (void)state;
    tdb t;
    an_profile p;
    char err[512];
    tcode c = {{0}, 0};
    TC0(&c, T_RET);
    tdb_create(&t);
    for (int64_t r = 1; r <= 3; r++) {
        tdb_run(&t, r, NULL, "a.wasm", 0);
        tdb_function(&t, r, r, "main", &c);
        tdb_samples(&t, r, r, 0, 5);
    }
    tdb_exec(&t, "UPDATE runs SET isa_name = 'lua' WHERE id = 3");
    tdb_close(&t);
    assert_int_equal(read_db(t.path, NULL, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "run 1 of "));
    assert_non_null(strstr(err, "of instruction set 'test'"));
    assert_non_null(strstr(err, "run 3 of "));
    assert_non_null(strstr(err, "'lua'"));
    assert_non_null(strstr(err, "--mix-isas"));
    an_profile_free(&p);
    assert_int_equal(read_db(t.path, "1,2", &p, err, sizeof err), 2);
    an_profile_free(&p);
    an_runsel sel;
    an_runsel_init(&sel);
    sel.mix_isas = 1;
    assert_int_equal(read_sel(t.path, &sel, &p, err, sizeof err), 3);
    /* Runs 1 and 2 are pooled (run_pool.h), run 3 of another set is not. */
    assert_int_equal(an_profile_nread(&p), 3);
    assert_int_equal(p.nruns, 2);
    assert_string_equal(p.runs[1].isa, "lua");
    an_profile_free(&p);
    tdb_remove(&t);
}

/* By default only runs that finished with data are read; every other one
 * is noted with its reason, and can still be read by its id. */
static void unfinished_runs_are_left_out_with_their_reason(void **state)
{
    (void)state;
    tdb t;
    an_profile p;
    char err[512];
    tcode c = {{0}, 0};
    TC0(&c, T_RET);
    tdb_create(&t);
    for (int64_t r = 1; r <= 6; r++) {
        tdb_run(&t, r, NULL, "a.wasm", r >= 5);
        tdb_function(&t, r, r, "main", &c);
    }
    tdb_samples(&t, 1, 1, 0, 5); /* finished, sampled */
    tdb_samples(&t, 2, 2, 0, 5);
    tdb_exec(&t, "UPDATE runs SET outcome = NULL, end_time = NULL WHERE id = 2");
    tdb_samples(&t, 3, 3, 0, 5);
    tdb_exec(&t, "UPDATE runs SET outcome = 'incomplete: 9 samples not stored: disk full (return)'"
                 " WHERE id = 3");
    /* run 4: finished, no samples */
    tdb_count(&t, 5, 5, 0, 7); /* finished, exact */
    /* run 6: exact, no counts */
    tdb_close(&t);
    assert_int_equal(read_db(t.path, NULL, &p, err, sizeof err), 2);
    assert_int_equal(p.runs[0].id, 1);
    assert_int_equal(p.runs[1].id, 5);
    assert_int_equal(p.nskipped, 4);
    const char *why[] = {"did not finish", "incomplete: 9 samples not stored", "no samples",
                         "no exact counts"};
    const int64_t ids[] = {2, 3, 4, 6};
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(p.skipped[i].id, ids[i]);
        assert_string_equal(p.skipped[i].db, t.path);
        if (!strstr(p.skipped[i].why, why[i]))
            fail_msg("run %" PRId64 ": '%s'", ids[i], p.skipped[i].why);
    }
    an_profile_free(&p);
    assert_int_equal(read_db(t.path, "2,4", &p, err, sizeof err), 2);
    assert_int_equal(p.nskipped, 0);
    an_profile_free(&p);
    assert_int_equal(read_db(t.path, "all", &p, err, sizeof err), 6);
    an_profile_free(&p);
    assert_int_equal(read_db(t.path, "kind:exact", &p, err, sizeof err), 1);
    assert_int_equal(p.runs[0].id, 5);
    an_profile_free(&p);
    tdb_remove(&t);
}

/* With several databases an id says which one; a database given twice is
 * read once. */
static void selections_across_databases_are_explicit(void **state)
{
    (void)state;
    tdb a, b;
    an_profile p;
    char err[512], spec[200];
    tcode c = {{0}, 0};
    TC0(&c, T_RET);
    tdb *dbs[] = {&a, &b};
    for (int k = 0; k < 2; k++) {
        tdb_create(dbs[k]);
        tdb_run(dbs[k], 1, NULL, k ? "b.wasm" : "a.wasm", 0);
        tdb_function(dbs[k], 1, 1, "main", &c);
        tdb_samples(dbs[k], 1, 1, 0, 5);
        tdb_close(dbs[k]);
    }
    char *both[] = {a.path, b.path}, *twice[] = {a.path, a.path};
    an_runsel sel;
    an_runsel_init(&sel);
    memset(&p, 0, sizeof p);
    assert_int_equal(an_profile_read_all(&p, both, 2, &sel, err, sizeof err), 2);
    an_profile_free(&p);
    assert_int_equal(an_runsel_parse(&sel, "1", err, sizeof err), 0);
    assert_int_equal(an_profile_read_all(&p, both, 2, &sel, err, sizeof err), -1);
    assert_non_null(strstr(err, "say which one"));
    an_profile_free(&p);
    an_runsel_init(&sel);
    snprintf(spec, sizeof spec, "%s:1", b.path);
    assert_int_equal(an_runsel_parse(&sel, spec, err, sizeof err), 0);
    assert_int_equal(an_profile_read_all(&p, both, 2, &sel, err, sizeof err), 1);
    assert_string_equal(p.runs[0].benchmark, "b.wasm");
    an_profile_free(&p);
    an_runsel_init(&sel);
    snprintf(spec, sizeof spec, "%s:3", b.path);
    assert_int_equal(an_runsel_parse(&sel, spec, err, sizeof err), 0);
    assert_int_equal(an_profile_read_all(&p, both, 2, &sel, err, sizeof err), -1);
    assert_non_null(strstr(err, "has no run 3"));
    an_profile_free(&p);
    an_runsel_init(&sel);
    assert_int_equal(an_profile_read_all(&p, twice, 2, &sel, err, sizeof err), 1);
    assert_int_equal(p.nskipped, 1);
    assert_non_null(strstr(p.skipped[0].why, "given twice"));
    an_profile_free(&p);
    tdb_remove(&a);
    tdb_remove(&b);
}

/* A run whose stored instruction rows are not what its code decodes to,
 * or whose checksum does not match them, is refused naming the function,
 * or left out with --skip-damaged. */
static void damaged_runs_are_refused_or_left_out(void **state)
{
    (void)state;
    tdb t;
    an_profile p;
    char err[512];
    tcode c = {{0}, 0};
    TC1(&c, T_XCONST8, 1, 5, 1);
    TC0(&c, T_RET);
    tdb_create(&t);
    tdb_run(&t, 1, NULL, "a.wasm", 0);
    tdb_function(&t, 1, 1, "main", &c);
    tdb_instruction(&t, 1, 0, 3, T_XCONST8, "xconst8 x1, 5");
    tdb_instruction(&t, 1, 3, 1, T_RET, "ret");
    uint64_t h = pvm_checksum_bytes(PVM_CHECKSUM_START, c.b, c.len);
    h = pvm_checksum_row(h, 0, 3, T_XCONST8, "xconst8 x1, 5");
    h = pvm_checksum_row(h, 3, 1, T_RET, "ret");
    char sql[200];
    snprintf(sql, sizeof sql, "UPDATE functions SET checksum = %" PRId64 " WHERE id = 1", (int64_t)h);
    tdb_exec(&t, sql);
    tdb_samples(&t, 1, 1, 0, 5);
    tdb_run(&t, 2, NULL, "b.wasm", 0);
    tdb_function(&t, 2, 2, "other", &c);
    tdb_samples(&t, 2, 2, 0, 5);
    tdb_close(&t);
    assert_int_equal(read_db(t.path, NULL, &p, err, sizeof err), 2); /* intact */
    an_profile_free(&p);

    assert_int_equal(sqlite3_open(t.path, &t.db), SQLITE_OK);
    tdb_exec(&t, "UPDATE instructions SET text = 'xconst8 x1, 6' WHERE offset = 0");
    tdb_close(&t);
    assert_int_equal(read_db(t.path, NULL, &p, err, sizeof err), -1);
    if (!strstr(err, "run 1 is damaged: function main:") || !strstr(err, "checksum") ||
        !strstr(err, "--skip-damaged"))
        fail_msg("%s", err);
    an_profile_free(&p);

    an_runsel sel;
    an_runsel_init(&sel);
    sel.skip_damaged = 1;
    assert_int_equal(read_sel(t.path, &sel, &p, err, sizeof err), 1);
    assert_int_equal(p.runs[0].id, 2);
    assert_int_equal(p.nbenches, 1);
    assert_int_equal(p.nskipped, 1);
    assert_non_null(strstr(p.skipped[0].why, "damaged: function main"));
    an_profile_free(&p);

    /* Without a checksum (files before version 4) the rows still have to
     * be what the code decodes to. */
    assert_int_equal(sqlite3_open(t.path, &t.db), SQLITE_OK);
    tdb_exec(&t, "UPDATE functions SET checksum = NULL; UPDATE instructions SET opcode = 4"
                 " WHERE offset = 0");
    tdb_close(&t);
    assert_int_equal(read_db(t.path, NULL, &p, err, sizeof err), -1);
    if (!strstr(err, "function main: the instruction row at offset 0x0000 is not what its code"))
        fail_msg("%s", err);
    an_profile_free(&p);
    tdb_remove(&t);
}

/* Counts and samples are checked as they are read: each row must be a
 * non-negative integer at an offset inside a function of its run, and a
 * run's values must add up to at most INT64_MAX.  A bad row refuses its
 * run naming the row and what is wrong, or leaves the run out with
 * --skip-damaged while the others are read. */
static void bad_count_and_sample_rows_damage_their_run(void **state)
{
    (void)state;
    static const struct {
        const char *sql, *want;
    } cases[] = {
        {"UPDATE pc_samples SET samples = -1 WHERE run_id = 1",
         "run 1 is damaged: pc_samples row (function_id 1, offset 0): samples is negative"},
        {"UPDATE pc_samples SET samples = 'many' WHERE run_id = 1",
         "run 1 is damaged: pc_samples row (function_id 1, offset 0): samples is not an integer (text)"},
        {"UPDATE pc_samples SET samples = 2.5 WHERE run_id = 1",
         "pc_samples row (function_id 1, offset 0): samples is not an integer (a real number)"},
        {"UPDATE pc_samples SET offset = NULL WHERE run_id = 1",
         "run 1 is damaged: pc_samples row (function_id 1, offset NULL): offset is NULL"},
        {"UPDATE pc_samples SET offset = -2 WHERE run_id = 1",
         "pc_samples row (function_id 1, offset -2): offset is negative"},
        {"UPDATE pc_samples SET offset = 4 WHERE run_id = 1",
         "pc_samples row (function_id 1, offset 4): offset is past the end of function main (4 bytes)"},
        {"INSERT INTO pc_samples VALUES (1, 3, 0, 0, 1)",
         "run 1 is damaged: pc_samples row (function_id 3, offset 0): function_id 3 is not a function"
         " of run 1"},
        {"INSERT INTO pc_samples VALUES (1, 99, 0, 0, 1)",
         "pc_samples row (function_id 99, offset 0): function_id 99 is not a function of run 1"},
        {"UPDATE exec_counts SET count = -3 WHERE offset = 3",
         "run 2 is damaged: exec_counts row (function_id 2, offset 3): count is negative"},
        {"UPDATE exec_counts SET count = 'x' WHERE offset = 0",
         "run 2 is damaged: exec_counts row (function_id 2, offset 0): count is not an integer (text)"},
        {"UPDATE exec_counts SET count = 9223372036854775807 WHERE offset = 3",
         "run 2 is damaged: exec_counts row (function_id 2, offset 3): the run's counts add up past"
         " 9223372036854775807"},
        {"UPDATE exec_counts SET offset = 7 WHERE offset = 3",
         "exec_counts row (function_id 2, offset 7): offset is past the end of function main (4 bytes)"},
        {"UPDATE exec_counts SET run_id = 3 WHERE offset = 3",
         "run 2 is damaged: exec_counts row (function_id 2, offset 3): its run_id is 3, not 2"},
    };
    tcode c = {{0}, 0};
    TC1(&c, T_XCONST8, 1, 5, 1);
    TC0(&c, T_RET);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tdb t;
        an_profile p;
        char err[512] = "";
        tdb_create(&t);
        tdb_run(&t, 1, NULL, "a.wasm", 0);
        tdb_function(&t, 1, 1, "main", &c);
        tdb_samples(&t, 1, 1, 0, 5);
        tdb_run(&t, 2, NULL, "b.wasm", 1);
        tdb_function(&t, 2, 2, "main", &c);
        tdb_count(&t, 2, 2, 0, 7);
        tdb_count(&t, 2, 2, 3, 7);
        tdb_run(&t, 3, NULL, "c.wasm", 0);
        tdb_function(&t, 3, 3, "other", &c);
        tdb_samples(&t, 3, 3, 0, 5);
        tdb_close(&t);
        assert_int_equal(read_db(t.path, NULL, &p, err, sizeof err), 3);
        an_profile_free(&p);
        assert_int_equal(sqlite3_open(t.path, &t.db), SQLITE_OK);
        tdb_exec(&t, cases[k].sql);
        tdb_close(&t);
        assert_int_equal(read_db(t.path, NULL, &p, err, sizeof err), -1);
        if (!strstr(err, cases[k].want) || !strstr(err, t.path) || !strstr(err, "--skip-damaged"))
            fail_msg("%s: '%s'", cases[k].sql, err);
        an_profile_free(&p);
        an_runsel sel;
        an_runsel_init(&sel);
        sel.skip_damaged = 1;
        assert_int_equal(read_sel(t.path, &sel, &p, err, sizeof err), 2);
        assert_int_equal(p.nskipped, 1);
        assert_int_equal(p.skipped[0].id, strstr(cases[k].want, "exec_counts") ? 2 : 1);
        assert_non_null(strstr(p.skipped[0].why, "it is damaged: "));
        an_profile_free(&p);
        tdb_remove(&t);
    }
}

typedef struct edges {
    uint32_t to[8];
    unsigned n;
} edges;

static void add_edge(void *ctx, uint32_t target)
{
    edges *e = ctx;
    assert_true(e->n < 8);
    e->to[e->n++] = target;
}

/* Beyond the encoding (tests/unit/test_opcode_rows.c), the analysis takes
 * from each stored row its flags and the roles of its register operands
 * (which it reads, which it writes); a decoded instruction carries them,
 * its kind of immediate, and its branch targets as edges. */
static void opcode_rows_say_what_an_instruction_reads_and_writes(void **state)
{
    (void)state;
    an_profile p = {0};
    an_isa isa = {0};
    char err[256];
    assert_int_equal(an_isa_add(&isa, &p, 4, "xadd64", "x x x", 3, 5, 0, "w r r", err, sizeof err),
                     0);
    assert_int_equal(an_isa_add(&isa, &p, 5, "xstore8", "x x off32", 7, 5, AN_TRAPS, "r r", err,
                                sizeof err),
                     0);
    assert_int_equal(an_isa_add(&isa, &p, 6, "jump", "rel32", 5, 5, AN_BRANCH | AN_TERM, "", err,
                                sizeof err),
                     0);
    assert_int_equal(an_isa_add(&isa, &p, 7, "br_table", "x table", 6, 5, AN_BRANCH | AN_TERM, "r",
                                err, sizeof err),
                     0);
    assert_int_equal(an_isa_add(&isa, &p, 300, "fload64", "f x off32", 9, 5, AN_TRAPS, "w r", err,
                                sizeof err),
                     0);
    /* Rows that do not fit their length, whose flags are no flag bits, or
     * whose roles do not match their register operands. */
    assert_int_equal(an_isa_add(&isa, &p, 301, "short", "x x x", 2, 5, 0, "w r r", err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "opcode short (301)"));
    assert_int_equal(an_isa_add(&isa, &p, 302, "table", "x table", 7, 5, 3, "r", err, sizeof err), -1);
    assert_int_equal(an_isa_add(&isa, &p, 303, "flagged", "", 3, 5, 256, "", err, sizeof err), -1);
    assert_non_null(strstr(err, "flags"));
    assert_int_equal(an_isa_add(&isa, &p, 304, "fewer", "x x", 5, 5, 0, "w", err, sizeof err), -1);
    assert_non_null(strstr(err, "fewer roles than register operands"));
    assert_int_equal(an_isa_add(&isa, &p, 305, "more", "x", 4, 5, 0, "w r", err, sizeof err), -1);
    assert_non_null(strstr(err, "more roles"));
    assert_int_equal(an_isa_add(&isa, &p, 306, "odd", "x", 4, 5, 0, "q", err, sizeof err), -1);
    assert_non_null(strstr(err, "not r, w or rw"));
    assert_int_equal(isa.rows.n, 5); /* the refused rows left nothing behind */

    static const uint8_t code[] = {
        4,    1 | 2 << 5, 3 << 2,                       /*  0: xadd64 x1, x2, x3 */
        5,    1 | 2 << 5, 0,      0xF8, 0xFF, 0xFF, 0xFF, /*  3: xstore8 x1, x2, -8 */
        6,    0xF6,       0xFF,   0xFF, 0xFF,             /* 10: jump -10 */
        0xFF, 0x2C,       0,      3 | 4 << 5, 0, 16, 0, 0, 0, /* 15: fload64 f3, x4, 16 */
        7,    5,          2,      0,    0,    0,          /* 24: br_table x5, [+6, -24] */
        6,    0,          0,      0,    0xE8, 0xFF, 0xFF, 0xFF,
    };
    an_insn in[5];
    edges e = {{0}, 0};
    size_t off = 0;
    an_func f = {0};
    an_fbuild b;
    an_fbuild_start(&b, &f);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(an_decode(&isa, &b, code, sizeof code, off, &in[i], add_edge, &e), 0);
        assert_int_equal(in[i].off, off);
        off += in[i].len;
    }
    assert_int_equal(off, sizeof code);
    assert_string_equal(p.opnames[in[0].op], "xadd64");
    /* Registers are the function's ids, each naming a kind and a number. */
    assert_true(in[0].nregs == 3 && in[0].defs == 1 && in[0].uses == 6 && !in[0].opaque);
    assert_true(f.regs[in[0].reg[2]].number == 3 &&
                strcmp(p.kinds[f.regs[in[0].reg[2]].kind], "x") == 0);
    assert_true(in[1].reg[0] == in[0].reg[0] && in[1].reg[1] == in[0].reg[1]); /* x1, x2 again */
    assert_true(in[0].imm_kind == AN_IMM_NONE && in[0].flags == 0);
    assert_true(in[1].defs == 0 && in[1].uses == 3 && in[1].flags == AN_TRAPS);
    assert_true(in[1].imm_kind == AN_IMM_SIGNED && in[1].imm == -8);
    assert_true(in[2].imm_kind == AN_IMM_REL && in[2].imm == -10);
    assert_string_equal(p.opnames[in[3].op], "fload64");
    assert_true(in[3].defs == 1 && in[3].imm == 16);
    assert_true(f.regs[in[3].reg[0]].number == 3 && strcmp(p.kinds[f.regs[in[3].reg[0]].kind], "f") == 0);
    assert_true(in[3].reg[0] != in[0].reg[2]); /* f3 is not x3 */
    assert_true(f.regs[in[3].reg[1]].number == 4);
    assert_true(in[4].imm_kind == AN_IMM_TABLE && in[4].imm == 2 && in[4].len == 14);
    /* jump -10 at 10; the table's entries, relative to 24. */
    assert_int_equal(e.n, 3);
    assert_true(e.to[0] == 0 && e.to[1] == 30 && e.to[2] == 0);
    free(f.regs);
    an_isa_free(&isa);
    an_profile_free(&p);
}

/* A stored row that does not fit its length refuses the run as damaged,
 * naming it. */
static void a_bad_opcode_row_refuses_the_run(void **state)
{
    (void)state;
    tdb t;
    an_profile p;
    char err[512];
    tdb_create(&t);
    tdb_run(&t, 1, NULL, "a", 0);
    assert_int_equal(sqlite3_exec(t.db,
                                  "UPDATE opcodes SET length = length + 1 WHERE name = 'xadd64'",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    tdb_close(&t);
    assert_int_equal(read_db(t.path, "all", &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "run 1 is damaged: stored opcode table: opcode xadd64"));
    assert_non_null(strstr(err, "do not fit"));
    an_profile_free(&p);
    tdb_remove(&t);
}

/* Stored costs are positive numbers or NULL: anything else refuses the
 * run, naming the column, and is never read as "no cost". */
static void a_cost_that_is_no_positive_number_refuses_the_run(void **state)
{
    (void)state;
    static const char *const bad[][2] = {
        {"UPDATE runs SET dispatch_cost = -3", "runs.dispatch_cost is no positive number"},
        {"UPDATE runs SET dispatch_cost = 'fast'", "runs.dispatch_cost is no positive number"},
        {"UPDATE opcodes SET cost = 0 WHERE name = 'ret'", "a cost that is no positive number"},
        {"UPDATE opcodes SET cost = 'x' WHERE name = 'ret'", "a cost that is no positive number"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        tdb t;
        an_profile p;
        char err[512];
        tcode c = {{0}, 0};
        TC0(&c, T_RET);
        tdb_create(&t);
        tdb_run(&t, 1, NULL, "a", 1);
        tdb_function(&t, 1, 1, "main", &c);
        tdb_count(&t, 1, 1, 0, 5);
        tdb_exec(&t, "UPDATE runs SET dispatch_cost = 3; UPDATE opcodes SET cost = 7");
        tdb_close(&t);
        assert_int_equal(read_db(t.path, "all", &p, err, sizeof err), 1); /* as stored */
        assert_true(p.runs[0].dispatch_cost == 3);
        an_profile_free(&p);
        assert_int_equal(sqlite3_open(t.path, &t.db), SQLITE_OK);
        tdb_exec(&t, bad[i][0]);
        tdb_close(&t);
        assert_int_equal(read_db(t.path, "all", &p, err, sizeof err), -1);
        if (!strstr(err, bad[i][1]))
            fail_msg("%s: %s", bad[i][0], err);
        an_profile_free(&p);
        tdb_remove(&t);
    }
}

static void undecodable_bytes_end_the_function(void **state)
{
    (void)state;
    tdb t;
    an_profile p;
    char err[512];
    tcode c = {{0}, 0};
    TC3(&c, T_XADD64, 1, 2, 3);
    TC0(&c, T_RET);
    c.b[c.len++] = 0xEE; /* not an opcode of the table */
    tdb_create(&t);
    tdb_run(&t, 1, NULL, "a", 0);
    tdb_function(&t, 1, 1, "f", &c);
    tdb_close(&t);
    assert_int_equal(read_db(t.path, "all", &p, err, sizeof err), 1);
    const an_func *f = &p.runs[0].funcs[0];
    assert_int_equal(f->ninsns, 2);
    for (unsigned k = 0; k < 3; k++)
        assert_int_equal(f->regs[f->insns[0].reg[k]].number, k + 1);
    an_profile_free(&p);
    tdb_remove(&t);
}

/* A version 1 database, as its schema text makes it: rows without roles
 * or the return flag are read with those of the legacy rule. */
static void an_old_file_is_read_with_the_roles_of_its_migration(void **state)
{
    (void)state;
    char path[] = "/tmp/test_ngrams_v1_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    FILE *f = fopen(NGRAMS_SCHEMA_V1_SQL, "rb");
    assert_non_null(f);
    static char schema[65536];
    size_t n = fread(schema, 1, sizeof schema - 1, f);
    fclose(f);
    schema[n] = '\0';
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, schema, NULL, NULL, NULL), SQLITE_OK);
    /* xadd64 x1, x2, x3; xstore8 x1, x2, -8; ret */
    const char *rows =
        "INSERT INTO runs (id, benchmark, command_line, start_time, sample_hz, exact, isa_name,"
        " isa_hash, collector) VALUES (1, 'old', 'old', '2025', 0, 1, 'pulley', '0', 'old');"
        "INSERT INTO modules VALUES (1, 1, 'm');"
        "INSERT INTO opcodes VALUES (1, 4, 'xadd64', 'XXX', 'x x x', 3, 0, '', 'x[a] = x[b] + x[c]'),"
        " (1, 5, 'xstore8', 'XX_OFF', 'x x off32', 7, 4, 'traps', 'm8[x[a] + imm] = u8(x[b])'),"
        " (1, 6, 'ret', 'NONE', '', 1, 6, 'term traps', 'pc = lr');"
        "INSERT INTO functions VALUES (1, 1, 1, 0, 'f', 4096, 11,"
        " x'04410c054100f8ffffff06');"
        "INSERT INTO exec_counts VALUES (1, 1, 0, 1), (1, 1, 3, 1), (1, 1, 10, 1);";
    char *msg = NULL;
    if (sqlite3_exec(db, rows, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s", msg);
    assert_int_equal(sqlite3_close(db), SQLITE_OK);
    an_profile p;
    char err[512];
    assert_int_equal(read_db(path, "all", &p, err, sizeof err), 1);
    const an_func *fn = &p.runs[0].funcs[0];
    assert_int_equal(fn->ninsns, 3);
    assert_true(fn->insns[0].defs == 1 && fn->insns[0].uses == 6);  /* w r r */
    assert_true(fn->insns[1].defs == 0 && fn->insns[1].uses == 3);  /* r r */
    assert_true(fn->insns[2].flags & AN_RETURN);
    an_profile_free(&p);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(run_selections_parse),
        cmocka_unit_test(runs_of_two_instruction_sets_are_refused_together),
        cmocka_unit_test(foreign_files_are_refused),
        cmocka_unit_test(a_database_locked_for_a_moment_is_waited_for),
        cmocka_unit_test(runs_by_id_and_label),
        cmocka_unit_test(unfinished_runs_are_left_out_with_their_reason),
        cmocka_unit_test(selections_across_databases_are_explicit),
        cmocka_unit_test(damaged_runs_are_refused_or_left_out),
        cmocka_unit_test(bad_count_and_sample_rows_damage_their_run),
        cmocka_unit_test(a_cost_that_is_no_positive_number_refuses_the_run),
        cmocka_unit_test(opcode_rows_say_what_an_instruction_reads_and_writes),
        cmocka_unit_test(a_bad_opcode_row_refuses_the_run),
        cmocka_unit_test(undecodable_bytes_end_the_function),
        cmocka_unit_test(an_old_file_is_read_with_the_roles_of_its_migration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
