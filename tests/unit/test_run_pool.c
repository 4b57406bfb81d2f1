/*
 * test_run_pool.c - runs pooled as they are read (analyze/model/run_pool.c):
 * runs of one benchmark, label and kind of data share one pool whose
 * functions of equal code and name are kept once with their counts added,
 * every run still weighing its share of its benchmark (block weights and
 * pulley-report's shares as if each run were kept); functions of another
 * name, exact runs and other benchmarks stay apart; a function copied from
 * an equal one is still checked against its own rows and checksum.
 */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "blocks.h"
#include "func_checksum.h"
#include "hot_code.h"
#include "profile_read.h"
#include "test_ngrams_db.h"

/* The function of pool r named name, or fail. */
static const an_func *func_named(const an_profile *p, size_t r, const char *name)
{
    for (size_t f = 0; f < p->runs[r].nfuncs; f++)
        if (strcmp(p->runs[r].funcs[f].name, name) == 0)
            return &p->runs[r].funcs[f];
    fail_msg("no function %s in pool %zu", name, r);
    return NULL;
}

/* Runs 1..3 of a.wasm, sampled, each with "main" and "helper" (one
 * instruction each, the same code), samples main:helper 1:3, 9:1, 5:5;
 * run 4 of b.wasm; run 5 of a.wasm with exact counts. */
static void make_fleet(tdb *t)
{
    tcode c = {{0}, 0};
    TC0(&c, T_RET);
    static const int64_t main_s[] = {1, 9, 5}, helper_s[] = {3, 1, 5};
    tdb_create(t);
    for (int64_t r = 1; r <= 3; r++) {
        tdb_run(t, r, NULL, "a.wasm", 0);
        tdb_function(t, r, 10 * r, "main", &c);
        tdb_function(t, r, 10 * r + 1, "helper", &c);
        tdb_samples(t, r, 10 * r, 0, main_s[r - 1]);
        tdb_samples(t, r, 10 * r + 1, 0, helper_s[r - 1]);
    }
    tdb_run(t, 4, NULL, "b.wasm", 0);
    tdb_function(t, 4, 40, "main", &c);
    tdb_samples(t, 4, 40, 0, 7);
    tdb_run(t, 5, NULL, "a.wasm", 1);
    tdb_function(t, 5, 50, "main", &c);
    tdb_count(t, 5, 50, 0, 100);
    tdb_close(t);
}

static void runs_of_a_benchmark_share_a_pool(void **state)
{
    (void)state;
    tdb t;
    an_profile p;
    char err[512];
    make_fleet(&t);
    assert_int_equal(tdb_read(t.path, 0, &p, err, sizeof err), 5);
    /* a.wasm sampled, b.wasm, a.wasm exact */
    assert_int_equal(p.nruns, 3);
    assert_int_equal(an_profile_nread(&p), 5);
    assert_int_equal(p.nbenches, 2);
    assert_int_equal(p.runs[0].members, 3);
    assert_int_equal(p.runs[0].nfuncs, 2); /* main and helper, each once */
    assert_int_equal(p.runs[1].members, 1);
    assert_int_equal(p.runs[2].members, 1);
    assert_true(p.runs[2].exact);
    /* The runs read, in order, with their own ids. */
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(an_profile_member(&p, i).id, (int64_t)i + 1);
    const an_func *m = func_named(&p, 0, "main");
    assert_true(m->insns[0].count == 15);      /* samples added */
    assert_int_equal(an_func_run(&p.runs[0], m), 1); /* read first from run 1 */

    /* a.wasm weighs 1, shared by its 4 runs: main's share of each run
     * (1/4, 9/10, 1/2; 1 in the exact run, pool 2) over 4. */
    assert_int_equal(an_normalise(&p), 0);
    double want = (0.25 + 0.9 + 0.5) / 4;
    assert_true(fabs(m->blocks[0].weight - want) < 1e-12);
    assert_true(fabs(func_named(&p, 0, "helper")->blocks[0].weight - (0.75 + 0.1 + 0.5) / 4) < 1e-12);
    assert_true(fabs(func_named(&p, 2, "main")->blocks[0].weight - 0.25) < 1e-12);
    assert_true(fabs(func_named(&p, 1, "main")->blocks[0].weight - 1.0) < 1e-12);

    /* pulley-report's shares: of all instructions, each benchmark 1/2. */
    hc_view v;
    assert_int_equal(hc_build(&p, &v), 0);
    double share_main_a = 0;
    for (size_t k = 0; k < v.nfuncs; k++)
        if (v.funcs[k].run == 0 && strcmp(v.funcs[k].f->name, "main") == 0)
            share_main_a = v.funcs[k].share;
    assert_true(fabs(share_main_a - (0.25 + 0.9 + 0.5) / 4 / 2) < 1e-12);
    hc_free(&v);
    an_profile_free(&p);
    tdb_remove(&t);
}

/* A function copied from an equal one read before is still checked: its
 * own instruction rows must give its stored checksum. */
static void a_copied_function_is_still_checked(void **state)
{
    (void)state;
    tdb t;
    an_profile p;
    char err[512];
    tcode c = {{0}, 0};
    TC1(&c, T_XCONST8, 1, 5, 1);
    TC0(&c, T_RET);
    uint64_t h = pvm_checksum_bytes(PVM_CHECKSUM_START, c.b, c.len);
    h = pvm_checksum_row(h, 0, 3, T_XCONST8, "xconst8 x1, 5");
    h = pvm_checksum_row(h, 3, 1, T_RET, "ret");
    tdb_create(&t);
    for (int64_t r = 1; r <= 2; r++) {
        tdb_run(&t, r, NULL, "a.wasm", 0);
        tdb_function(&t, r, r, "main", &c);
        tdb_instruction(&t, r, 0, 3, T_XCONST8, r == 2 ? "xconst8 x1, 6" : "xconst8 x1, 5");
        tdb_instruction(&t, r, 3, 1, T_RET, "ret");
        tdb_samples(&t, r, r, 0, 5);
    }
    char sql[200];
    snprintf(sql, sizeof sql, "UPDATE functions SET checksum = %" PRId64, (int64_t)h);
    tdb_exec(&t, sql);
    tdb_close(&t);
    assert_int_equal(tdb_read(t.path, 0, &p, err, sizeof err), -1);
    if (!strstr(err, "run 2 is damaged: function main:") || !strstr(err, "checksum"))
        fail_msg("%s", err);
    an_profile_free(&p);
    assert_int_equal(tdb_read(t.path, 1, &p, err, sizeof err), 1);
    assert_int_equal(an_profile_nread(&p), 1);
    assert_int_equal(p.nskipped, 1);
    assert_int_equal(p.skipped[0].id, 2);
    an_profile_free(&p);
    tdb_remove(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(runs_of_a_benchmark_share_a_pool),
        cmocka_unit_test(a_copied_function_is_still_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
