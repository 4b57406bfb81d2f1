/*
 * test_read_borders.c - what a reader must not take for a normal profile:
 * a file of a newer schema version is refused naming the file, the
 * version found and the newest understood; a run whose stored opcode
 * table is missing, names one opcode twice, or is of another encoding
 * with no operands stored is refused as damaged (and left out under
 * --skip-damaged); an instruction row whose length is near INT64_MAX is
 * a damaged row, not an overflowing sum.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "profile_format.h"
#include "profile_read.h"
#include "test_ngrams_db.h"

/* Two intact sampled runs (1 and 2), each with one function, `main` and
 * `other`: xconst8 x1, 5; ret.  The file stays closed. */
static void make_two_runs(tdb *t)
{
    tcode c = {{0}, 0};
    TC1(&c, T_XCONST8, 1, 5, 1);
    TC0(&c, T_RET);
    tdb_create(t);
    tdb_run(t, 1, NULL, "a.wasm", 0);
    tdb_function(t, 1, 1, "main", &c);
    tdb_samples(t, 1, 1, 0, 5);
    tdb_run(t, 2, NULL, "b.wasm", 0);
    tdb_function(t, 2, 2, "other", &c);
    tdb_samples(t, 2, 2, 0, 5);
    tdb_close(t);
}

/* Apply sql to the file at t. */
static void damage(tdb *t, const char *sql)
{
    assert_int_equal(sqlite3_open(t->path, &t->db), SQLITE_OK);
    tdb_exec(t, sql);
    tdb_close(t);
}

/* Reading fails with all of the words in err; with --skip-damaged, run 1
 * is left out (its reason holding words[0]) and run 2 read. */
static void refused_as_damaged(tdb *t, const char *const *words, size_t n)
{
    an_profile p;
    char err[1024] = "";
    assert_int_equal(tdb_read(t->path, 0, &p, err, sizeof err), -1);
    for (size_t i = 0; i < n; i++)
        if (!strstr(err, words[i]))
            fail_msg("'%s' not in: %s", words[i], err);
    an_profile_free(&p);
    assert_int_equal(tdb_read(t->path, 1, &p, err, sizeof err), 1);
    assert_int_equal(p.runs[0].id, 2);
    assert_int_equal(p.nskipped, 1);
    assert_int_equal(p.skipped[0].id, 1);
    if (!strstr(p.skipped[0].why, words[n - 1]))
        fail_msg("'%s' not in: %s", words[n - 1], p.skipped[0].why);
    an_profile_free(&p);
}

static void a_newer_schema_is_refused(void **state)
{
    (void)state;
    tdb t;
    an_profile p;
    char err[1024] = "", found[64], known[64], sql[64];
    make_two_runs(&t);
    assert_int_equal(tdb_read(t.path, 0, &p, err, sizeof err), 2); /* the current one reads */
    an_profile_free(&p);
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", PVMP_SCHEMA_VERSION + 1);
    damage(&t, sql);
    assert_int_equal(tdb_read(t.path, 1, &p, err, sizeof err), -1);
    snprintf(found, sizeof found, "version %d is newer", PVMP_SCHEMA_VERSION + 1);
    snprintf(known, sizeof known, "(%d)", PVMP_SCHEMA_VERSION);
    if (!strstr(err, t.path) || !strstr(err, found) || !strstr(err, known))
        fail_msg("%s", err);
    an_profile_free(&p);
    damage(&t, "PRAGMA user_version = 99");
    assert_int_equal(tdb_read(t.path, 0, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "version 99 is newer"));
    an_profile_free(&p);
    tdb_remove(&t);
}

static void an_opcode_name_twice_damages_the_run(void **state)
{
    (void)state;
    tdb t;
    make_two_runs(&t);
    damage(&t, "UPDATE opcodes SET name = 'xconst8' WHERE run_id = 1 AND name = 'xadd64'");
    char twice[96];
    snprintf(twice, sizeof twice, "the name 'xconst8' appears twice (opcodes %d and %d)",
             T_XCONST8, T_XADD64);
    refused_as_damaged(&t, (const char *[]){"run 1 is damaged", "--skip-damaged", twice}, 3);
    tdb_remove(&t);
}

static void a_run_without_an_opcode_table_is_damaged(void **state)
{
    (void)state;
    tdb t;
    make_two_runs(&t);
    damage(&t, "DELETE FROM opcodes WHERE run_id = 1");
    refused_as_damaged(&t, (const char *[]){"run 1 is damaged", "has no opcode table"}, 2);
    tdb_remove(&t);
}

/* Rows of another interpreter's encoding are decoded from the stored
 * operands; without them there is nothing to read the code with, and
 * the run is not silently read as empty. */
static void a_foreign_table_without_operands_is_damaged(void **state)
{
    (void)state;
    tdb t;
    make_two_runs(&t);
    damage(&t, "UPDATE runs SET isa_name = 'other-vm' WHERE id = 1;"
               " UPDATE opcodes SET reg_bits = 0 WHERE run_id = 1");
    refused_as_damaged(&t, (const char *[]){"run 1 is damaged", "another interpreter's encoding"},
                       2);
    tdb_remove(&t);
}

/* A run whose instruction rows carry their operands, the second row's
 * length INT64_MAX: offset + length would overflow. */
static void a_huge_instruction_length_is_a_damaged_row(void **state)
{
    (void)state;
    tdb t;
    make_two_runs(&t);
    assert_int_equal(sqlite3_open(t.path, &t.db), SQLITE_OK);
    tdb_instruction(&t, 1, 0, 3, T_XCONST8, "xconst8 x1, 5");
    tdb_instruction(&t, 1, 3, 1, T_RET, "ret");
    tdb_exec(&t, "UPDATE runs SET operands_stored = 1 WHERE id = 1;"
                 " UPDATE instructions SET regs = '1', imms = '5', targets = '' WHERE offset = 0;"
                 " UPDATE instructions SET regs = '', imms = '', targets = '' WHERE offset = 3");
    tdb_close(&t);
    an_profile p;
    char err[1024] = "";
    assert_int_equal(tdb_read(t.path, 0, &p, err, sizeof err), 2); /* intact */
    an_profile_free(&p);
    damage(&t, "UPDATE instructions SET length = 9223372036854775807 WHERE offset = 3");
    refused_as_damaged(&t,
                       (const char *[]){"run 1 is damaged", "function main: the instruction row"
                                                            " at offset 0x0003"},
                       2);
    damage(&t, "UPDATE instructions SET length = 1 WHERE offset = 3;"
               " UPDATE functions SET size = -9223372036854775807 - 1 WHERE id = 1");
    refused_as_damaged(&t, (const char *[]){"run 1 is damaged", "at offset 0x0000"}, 2);
    tdb_remove(&t);
}

/* A runs row no collector writes: selected as a finished run and refused
 * (not left out as "no samples" nor read as a sampled run). */
static void a_runs_row_of_bad_values_is_damaged(void **state)
{
    (void)state;
    tdb t;
    make_two_runs(&t);
    damage(&t, "UPDATE runs SET exact = 'yes' WHERE id = 1");
    refused_as_damaged(&t, (const char *[]){"run 1 is damaged", "runs.exact is neither 0 nor 1"}, 2);
    damage(&t, "UPDATE runs SET exact = 0, samples_written = -4 WHERE id = 1");
    refused_as_damaged(&t, (const char *[]){"run 1 is damaged", "runs.samples_written"}, 2);
    tdb_remove(&t);
}

/* A function without a name (NOT NULL taken off the table as another
 * writer could have), and code stored as text. */
static void a_function_row_without_name_or_blob_is_damaged(void **state)
{
    (void)state;
    tdb t;
    make_two_runs(&t);
    damage(&t, "UPDATE functions SET code = hex(code) WHERE run_id = 1");
    refused_as_damaged(&t, (const char *[]){"run 1 is damaged", "function main (functions row 1):"
                                            " its code is text, not a blob"}, 2);
    tdb_remove(&t);
    make_two_runs(&t);
    damage(&t, "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = replace(sql,"
               " 'NOT NULL', '') WHERE name = 'functions'");
    damage(&t, "UPDATE functions SET name = NULL WHERE id = 1");
    refused_as_damaged(&t, (const char *[]){"run 1 is damaged", "functions row 1: its name is NULL"},
                       2);
    tdb_remove(&t);
}

/* exec_counts rows the reading would pass over: one of run 2 on a
 * function of run 1 (sampled), one naming no function at all. */
static void stray_exec_counts_rows_damage_a_run(void **state)
{
    (void)state;
    tdb t;
    make_two_runs(&t);
    damage(&t, "INSERT INTO exec_counts (run_id, function_id, offset, count) VALUES (2, 1, 0, 3)");
    refused_as_damaged(&t, (const char *[]){"run 1 is damaged", "exec_counts row (function_id 1,"
                                            " offset 0): its run_id is 2, not 1"}, 2);
    damage(&t, "DELETE FROM exec_counts; INSERT INTO exec_counts VALUES (1, 99, 0, 3)");
    refused_as_damaged(&t, (const char *[]){"run 1 is damaged", "function_id 99 is not a function"
                                            " of run 1 (nor of any run)"}, 2);
    tdb_remove(&t);
}

/* An opcode row of a length no opcode has damages its run (was: an
 * error that --skip-damaged could not pass). */
static void an_opcode_row_of_impossible_length_is_damaged(void **state)
{
    (void)state;
    tdb t;
    make_two_runs(&t);
    damage(&t, "UPDATE opcodes SET length = 1099511627776 WHERE run_id = 1 AND name = 'ret'");
    refused_as_damaged(&t, (const char *[]){"run 1 is damaged", "stored opcode table: opcode ret"}, 2);
    tdb_remove(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_newer_schema_is_refused),
        cmocka_unit_test(an_opcode_name_twice_damages_the_run),
        cmocka_unit_test(a_run_without_an_opcode_table_is_damaged),
        cmocka_unit_test(a_foreign_table_without_operands_is_damaged),
        cmocka_unit_test(a_huge_instruction_length_is_a_damaged_row),
        cmocka_unit_test(a_runs_row_of_bad_values_is_damaged),
        cmocka_unit_test(a_function_row_without_name_or_blob_is_damaged),
        cmocka_unit_test(stray_exec_counts_rows_damage_a_run),
        cmocka_unit_test(an_opcode_row_of_impossible_length_is_damaged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
