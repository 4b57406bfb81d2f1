/*
 * test_ngrams_read.c - reading profile databases: files that are not
 * profiles are refused with their path in the message, runs are selected
 * by id and label, opcode rows are checked for consistency, and bytes that
 * do not decode end a function without losing what decoded before them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "isa_table.h"
#include "profile_read.h"
#include "test_ngrams_db.h"

static int read_db(const char *path, const char *runs, an_profile *p, char *err, size_t cap)
{
    an_runsel sel;
    memset(p, 0, sizeof *p);
    assert_int_equal(an_runsel_parse(&sel, runs), 0);
    return an_profile_read(p, path, &sel, 0, err, cap);
}

static void run_selections_parse(void **state)
{
    (void)state;
    an_runsel s;
    assert_int_equal(an_runsel_parse(&s, "all"), 0);
    assert_true(s.all);
    assert_int_equal(an_runsel_parse(&s, "3,1,20"), 0);
    assert_int_equal(s.nids, 3);
    assert_int_equal(s.ids[2], 20);
    assert_int_equal(an_runsel_parse(&s, "label:base"), 0);
    assert_string_equal(s.label, "base");
    const char *bad[] = {"", "1,,2", "1,", "x", "0", "label:", "-3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(an_runsel_parse(&s, bad[i]), -1);
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
    tdb_function(&t, 3, 1, "main", &c);
    tdb_close(&t);
    assert_int_equal(read_db(t.path, "label:base", &p, err, sizeof err), 2);
    assert_int_equal(p.nbenches, 2);
    assert_int_equal(p.runs[1].id, 3);
    assert_int_equal(p.runs[1].nfuncs, 1);
    an_profile_free(&p);
    assert_int_equal(read_db(t.path, "2", &p, err, sizeof err), 1);
    assert_string_equal(p.runs[0].label, "fused");
    an_profile_free(&p);
    assert_int_equal(read_db(t.path, "9", &p, err, sizeof err), 0);
    an_profile_free(&p);
    tdb_remove(&t);
}

static void opcode_rows_are_checked(void **state)
{
    (void)state;
    an_opdesc d;
    assert_int_equal(an_opdesc_parse(&d, 4, "x x x", 3, 0, "x[a] = x[b] + x[c]"), 0);
    assert_true(d.nregs == 3 && d.defs == 1 && d.imm_bytes == 0 && d.hdr == 1);
    assert_int_equal(an_opdesc_parse(&d, 300, "f x off32", 9, 4, "f[a].f64 = m64[x[b] + imm]"), 0);
    assert_true(d.hdr == 3 && d.regf == 1 && d.defs == 1 && d.imm_kind == AN_IMM_SIGNED);
    assert_int_equal(an_opdesc_parse(&d, 5, "x x off32", 7, 4, "m8[x[a] + imm] = u8(x[b])"), 0);
    assert_int_equal(d.defs, 0);
    assert_int_equal(an_opdesc_parse(&d, 5, "x x x", 2, 0, ""), -1);   /* too short */
    assert_int_equal(an_opdesc_parse(&d, 5, "x", 4, 0, ""), -1);       /* bytes left over */
    assert_int_equal(an_opdesc_parse(&d, 5, "x table", 7, 3, ""), -1); /* count not u32 */
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
    assert_true(f->insns[0].reg[0] == 1 && f->insns[0].reg[1] == 2 && f->insns[0].reg[2] == 3);
    an_profile_free(&p);
    tdb_remove(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(run_selections_parse),
        cmocka_unit_test(foreign_files_are_refused),
        cmocka_unit_test(runs_by_id_and_label),
        cmocka_unit_test(opcode_rows_are_checked),
        cmocka_unit_test(undecodable_bytes_end_the_function),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
