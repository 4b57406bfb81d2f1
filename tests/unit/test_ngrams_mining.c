/*
 * test_ngrams_mining.c - pulley-ngrams on hand-made profiles with known
 * counts: basic blocks (branch and jump-table targets, instructions after
 * branches and terminators), block frequencies from exact counts and from
 * samples (weighed by what each opcode costs), per-benchmark normalisation, exact n-gram counts, operand facts,
 * the saving of a chosen set counted once where n-grams overlap, no op
 * proposed that saves (almost) nothing, alone or once later ops cover its
 * occurrences, ops that benchmarks share chosen before one that a single
 * benchmark needs, the savings of fixed ops measured on other runs, and
 * adaptive opcodes (rewritten at run time) kept out of n-grams.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "blocks.h"
#include "evaluate.h"
#include "facts.h"
#include "liveness.h"
#include "ngrams.h"
#include "profile_read.h"
#include "pipeline.h"
#include "propose.h"
#include "ngrams_report.h"
#include "test_ngrams_db.h"
#include "time_model.h"

static tdb db;

/* f: a counting loop.
 *    0: xconst8 x1, 7        block 0
 *    3: xconst8 x2, 1
 *    6: xlt64_s x3, x1, x2   block 1 (jump target)
 *    9: br_if_not x3, 26
 *   15: xadd64 x1, x1, x2    block 2 (after a branch)
 *   18: xadd64 x1, x1, x2
 *   21: jump 6
 *   26: ret                  block 3 (branch target, after a jump)    */
static void code_f(tcode *c)
{
    memset(c, 0, sizeof *c);
    TC1(c, T_XCONST8, 1, 7, 1);
    TC1(c, T_XCONST8, 2, 1, 1);
    TC3(c, T_XLT64_S, 3, 1, 2);
    TC1(c, T_BR_IF_NOT, 3, 26 - 9, 4);
    TC3(c, T_XADD64, 1, 1, 2);
    TC3(c, T_XADD64, 1, 1, 2);
    tc_op(c, T_JUMP, 0, NULL, 6 - 21, 4);
    TC0(c, T_RET);
}

/* g: a jump table whose entries both go to 19.
 *    0: br_table x0, [19, 19]  block 0
 *   14: heap_size x1           block 1 (after a terminator)
 *   18: ret
 *   19: ret                    block 2 (table target)              */
static void code_g(tcode *c)
{
    memset(c, 0, sizeof *c);
    TC1(c, T_BR_TABLE, 0, 2, 4);
    tc_u32(c, 19);
    tc_u32(c, 19);
    TC1(c, T_HEAP_SIZE, 1, 0, 0);
    TC0(c, T_RET);
    TC0(c, T_RET);
}

/* k: a loop run a million times, then a block run once.
 *    0: xadd64 x1, x1, x2    block 0 (branch target)
 *    3: xlt64_s x3, x1, x4
 *    6: br_if_not x3, 0
 *   12: xconst8 x5, 1        block 1 (after a branch)
 *   15: xconst8 x6, 2
 *   18: ret                                                       */
static void code_k(tcode *c)
{
    memset(c, 0, sizeof *c);
    TC3(c, T_XADD64, 1, 1, 2);
    TC3(c, T_XLT64_S, 3, 1, 4);
    TC1(c, T_BR_IF_NOT, 3, -6, 4);
    TC1(c, T_XCONST8, 5, 1, 1);
    TC1(c, T_XCONST8, 6, 2, 1);
    TC0(c, T_RET);
}

/* m: x + y inside two longer sequences, each run 100000 times, and once
 * more with a ret (x = xadd64, y = xlt64_s, z = heap_size, w = xconst8).
 *    0: br_if_not x0, 22
 *    6: br_if_not x1, 31
 *   12: x, y, z              block B1 (after a branch)
 *   22: w, x, y              block B2 (branch target)
 *   31: x, y, ret            block B3 (branch target)               */
static void code_m(tcode *c)
{
    memset(c, 0, sizeof *c);
    TC1(c, T_BR_IF_NOT, 0, 22, 4);
    TC1(c, T_BR_IF_NOT, 1, 25, 4);
    TC3(c, T_XADD64, 1, 1, 2);
    TC3(c, T_XLT64_S, 3, 1, 2);
    TC1(c, T_HEAP_SIZE, 4, 0, 0);
    TC1(c, T_XCONST8, 5, 1, 1);
    TC3(c, T_XADD64, 1, 1, 2);
    TC3(c, T_XLT64_S, 3, 1, 2);
    TC3(c, T_XADD64, 1, 1, 2);
    TC3(c, T_XLT64_S, 3, 1, 2);
    TC0(c, T_RET);
}

/* f's instructions (code_f) and how often each ran, in runs 1 and 6. */
static const uint32_t f_offs[] = {0, 3, 6, 9, 15, 18, 21, 26};
static const int64_t f_counts[] = {1, 1, 11, 11, 10, 10, 10, 1};

/* Runs 1 and 2, labelled train and test: f (and g) counted, f sampled. */
static void add_train_and_test_runs(void)
{
    tcode c;
    /* run 1, benchmark b1: exact counts */
    tdb_run(&db, 1, "train", "b1", 1);
    code_f(&c);
    tdb_function(&db, 1, 1, "f", &c);
    for (int i = 0; i < 8; i++)
        tdb_count(&db, 1, 1, f_offs[i], f_counts[i]);
    code_g(&c);
    tdb_function(&db, 1, 2, "g", &c);
    tdb_count(&db, 1, 2, 0, 5);
    tdb_count(&db, 1, 2, 19, 5);
    /* run 2, benchmark b2: samples on the same code */
    tdb_run(&db, 2, "test", "b2", 0);
    code_f(&c);
    tdb_function(&db, 2, 3, "f", &c);
    tdb_samples(&db, 2, 3, 0, 2);
    tdb_samples(&db, 2, 3, 6, 6);
    tdb_samples(&db, 2, 3, 9, 4);
    tdb_samples(&db, 2, 3, 15, 3);
    tdb_samples(&db, 2, 3, 18, 3);
    tdb_samples(&db, 2, 3, 21, 3);
}

/* Runs 3 to 5: each a function of its own, counted. */
static void add_single_function_runs(void)
{
    tcode c;
    /* run 3, benchmark b3: xadd64 x3, ret, 100 times */
    tdb_run(&db, 3, NULL, "b3", 1);
    memset(&c, 0, sizeof c);
    for (int i = 0; i < 3; i++)
        TC3(&c, T_XADD64, 1, 1, 2);
    TC0(&c, T_RET);
    tdb_function(&db, 3, 4, "h", &c);
    for (uint32_t off = 0; off <= 9; off += 3)
        tdb_count(&db, 3, 4, off, 100);
    /* run 4, benchmark b4: a hot loop and a block run once (code_k) */
    tdb_run(&db, 4, NULL, "b4", 1);
    code_k(&c);
    tdb_function(&db, 4, 5, "k", &c);
    for (uint32_t off = 0; off <= 6; off += 3)
        tdb_count(&db, 4, 5, off, 1000000);
    for (uint32_t off = 12; off <= 18; off += 3)
        tdb_count(&db, 4, 5, off, 1);
    /* run 5, benchmark b5: code_m */
    tdb_run(&db, 5, NULL, "b5", 1);
    code_m(&c);
    tdb_function(&db, 5, 6, "m", &c);
    const uint32_t m_offs[] = {0, 6, 12, 15, 18, 22, 25, 28, 31, 34, 37};
    const int64_t m_counts[] = {1, 1, 100000, 100000, 100000, 100000, 100000, 100000, 1, 1, 1};
    for (int i = 0; i < 11; i++)
        tdb_count(&db, 5, 6, m_offs[i], m_counts[i]);
}

/* Runs 6 and 7, on ISAs of their own: an adaptive opcode, a narrower form
 * of an opcode. */
static void add_runs_of_other_isas(void)
{
    tcode c;
    /* run 6, benchmark b6: run 1 again, on an ISA whose xlt64_s is adaptive */
    tdb_run(&db, 6, NULL, "b6", 1);
    code_f(&c);
    tdb_function(&db, 6, 7, "f", &c);
    for (int i = 0; i < 8; i++)
        tdb_count(&db, 6, 7, f_offs[i], f_counts[i]);
    tdb_exec(&db, "UPDATE opcodes SET flags = flags | 64 WHERE run_id = 6 AND name = 'xlt64_s'");
    /* run 7, benchmark b7: one constant added in each width, 10 times, on
     * an ISA whose xconst8 is xconst32 with a narrower immediate */
    tdb_run(&db, 7, NULL, "b7", 1);
    memset(&c, 0, sizeof c);
    uint32_t w_offs[5];
    w_offs[0] = (uint32_t)c.len, TC1(&c, T_XCONST8, 1, -7, 1);
    w_offs[1] = (uint32_t)c.len, TC3(&c, T_XADD64, 2, 2, 1);
    w_offs[2] = (uint32_t)c.len, TC1(&c, T_XCONST32, 1, 100000, 4);
    w_offs[3] = (uint32_t)c.len, TC3(&c, T_XADD64, 2, 2, 1);
    w_offs[4] = (uint32_t)c.len, TC0(&c, T_RET);
    tdb_function(&db, 7, 8, "w", &c);
    for (int i = 0; i < 5; i++)
        tdb_count(&db, 7, 8, w_offs[i], 10);
    tdb_exec(&db, "UPDATE opcodes SET wide_form = (SELECT id FROM opcodes WHERE run_id = 7 AND"
                  " name = 'xconst32') WHERE run_id = 7 AND name = 'xconst8'");
}

/* Runs 8 and 9: a hot block of their own, a cold block they share. */
static void add_hot_and_cold_runs(void)
{
    tcode c;
    /* runs 8 and 9, benchmarks b8 and b9: each a hot block (b8: two
     * constants and a ret, b9: a lone ret) a million times, and the same
     * cold block (xadd64 + xlt64_s + ret) once */
    for (int64_t run = 8; run <= 9; run++) {
        tdb_run(&db, run, NULL, run == 8 ? "b8" : "b9", 1);
        memset(&c, 0, sizeof c);
        if (run == 8) {
            TC1(&c, T_XCONST8, 1, 7, 1);
            TC1(&c, T_XCONST8, 2, 1, 1);
        }
        TC0(&c, T_RET);
        tdb_function(&db, run, 2 * run - 7, "hot", &c);
        for (uint32_t off = 0; off < c.len; off += 3)
            tdb_count(&db, run, 2 * run - 7, off, 1000000);
        memset(&c, 0, sizeof c);
        TC3(&c, T_XADD64, 1, 1, 2);
        TC3(&c, T_XLT64_S, 3, 1, 2);
        TC0(&c, T_RET);
        tdb_function(&db, run, 2 * run - 6, "cold", &c);
        for (uint32_t off = 0; off <= 6; off += 3)
            tdb_count(&db, run, 2 * run - 6, off, 1);
    }
}

/* Runs 10 and 11, which store costs. */
static void add_timed_runs(void)
{
    tcode c;
    /* runs 10 and 11, benchmarks b10 and b11, whose builds store costs:
     * b10 xadd64 x3 + ret, 100 times, with handlers of 10 and 20 machine
     * instructions; b11 xconst8 x2, xlt64_s x2, ret, 100 times, every
     * handler 6; a dispatch 5 in both */
    tdb_run(&db, 10, NULL, "b10", 1);
    memset(&c, 0, sizeof c);
    for (int i = 0; i < 3; i++)
        TC3(&c, T_XADD64, 1, 1, 2);
    TC0(&c, T_RET);
    tdb_function(&db, 10, 13, "h", &c);
    for (uint32_t off = 0; off <= 9; off += 3)
        tdb_count(&db, 10, 13, off, 100);
    tdb_run(&db, 11, NULL, "b11", 1);
    memset(&c, 0, sizeof c);
    TC1(&c, T_XCONST8, 1, 7, 1);
    TC1(&c, T_XCONST8, 2, 1, 1);
    TC3(&c, T_XLT64_S, 3, 1, 2);
    TC3(&c, T_XLT64_S, 4, 1, 2);
    TC0(&c, T_RET);
    tdb_function(&db, 11, 14, "c", &c);
    for (uint32_t off = 0; off <= 12; off += 3)
        tdb_count(&db, 11, 14, off, 100);
    tdb_exec(&db, "UPDATE opcodes SET cost = CASE name WHEN 'ret' THEN 20 ELSE 10 END"
                  " WHERE run_id = 10 AND name IN ('xadd64', 'ret')");
    tdb_exec(&db, "UPDATE opcodes SET cost = 6 WHERE run_id = 11");
    tdb_exec(&db, "UPDATE runs SET dispatch_cost = 5 WHERE id IN (10, 11)");
}

static int setup(void **state)
{
    (void)state;
    tdb_create(&db);
    add_train_and_test_runs();
    add_single_function_runs();
    add_runs_of_other_isas();
    add_hot_and_cold_runs();
    add_timed_runs();
    tdb_close(&db);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tdb_remove(&db);
    return 0;
}

static void load(an_profile *p, const char *runs)
{
    an_runsel sel;
    char err[512];
    memset(p, 0, sizeof *p);
    an_runsel_init(&sel);
    assert_int_equal(an_runsel_parse(&sel, runs, err, sizeof err), 0);
    int n = an_profile_read(p, db.path, &sel, err, sizeof err);
    if (n < 0)
        fail_msg("%s", err);
    an_normalise(p);
    for (size_t r = 0; r < p->nruns; r++)
        for (size_t f = 0; f < p->runs[r].nfuncs; f++)
            assert_int_equal(an_liveness(&p->runs[r].funcs[f]), 0);
}

static int near(double a, double b)
{
    return a > b - 1e-9 && a < b + 1e-9;
}

static int op(const an_profile *p, const char *name)
{
    for (size_t i = 0; i < p->nops; i++)
        if (strcmp(p->opnames[i], name) == 0)
            return (int)i;
    fail_msg("no opcode %s", name);
    return -1;
}

static const an_gram *gram(const an_profile *p, const an_grams *t, const char *a, const char *b,
                           const char *c)
{
    uint16_t ops[3] = {(uint16_t)op(p, a), (uint16_t)op(p, b), c ? (uint16_t)op(p, c) : 0};
    return an_grams_find(t, ops, c ? 3 : 2);
}

static void blocks_split_at_targets_and_after_branches(void **state)
{
    (void)state;
    an_profile p;
    load(&p, "1");
    assert_int_equal(p.nruns, 1);
    assert_int_equal(p.runs[0].nfuncs, 2);
    const an_func *f = &p.runs[0].funcs[0], *g = &p.runs[0].funcs[1];
    assert_int_equal(f->ninsns, 8);
    assert_int_equal(f->nblocks, 4);
    const uint32_t first_off[] = {0, 6, 15, 26}, sizes[] = {2, 2, 3, 1};
    for (int b = 0; b < 4; b++) {
        assert_int_equal(f->insns[f->blocks[b].first].off, first_off[b]);
        assert_int_equal(f->blocks[b].n, sizes[b]);
    }
    /* exact frequencies: the count of each block's first instruction */
    assert_true(f->blocks[1].freq == 11 && f->blocks[2].freq == 10 && f->blocks[3].freq == 1);
    /* the jump table, and an extended opcode decoded with the stored table */
    assert_int_equal(g->ninsns, 4);
    assert_int_equal(g->nblocks, 3);
    assert_int_equal(g->insns[1].off, 14);
    assert_int_equal(g->insns[1].op, op(&p, "heap_size"));
    assert_int_equal(g->blocks[1].n, 2);
    assert_int_equal(g->insns[g->blocks[2].first].off, 19);
    an_profile_free(&p);
}

/* Every opcode here sits in one block only, so nothing tells its cost
 * from its block's frequency: samples spread evenly over the block. */
static void samples_spread_over_the_block(void **state)
{
    (void)state;
    an_profile p;
    load(&p, "label:test");
    assert_int_equal(p.nruns, 1);
    const an_func *f = &p.runs[0].funcs[0];
    assert_true(f->blocks[0].freq == 1.0); /* (2 + 0) / 2 */
    assert_true(f->blocks[1].freq == 5.0); /* (6 + 4) / 2 */
    assert_true(f->blocks[2].freq == 3.0); /* 9 / 3 */
    assert_true(f->blocks[3].freq == 0.0);
    an_profile_free(&p);
}

/* A sample lands on an instruction in proportion to its time.  Opcode 1
 * takes four times as long as opcode 0; blocks 0 and 1 run 100 times, block
 * 2 runs 50 times.  Spreading samples evenly would make block 0 (with a
 * slow instruction) 2.5 times hotter than block 1; the costs found from
 * the blocks where both opcodes meet undo that. */
static void slow_instructions_do_not_make_their_block_hotter(void **state)
{
    (void)state;
    an_insn insns[6] = {
        {.op = 0, .block = 0, .count = 100}, {.op = 1, .block = 0, .count = 400},
        {.op = 0, .block = 1, .count = 100}, {.op = 0, .block = 1, .count = 100},
        {.op = 1, .block = 2, .count = 200}, {.op = 0, .block = 2, .count = 50}};
    an_block blocks[3] = {{.first = 0, .n = 2}, {.first = 2, .n = 2}, {.first = 4, .n = 2}};
    an_func f = {.insns = insns, .ninsns = 6, .blocks = blocks, .nblocks = 3};
    an_run run = {.funcs = &f, .nfuncs = 1};
    assert_int_equal(an_sampled_freq(&run, 2), 0);
    double unit = blocks[1].freq / 100;
    assert_true(unit > 0);
    assert_true(fabs(blocks[0].freq / unit - 100) < 2);
    assert_true(fabs(blocks[2].freq / unit - 50) < 1);
}

/* A sample at an address inside an instruction counts for it; one past
 * the code counts for none. */
static void an_address_inside_an_instruction_is_that_instruction(void **state)
{
    (void)state;
    an_insn insns[3] = {{.off = 0, .len = 3}, {.off = 3, .len = 6}, {.off = 9, .len = 1}};
    an_func f = {.insns = insns, .ninsns = 3};
    assert_int_equal(an_insn_containing(&f, 0), 0);
    assert_int_equal(an_insn_containing(&f, 2), 0);
    assert_int_equal(an_insn_containing(&f, 3), 1);
    assert_int_equal(an_insn_containing(&f, 8), 1);
    assert_int_equal(an_insn_containing(&f, 9), 2);
    assert_int_equal(an_insn_containing(&f, 10), -1);
}

static void every_benchmark_weighs_the_same(void **state)
{
    (void)state;
    an_profile p;
    load(&p, "1,2");
    assert_int_equal(p.nbenches, 2);
    assert_true(near(an_total_weight(&p), 2));
    /* run 1: 65 instructions ran; its loop test block ran 11 times */
    assert_true(p.runs[0].total == 65.0);
    double w = p.runs[0].funcs[0].blocks[1].weight;
    assert_true(near(w, 11.0 / 65));
    an_profile_free(&p);
}

/* A sampled share is known to a binomial interval; with several
 * benchmarks weighing the same, from the harmonic mean of their samples. */
static void sampled_shares_have_a_binomial_interval(void **state)
{
    (void)state;
    an_insn few[1] = {{.count = 100}}, many[2] = {{.count = 100}, {.count = 200}};
    an_func f1 = {.insns = few, .ninsns = 1}, f2 = {.insns = many, .ninsns = 2};
    an_run runs[2] = {{.bench = 0, .funcs = &f1, .nfuncs = 1}, {.bench = 1, .funcs = &f2, .nfuncs = 1}};
    an_profile p = {.runs = runs, .nruns = 2, .nbenches = 2};
    assert_int_equal(an_profile_shares(&p), AN_SHARES_SAMPLED);
    assert_true(near(an_profile_effective_samples(&p), 4.0 / (1.0 / 100 + 1.0 / 300)));
    assert_true(near(an_share_halfwidth(0.5, 100), 1.96 * 0.05));
    assert_true(an_share_halfwidth(0.5, 400) < an_share_halfwidth(0.5, 100));
    assert_true(an_share_halfwidth(0, 100) == 0 && an_share_halfwidth(0.5, 0) == 0);
    /* Exact counts have no sampling error; mixed shares are neither. */
    runs[1].exact = 1;
    assert_int_equal(an_profile_shares(&p), AN_SHARES_MIXED);
    assert_true(an_profile_effective_samples(&p) == 0);
    runs[0].exact = 1;
    assert_int_equal(an_profile_shares(&p), AN_SHARES_EXACT);
    assert_true(an_profile_effective_samples(&p) == 0);
    /* A benchmark with no sample makes the interval unknown, not tight. */
    runs[0].exact = runs[1].exact = 0;
    few[0].count = 0;
    assert_true(an_profile_effective_samples(&p) == 0);
}

static void ngram_counts_are_exact_and_stay_in_blocks(void **state)
{
    (void)state;
    an_profile p;
    an_grams t = {0};
    load(&p, "1");
    assert_int_equal(an_mine(&p, 4, 0, &t), 0);
    assert_int_equal(t.len, 6);
    const an_gram *g = gram(&p, &t, "xlt64_s", "br_if_not", NULL);
    assert_non_null(g);
    assert_true(g->count == 11 && g->statics == 1 && g->funcs == 1 && g->benches == 1);
    assert_true(gram(&p, &t, "xadd64", "xadd64", NULL)->count == 10);
    assert_true(gram(&p, &t, "xadd64", "xadd64", "jump")->count == 10);
    assert_true(gram(&p, &t, "xconst8", "xconst8", NULL)->count == 1);
    g = gram(&p, &t, "heap_size", "ret", NULL);
    assert_true(g->count == 0 && g->statics == 1 && g->funcs == 0);
    assert_null(gram(&p, &t, "xconst8", "xlt64_s", NULL));  /* spans a branch target */
    assert_null(gram(&p, &t, "br_if_not", "xadd64", NULL)); /* branch not last */
    an_grams_free(&t);
    an_profile_free(&p);
}

static void pattern_of(const an_profile *p, an_grams *t, const char *a, const char *b, char *buf)
{
    an_gram *g = (an_gram *)gram(p, t, a, b, NULL);
    an_facts facts;
    assert_int_equal(an_facts_collect(p, t, &g, 1, &facts), 0);
    an_facts_pattern(&facts, 2, buf, 256);
}

static void operand_facts(void **state)
{
    (void)state;
    an_profile p;
    an_grams t = {0};
    char pat[256];
    load(&p, "1");
    assert_int_equal(an_mine(&p, 4, 0, &t), 0);
    pattern_of(&p, &t, "xconst8", "xconst8", pat);
    assert_string_equal(pat, "1.imm:u8, 1.imm=7, 2.imm:u8, 2.imm=1");
    /* x1 written by the first add, read as b by the second, overwritten */
    pattern_of(&p, &t, "xadd64", "xadd64", pat);
    assert_string_equal(pat, "1.a>2.b dead");
    /* x3 reaches a ret on the exit path, which may read any register */
    pattern_of(&p, &t, "xlt64_s", "br_if_not", pat);
    assert_string_equal(pat, "1.a>2.a live");
    an_grams_free(&t);
    an_profile_free(&p);
}

/* xadd64 x3 + ret: the pair xadd64+xadd64 occurs twice per run but a cover
 * can use it once, so it saves 1 dispatch of 4, not 2. */
static void set_saving_counts_overlaps_once(void **state)
{
    (void)state;
    an_profile p;
    an_grams t = {0};
    an_proposal props[4];
    load(&p, "3");
    assert_int_equal(an_mine(&p, 2, 0, &t), 0);
    assert_true(near(gram(&p, &t, "xadd64", "xadd64", NULL)->weight, 0.5));
    an_choice choice = {.k = 4, .pool = 64, .min_saving = AN_MIN_SAVING};
    assert_int_equal(an_propose(&p, &t, &choice, props), 2);
    assert_int_equal(props[0].gram->ops[1], op(&p, "xadd64"));
    assert_true(near(props[0].saving, 0.25) && near(props[0].cumulative, 0.25));
    assert_int_equal(props[1].gram->ops[1], op(&p, "ret"));
    assert_true(near(props[1].saving, 0.25) && near(props[1].cumulative, 0.5));
    assert_int_equal(props[0].benches, 1);
    assert_string_equal(p.runs[0].funcs[props[0].where[0].func].name, "h");
    assert_int_equal(props[0].where[0].off, 0);
    an_grams_free(&t);
    an_profile_free(&p);
}

/* The text report of proposals r on profile p (free it). */
static char *report_text(const an_profile *p, const an_proposals *r)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    assert_non_null(out);
    an_report rep = {.p = p, .total = r->total, .props = r->props, .prop_facts = r->facts,
                     .nprops = r->n, .choice = &r->choice};
    an_report_print(out, &rep, AN_TEXT);
    assert_int_equal(fclose(out), 0);
    return text;
}

/* In k only the loop's xadd64 + xlt64_s + br_if_not saves a share worth
 * an opcode: 2 of every 3 dispatches.  Its parts then save nothing, and
 * the block run once saves 2 dispatches in 3000003.  So 1 op of the 4
 * asked for, and the output says why; with no minimum, 2 (never one
 * that saves nothing). */
static void ops_that_save_nothing_are_not_proposed(void **state)
{
    (void)state;
    an_profile p;
    an_proposals r;
    load(&p, "4");
    an_proposals_opts o = {.max_n = 4, .top = 4, .min_saving = AN_MIN_SAVING};
    assert_int_equal(an_proposals_compute(&p, &o, &r), 0);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.props[0].gram->n, 3);
    assert_int_equal(r.props[0].gram->ops[0], op(&p, "xadd64"));
    assert_int_equal(r.props[0].gram->ops[2], op(&p, "br_if_not"));
    assert_true(near(r.props[0].saving, 2000000.0 / 3000003));
    /* 6 n-grams ran, 3 in each block; all 6 were candidates */
    assert_int_equal(r.choice.executed, 6);
    assert_int_equal(r.choice.candidates, 6);
    char note[512];
    an_choice_note(&r.choice, r.n, note, sizeof note);
    assert_string_equal(note, "Only 1 of the 4 macro ops asked for saves at least 0.01% of all "
                              "dispatches: the other 5 candidates considered save less, or nothing "
                              "beside the ops chosen.");
    /* The text report carries the note. */
    char *text = report_text(&p, &r);
    assert_non_null(strstr(text, "Proposed macro ops: 1, removing 66.67% of all dispatches"));
    assert_non_null(strstr(text, "\nOnly 1 of the 4 macro ops asked for saves at least 0.01%"));
    free(text);
    an_proposals_free(&r);

    /* No minimum: the block run once is proposed too, and still nothing
     * that saves nothing. */
    o.min_saving = 0;
    assert_int_equal(an_proposals_compute(&p, &o, &r), 0);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.props[1].gram->ops[0], op(&p, "xconst8"));
    assert_int_equal(r.props[1].gram->n, 3);
    assert_true(near(r.props[1].saving, 2.0 / 3000003));
    for (size_t k = 0; k < r.n; k++)
        assert_true(r.props[k].saving > 0);
    an_choice_note(&r.choice, r.n, note, sizeof note);
    assert_string_equal(note, "Only 2 of the 4 macro ops asked for remove any dispatch: the other 4 "
                              "candidates considered save nothing beside the ops chosen.");
    an_proposals_free(&r);

    /* Asking for no more than there are: no note. */
    o.top = 1;
    o.min_saving = AN_MIN_SAVING;
    assert_int_equal(an_proposals_compute(&p, &o, &r), 0);
    assert_int_equal(r.n, 1);
    an_choice_note(&r.choice, r.n, note, sizeof note);
    assert_string_equal(note, "");
    an_proposals_free(&r);
    an_profile_free(&p);
}

static int is_gram(const an_profile *p, const an_gram *g, const char *a, const char *b,
                   const char *c)
{
    return g->n == (c ? 3 : 2) && g->ops[0] == op(p, a) && g->ops[1] == op(p, b) &&
           (!c || g->ops[2] == op(p, c));
}

/* In m, x + y saves the most alone (200001 dispatches of 600005) and is
 * chosen first; w + x + y and x + y + z then take all its hot
 * occurrences, leaving it 1 dispatch: it is dropped and the two others
 * are reported with their savings without it.  With no minimum it is
 * dropped all the same once x + y + ret covers its last occurrence. */
static void ops_made_useless_by_later_ones_are_dropped(void **state)
{
    (void)state;
    an_profile p;
    an_grams t = {0};
    an_proposal props[5];
    load(&p, "5");
    assert_int_equal(p.runs[0].funcs[0].nblocks, 5);
    assert_int_equal(an_mine(&p, 3, 0, &t), 0);
    const double total = 600005;
    an_choice choice = {.k = 4, .pool = 64, .min_saving = AN_MIN_SAVING};
    assert_int_equal(an_propose(&p, &t, &choice, props), 2);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(props[k].gram->n, 3);
        assert_true(near(props[k].saving, 200000 / total));
        assert_int_equal(props[k].benches, 1);
    }
    assert_true(is_gram(&p, props[0].gram, "xadd64", "xlt64_s", "heap_size") ||
                is_gram(&p, props[0].gram, "xconst8", "xadd64", "xlt64_s"));
    assert_true(near(props[1].cumulative, 400000 / total));
    /* its place: where B2 or B1 starts */
    uint32_t at = props[0].gram->ops[0] == op(&p, "xconst8") ? 22 : 12;
    assert_int_equal(props[0].where[0].off, at);

    choice.min_saving = 0;
    assert_int_equal(an_propose(&p, &t, &choice, props), 3);
    assert_true(near(props[0].saving, 200000 / total) && near(props[1].saving, 200000 / total));
    assert_true(is_gram(&p, props[2].gram, "xadd64", "xlt64_s", "ret"));
    assert_true(near(props[2].saving, 2 / total));
    assert_true(near(props[2].cumulative, 400002 / total));
    an_grams_free(&t);
    an_profile_free(&p);
}

/* Benchmarks b1 (f: 65 dispatches) and b3 (xadd64 x3 + ret, 400), each
 * weighing 1.  xadd64 + xadd64 saves 10/65 of b1 and 100/400 of b3: 0.40
 * in all.  A 3-gram of b3 (xadd64 + xadd64 + xadd64 or + ret) saves
 * 200/400 = 0.5, of b3 alone.  By total saving that one is the first op;
 * by the default objective, the op both benchmarks share. */
static void the_default_objective_prefers_ops_that_benchmarks_share(void **state)
{
    (void)state;
    an_profile p;
    an_proposals r;
    load(&p, "1,3");
    assert_int_equal(p.nbenches, 2);
    an_proposals_opts o = {.max_n = 3, .top = 1, .min_saving = AN_MIN_SAVING,
                           .objective = AN_OBJECTIVE_TOTAL};
    assert_int_equal(an_proposals_compute(&p, &o, &r), 0);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.props[0].gram->n, 3);
    assert_int_equal(r.props[0].benches, 1);
    assert_true(near(r.props[0].saving, 0.5));
    an_proposals_free(&r);

    o.objective = AN_OBJECTIVE_SHARED;
    assert_int_equal(an_proposals_compute(&p, &o, &r), 0);
    assert_int_equal(r.n, 1);
    assert_true(is_gram(&p, r.props[0].gram, "xadd64", "xadd64", NULL));
    assert_int_equal(r.props[0].benches, 2);
    assert_true(near(r.props[0].saving, 10.0 / 65 + 0.25));
    /* The text report says how the ops were chosen. */
    char *text = report_text(&p, &r);
    assert_non_null(strstr(text, "\nOps are chosen by the dispatches they remove, an op that one "
                                 "benchmark alone needs ranking below those several share "
                                 "(--objective shared).\n"));
    free(text);
    an_proposals_free(&r);

    /* Once no candidate left is shared, the saving decides. */
    o.top = 2;
    assert_int_equal(an_proposals_compute(&p, &o, &r), 0);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.props[1].gram->n, 3);
    assert_true(near(r.props[1].saving, 0.25));
    an_proposals_free(&r);
    an_profile_free(&p);
}

/* In b8 and b9 the op both share (the cold xadd64 + xlt64_s) removes
 * about 1e-6 of the dispatches, under the minimum; the op b8 alone needs
 * (xconst8 + xconst8 + ret) removes a third.  The default objective judges
 * the shared op better, but it must neither be chosen nor end the choice:
 * the op that saves enough is returned. */
static void a_candidate_under_the_minimum_never_ends_the_choice(void **state)
{
    (void)state;
    an_profile p;
    an_proposals r;
    load(&p, "8,9");
    an_proposals_opts o = {.max_n = 3, .top = 4, .min_saving = AN_MIN_SAVING};
    for (int objective = 0; objective < 2; objective++) {
        o.objective = objective ? AN_OBJECTIVE_TOTAL : AN_OBJECTIVE_SHARED;
        assert_int_equal(an_proposals_compute(&p, &o, &r), 0);
        assert_int_equal(r.n, 1);
        assert_true(is_gram(&p, r.props[0].gram, "xconst8", "xconst8", "ret"));
        assert_true(near(r.props[0].saving, 2000000.0 / 3000003)); /* b8 weighs 1 */
        assert_true(near(r.props[0].cumulative, 2000000.0 / 3000003 / 2));
        an_proposals_free(&r);
    }
    an_profile_free(&p);
}

/* Whatever the objective and the minimum, the choice returns ops whose
 * savings are their true marginal savings in the order given: measured
 * again op by op (as --evaluate does), they add up to the set's share. */
static void reported_savings_are_what_evaluating_the_set_measures(void **state)
{
    (void)state;
    an_profile p;
    an_proposals r;
    load(&p, "1,3,5,8,9");
    for (int objective = 0; objective < 2; objective++)
        for (int min = 0; min < 2; min++) {
            an_proposals_opts o = {.max_n = 3, .top = 8, .min_saving = min ? AN_MIN_SAVING : 0,
                                   .objective = objective ? AN_OBJECTIVE_TOTAL
                                                          : AN_OBJECTIVE_SHARED};
            assert_int_equal(an_proposals_compute(&p, &o, &r), 0);
            assert_true(r.n >= 4);
            fu_pattern set[8];
            double marginal[8], sum = 0;
            for (size_t k = 0; k < r.n; k++)
                set[k] = r.props[k].shape.pattern;
            assert_int_equal(an_evaluate(&p, set, r.n, marginal, NULL, NULL), 0);
            for (size_t k = 0; k < r.n; k++) {
                assert_true(near(marginal[k], r.props[k].saving));
                assert_true(r.props[k].saving >= o.min_saving * r.total && r.props[k].saving > 0);
                sum += marginal[k];
            }
            assert_true(near(sum / r.total, r.props[r.n - 1].cumulative));
            an_proposals_free(&r);
        }
    an_profile_free(&p);
}

/* Where the builds store costs, a dispatch removed saves the dispatch
 * cost out of the benchmark's time: xadd64 + xadd64 removes 1 of b10's 4
 * dispatches a pass, 5 of its 50 machine instructions.  Runs without
 * costs leave the profile without a time model. */
static void the_time_saved_is_the_dispatch_cost_out_of_the_time(void **state)
{
    (void)state;
    an_profile p;
    load(&p, "10");
    assert_true(an_profile_timed(&p));
    uint16_t add = (uint16_t)op(&p, "xadd64");
    fu_pattern set[] = {{.n = 2, .op = {add, add}}};
    double marginal[1], time_marginal[1];
    an_bench_saving per_bench[1];
    assert_int_equal(an_evaluate(&p, set, 1, marginal, time_marginal, per_bench), 0);
    assert_true(near(marginal[0], 0.25));
    assert_true(near(time_marginal[0], 5.0 / 50));
    assert_true(near(per_bench[0].time_share, 5.0 / 50));
    an_profile_free(&p);

    load(&p, "3,10");
    assert_false(an_profile_timed(&p));
    an_profile_free(&p);
}

/* By dispatches b10's pairs save the most (1 of 4 a pass, against 1 of
 * 5 in b11), by time b11's (5 of 30 machine instructions, against 5 of
 * 50): --objective time chooses the op that saves the most time. */
static void the_time_objective_chooses_by_predicted_time(void **state)
{
    (void)state;
    an_profile p;
    an_proposals r;
    load(&p, "10,11");
    an_proposals_opts o = {.max_n = 2, .top = 1, .min_saving = AN_MIN_SAVING,
                           .objective = AN_OBJECTIVE_TOTAL};
    assert_int_equal(an_proposals_compute(&p, &o, &r), 0);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.props[0].gram->ops[0], op(&p, "xadd64"));
    assert_true(near(r.props[0].time_cumulative, 5.0 / 50 / 2));
    an_proposals_free(&r);
    o.objective = AN_OBJECTIVE_TIME;
    assert_int_equal(an_proposals_compute(&p, &o, &r), 0);
    assert_int_equal(r.n, 1);
    assert_int_not_equal(r.props[0].gram->ops[0], op(&p, "xadd64"));
    assert_true(near(r.props[0].saving, 0.2));
    assert_true(near(r.props[0].time_saving, 5.0 / 30));
    assert_true(near(r.props[0].time_cumulative, 5.0 / 30 / 2));
    an_proposals_free(&r);
    an_profile_free(&p);
}

/* The same ops measured on a profile, op by op (as for --test). */
static void evaluate_fixed_ops(void **state)
{
    (void)state;
    an_profile p;
    load(&p, "3");
    uint16_t add = (uint16_t)op(&p, "xadd64");
    fu_pattern set[] = {{.n = 2, .op = {add, add}}, {.n = 3, .op = {add, add, add}}};
    double marginal[2];
    assert_int_equal(an_evaluate(&p, set, 2, marginal, NULL, NULL), 0);
    assert_true(near(marginal[0], 0.25)); /* 4 -> 3 dispatches */
    assert_true(near(marginal[1], 0.25)); /* 3 -> 2 */
    an_profile_free(&p);
}

/* An instruction the interpreter rewrites as it runs cannot be part of a
 * fixed macro op: no n-gram holds xlt64_s unless it is asked for, and the
 * choice says how much of the run such opcodes are. */
static void adaptive_opcodes_are_in_no_ngram_unless_asked(void **state)
{
    (void)state;
    an_profile p;
    an_grams t = {0};
    load(&p, "6");
    assert_int_equal(an_mine(&p, 4, 0, &t), 0);
    assert_null(gram(&p, &t, "xlt64_s", "br_if_not", NULL));
    assert_null(gram(&p, &t, "xconst8", "xlt64_s", NULL));
    assert_true(gram(&p, &t, "xadd64", "xadd64", "jump")->count == 10);
    assert_int_equal(t.len, 4); /* xconst8 xconst8; xadd64 xadd64 (jump); xadd64 jump */
    an_grams_free(&t);
    assert_int_equal(an_mine(&p, 4, 1, &t), 0);
    assert_true(gram(&p, &t, "xlt64_s", "br_if_not", NULL)->count == 11);
    an_grams_free(&t);

    size_t nops;
    double share;
    assert_int_equal(an_adaptive_ran(&p, &nops, &share), 0);
    assert_int_equal(nops, 1);
    assert_true(near(share, 11.0 / 55)); /* 11 of the 55 instructions run */
    an_proposals res;
    an_proposals_opts o = {.max_n = 2, .top = 4, .min_saving = AN_MIN_SAVING};
    assert_int_equal(an_proposals_compute(&p, &o, &res), 0);
    for (size_t k = 0; k < res.n; k++)
        assert_int_not_equal(res.props[k].gram->ops[0], op(&p, "xlt64_s"));
    char note[512];
    an_adaptive_note(&res.choice, note, sizeof note);
    assert_non_null(strstr(note, "1 adaptive opcode (rewritten"));
    assert_non_null(strstr(note, "20.00% of the dispatches: in no n-gram"));
    an_proposals_free(&res);
    an_profile_free(&p);
}

/* A narrow form is its wide form in n-grams and proposals: the two
 * constants make one n-gram, and the op chosen names the wide form. */
static void narrow_forms_are_mined_as_their_wide_form(void **state)
{
    (void)state;
    an_profile p;
    an_grams t = {0};
    load(&p, "7");
    assert_int_equal(an_mine(&p, 2, 0, &t), 0);
    assert_true(gram(&p, &t, "xconst32", "xadd64", NULL)->count == 20);
    assert_null(gram(&p, &t, "xconst8", "xadd64", NULL));
    an_grams_free(&t);
    an_proposals res;
    an_proposals_opts o = {.max_n = 2, .top = 1, .min_saving = AN_MIN_SAVING};
    assert_int_equal(an_proposals_compute(&p, &o, &res), 0);
    assert_int_equal(res.n, 1);
    assert_string_equal(res.props[0].shape.macro.part[0].op, "xconst32");
    assert_true(near(res.props[0].cumulative, 20.0 / 50)); /* both pairs fuse */
    an_proposals_free(&res);
    an_profile_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(blocks_split_at_targets_and_after_branches),
        cmocka_unit_test(samples_spread_over_the_block),
        cmocka_unit_test(slow_instructions_do_not_make_their_block_hotter),
        cmocka_unit_test(an_address_inside_an_instruction_is_that_instruction),
        cmocka_unit_test(every_benchmark_weighs_the_same),
        cmocka_unit_test(sampled_shares_have_a_binomial_interval),
        cmocka_unit_test(ngram_counts_are_exact_and_stay_in_blocks),
        cmocka_unit_test(operand_facts),
        cmocka_unit_test(set_saving_counts_overlaps_once),
        cmocka_unit_test(ops_that_save_nothing_are_not_proposed),
        cmocka_unit_test(ops_made_useless_by_later_ones_are_dropped),
        cmocka_unit_test(the_default_objective_prefers_ops_that_benchmarks_share),
        cmocka_unit_test(a_candidate_under_the_minimum_never_ends_the_choice),
        cmocka_unit_test(reported_savings_are_what_evaluating_the_set_measures),
        cmocka_unit_test(the_time_saved_is_the_dispatch_cost_out_of_the_time),
        cmocka_unit_test(the_time_objective_chooses_by_predicted_time),
        cmocka_unit_test(evaluate_fixed_ops),
        cmocka_unit_test(adaptive_opcodes_are_in_no_ngram_unless_asked),
        cmocka_unit_test(narrow_forms_are_mined_as_their_wide_form),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
