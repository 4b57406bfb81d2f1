/*
 * test_foreign_isa.c - a profile of an instruction set that is not
 * Pulley's, written through the public library (pulley/profile.h) and read
 * by the analysis (profile_read.h) from the stored instruction rows alone:
 * the library checks the opcode table it is given, stores each
 * instruction's operands and branch targets as the ISA's decoder reports
 * them, and the analysis builds instructions, edges and blocks from those
 * rows, following registers of every kind the table declares, numbered
 * as high as the interpreter numbers them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include <pulley/profile.h>

#include "profile_model.h"
#include "profile_read.h"
#include "run_select.h"

/* A register machine with one-byte register fields:
 *   0 mov  x[a] = x[b]          (3 bytes)
 *   1 addi x[a] = x[b] + imm8   (4 bytes)
 *   2 bnz  if x[a]: pc += rel8  (3 bytes)
 *   3 vld  v[a] = mem[x[b]]     (3 bytes; v registers: another class)
 *   4 ret                        (1 byte) */
static const pulleyprof_opcode ops[] = {
    {.id = 0, .name = "mov", .operands = "x x", .roles = "w r", .length = 3},
    {.id = 1, .name = "addi", .operands = "x x s8", .roles = "w r", .length = 4},
    {.id = 2, .name = "bnz", .operands = "x rel32", .roles = "r", .length = 3,
     .flags = PULLEYPROF_BRANCH},
    {.id = 3, .name = "vld", .operands = "v x", .roles = "w r", .length = 3},
    {.id = 4, .name = "ret", .length = 1, .flags = PULLEYPROF_TERMINATOR | PULLEYPROF_RETURN},
};
static const unsigned nregs_of[] = {2, 2, 1, 2, 0};

static int decode(const void *ctx, const uint8_t *code, size_t size, size_t off,
                  pulleyprof_insn *in)
{
    (void)ctx;
    unsigned op = code[off];
    if (op > 4 || off + ops[op].length > size)
        return -1;
    in->opcode = op;
    in->length = ops[op].length;
    in->nregs = nregs_of[op];
    for (unsigned i = 0; i < in->nregs; i++)
        in->regs[i] = code[off + 1 + i];
    if (op == 1 || op == 2) {
        in->nimms = 1;
        in->imms[0] = (int8_t)code[off + 1 + in->nregs];
    }
    if (op == 2)
        return pulleyprof_insn_add_target(in, (uint32_t)((int64_t)off + in->imms[0]));
    return 0;
}

static const pulleyprof_isa isa = {.name = "foreign", .opcodes = ops, .nopcodes = 5,
                                   .decode = decode};

/* 0: mov x1, x2; 3: addi x1, x1, -1; 7: vld v3, x1; 10: mov x40, x1;
 * 13: bnz x1, -10 (to 3); 16: ret; 17: a byte that is no instruction. */
static const uint8_t code[] = {0, 1, 2, 1, 1, 1, 0xff, 3, 3, 1, 0, 40, 1, 2, 1, (uint8_t)-10,
                               4, 9};

static char db_path[64];

static int setup(void **state)
{
    (void)state;
    snprintf(db_path, sizeof db_path, "/tmp/test_foreign_isa_%d.db", (int)getpid());
    unlink(db_path);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(db_path);
    return 0;
}

/* Write one exact run: every instruction counted once, the loop edge. */
static void write_run(void)
{
    char err[512];
    pulleyprof_config cfg = {.db_path = db_path, .isa = &isa, .benchmark = "foreign", .exact = 1};
    pulleyprof_agent *a = pulleyprof_open(&cfg, err, sizeof err);
    if (!a)
        fail_msg("%s", err);
    int m = pulleyprof_register_module(a, "m", NULL);
    int f = pulleyprof_register_function(a, m, 0, "loop", 0x1000, code, sizeof code);
    assert_true(f >= 0);
    const uint32_t offs[] = {0, 3, 7, 10, 13, 16};
    for (size_t i = 0; i < sizeof offs / sizeof *offs; i++)
        assert_int_equal(pulleyprof_add_exec_count(a, f, offs[i], i == 0 || i == 5 ? 1 : 5), 0);
    assert_int_equal(pulleyprof_add_edge_count(a, f, 13, 3, 4), 0);
    pulleyprof_set_outcome(a, "return", 0);
    pulleyprof_summary s;
    assert_int_equal(pulleyprof_close(a, &s, err, sizeof err), 0);
    assert_int_equal(s.functions_cut_short, 1); /* the stray byte at 17 */
    assert_int_equal(s.executed, 22);
}

static void the_library_refuses_a_table_that_is_not_one(void **state)
{
    (void)state;
    pulleyprof_opcode twice[] = {{.id = 1, .name = "a", .length = 1}, {.id = 1, .name = "b", .length = 1}};
    pulleyprof_opcode bad_role[] = {{.id = 0, .name = "a", .roles = "w x", .length = 1}};
    pulleyprof_opcode no_name[] = {{.id = 0, .length = 1}};
    pulleyprof_opcode unknown_flag[] = {{.id = 0, .name = "a", .length = 1, .flags = 128}};
    pulleyprof_opcode no_wide[] = {{.id = 0, .name = "a", .length = 2, .wide_form = "b"}};
    pulleyprof_opcode unlike_wide[] = {
        {.id = 0, .name = "c8", .operands = "x s8", .roles = "w", .length = 3, .wide_form = "c32"},
        {.id = 1, .name = "c32", .operands = "x s32", .roles = "r", .length = 6}};
    pulleyprof_opcode negative_cost[] = {{.id = 0, .name = "a", .length = 1, .cost = -1}};
    pulleyprof_opcode nan_cost[] = {{.id = 0, .name = "a", .length = 1, .cost = NAN}};
    pulleyprof_opcode ok[] = {{.id = 0, .name = "a", .length = 1, .cost = 9}};
    pulleyprof_part part = {.opcode = 7, .regs = "", .imms = ""};
    pulleyprof_opcode dangling[] = {{.id = 0, .name = "m", .length = 1, .flags = PULLEYPROF_MACRO,
                                     .parts = (pulleyprof_part[]){part, part}, .nparts = 2}};
    struct {
        pulleyprof_opcode *rows;
        size_t n;
        const char *why;
    } cases[] = {{twice, 2, "its id is also another row's"},
                 {negative_cost, 1, "a cost that is negative, above 1e9 or not a number"},
                 {nan_cost, 1, "a cost that is negative, above 1e9 or not a number"},
                 {bad_role, 1, "a role is not r, w or rw"},
                 {no_name, 1, "it has no name"},
                 {unknown_flag, 1, "flags that are not PULLEYPROF_ flags"},
                 {dangling, 1, "a part is no other row of the table"},
                 {no_wide, 1, "its wide_form names no other row of the table"},
                 {unlike_wide, 2, "its wide_form differs in roles"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        pulleyprof_isa bad = {.name = "bad", .opcodes = cases[i].rows, .nopcodes = cases[i].n};
        pulleyprof_config cfg = {.db_path = db_path, .isa = &bad};
        char err[512] = "";
        assert_null(pulleyprof_open(&cfg, err, sizeof err));
        if (!strstr(err, cases[i].why))
            fail_msg("case %zu: %s", i, err);
        assert_int_equal(access(db_path, F_OK), -1); /* nothing written */
    }
    /* A good row in a set whose dispatch cost is no cost. */
    pulleyprof_isa bad = {.name = "bad", .opcodes = ok, .nopcodes = 1, .dispatch_cost = -3};
    pulleyprof_config cfg = {.db_path = db_path, .isa = &bad};
    char err[512] = "";
    assert_null(pulleyprof_open(&cfg, err, sizeof err));
    assert_non_null(strstr(err, "a dispatch_cost that is negative, above 1e9 or not a number"));
    assert_int_equal(access(db_path, F_OK), -1);
}

static void the_rows_carry_operands_and_targets(void **state)
{
    (void)state;
    write_run();
    sqlite3 *db;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT group_concat(offset || ':' || text || ':' || regs"
                                        " || ':' || imms || ':' || targets, ' ') FROM"
                                        " (SELECT * FROM instructions ORDER BY offset)",
                                        -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0),
                        "0:mov:1 2:: 3:addi:1 1:-1: 7:vld:3 1:: 10:mov:40 1:: 13:bnz:1:-10:3"
                        " 16:ret:::");
    sqlite3_finalize(st);
    sqlite3_close(db);
}

static void the_analysis_reads_the_rows_alone(void **state)
{
    (void)state;
    write_run();
    an_profile p = {0};
    an_runsel sel;
    an_runsel_init(&sel);
    char err[512];
    char *paths[] = {db_path};
    if (an_profile_read_all(&p, paths, 1, &sel, err, sizeof err) != 1)
        fail_msg("%s", err);
    assert_true(p.runs[0].operands_stored);
    const an_func *f = &p.runs[0].funcs[0];
    assert_int_equal(f->ninsns, 6);
    /* Blocks: [mov], [addi vld mov bnz] (the loop, target 3), [ret]. */
    assert_int_equal(f->nblocks, 3);
    assert_int_equal(f->blocks[1].first, 1);
    assert_int_equal(f->nedges, 1);
    assert_int_equal(f->edges[0].to, 3);
    /* Registers of every kind the table declares, numbered as high as the
     * interpreter numbers them, are followed: the function's ids name
     * them (x1 is one id wherever it is named; v3 and x40 have their own). */
    const an_insn *in = f->insns;
    assert_int_equal(in[1].nregs, 2);
    assert_true(in[1].reg[0] == in[0].reg[0] && in[1].reg[1] == in[0].reg[0]); /* x1 */
    assert_int_equal(in[1].imm, -1);
    assert_int_equal(in[2].nregs, 2);
    assert_int_equal(f->regs[in[2].reg[0]].number, 3);
    assert_string_equal(p.kinds[f->regs[in[2].reg[0]].kind], "v");
    assert_true(in[2].reg[1] == in[0].reg[0] && in[2].defs == 1);
    assert_int_equal(in[3].nregs, 2);
    assert_int_equal(f->regs[in[3].reg[0]].number, 40);
    assert_string_equal(p.kinds[f->regs[in[3].reg[0]].kind], "x");
    assert_int_equal(f->nregs, 4); /* x1 x2 v3 x40 */
    assert_int_equal(p.runs[0].unanalysed, 0);
    assert_int_equal((int)f->insns[4].count, 5);
    an_profile_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(the_library_refuses_a_table_that_is_not_one, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(the_rows_carry_operands_and_targets, setup, teardown),
        cmocka_unit_test_setup_teardown(the_analysis_reads_the_rows_alone, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
