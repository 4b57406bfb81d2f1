/*
 * test_registers.c - the registers of an outside instruction set as the
 * analysis sees them: any kind the opcode table declares, numbered as high
 * as the interpreter numbers them, each a register id of its function;
 * windows of registers an opcode reads or writes implicitly (Lua's CONCAT
 * reads R[A] .. R[A+B-1]; LOADNIL writes R[A] .. R[A+B]) taking part in
 * liveness; instructions whose registers cannot be named taken to read
 * every register.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "blocks.h"
#include "insn_build.h"
#include "isa_table.h"
#include "liveness.h"
#include "regs.h"

/* A Lua-like table (code in another encoding: reg_bits 0, rows declared). */
enum { LOADK, LOADKK, MOVE, ADD, CONCAT, LOADNIL, OPAQUE, HALT };

static void lua_like_table(an_isa *isa, an_profile *p)
{
    static const struct {
        const char *name, *operands, *roles;
        int flags;
    } rows[] = {
        [LOADK] = {"LOADK", "r u32", "w", 0},     [LOADKK] = {"LOADKK", "k u32", "w", 0},
        [MOVE] = {"MOVE", "r r", "w r", 0},       [ADD] = {"ADD", "r r r", "w r r", 0},
        [CONCAT] = {"CONCAT", "r u32", "w", 0},   [LOADNIL] = {"LOADNIL", "r u32", "w", 0},
        [OPAQUE] = {"OPAQUE", "", "r", 0},        [HALT] = {"HALT", "", "", AN_TERM},
    };
    char err[256];
    for (int id = 0; id <= HALT; id++)
        if (an_isa_add(isa, p, id, rows[id].name, rows[id].operands, 0, 0, rows[id].flags,
                       rows[id].roles, err, sizeof err) != 0)
            fail_msg("%s", err);
    /* CONCAT A B reads R[A] .. R[A+B-1] (B = 0: to the top); LOADNIL A B
     * writes R[A] .. R[A+B]. */
    if (an_isa_add_range(isa, CONCAT, AN_READS, 0, 0, 0, 0, 1, err, sizeof err) != 0 ||
        an_isa_add_range(isa, LOADNIL, AN_WRITES, 0, 0, 0, 1, 0, err, sizeof err) != 0)
        fail_msg("%s", err);
}

/* f: the instructions of text ("OP REGS / IMMS" per line, one a line). */
typedef struct fn {
    an_func f;
    an_fbuild b;
} fn;

static void add(fn *w, const an_isa *isa, int op, const char *regs, const char *imms)
{
    an_func *f = &w->f;
    f->insns = realloc(f->insns, (f->ninsns + 1) * sizeof *f->insns);
    assert_non_null(f->insns);
    const char *why = NULL;
    int rc = an_insn_from_row(isa, &w->b, f->ninsns, 1, op, regs, imms, "",
                              &f->insns[f->ninsns], NULL, NULL, &why);
    if (rc != 0)
        fail_msg("row %u: %s", f->ninsns, why ? why : "out of memory");
    f->ninsns++;
}

/* The liveness after each instruction of a one-block function. */
static an_regset *live_after(fn *w)
{
    assert_int_equal(an_split_blocks(&w->f), 0);
    assert_int_equal(w->f.nblocks, 1);
    assert_int_equal(an_liveness(&w->f), 0);
    an_regset *live = calloc(w->f.ninsns, sizeof *live);
    assert_non_null(live);
    an_block_live_after(&w->f, 0, live);
    return live;
}

/* Is register `kind` `number` of f in s? */
static int holds(const an_profile *p, const an_func *f, const an_regset *s, const char *kind,
                 uint32_t number)
{
    for (uint32_t r = 0; r < f->nregs; r++)
        if (f->regs[r].number == number && strcmp(p->kinds[f->regs[r].kind], kind) == 0)
            return an_regset_has(s, r);
    fail_msg("the function names no register %s%u", kind, number);
    return 0;
}

static void fn_free(fn *w)
{
    free(w->f.insns);
    free(w->f.blocks);
    free(w->f.edges);
    free(w->f.regs);
    free(w->f.implicit);
}

/* Each test's table, profile and function (empty). */
typedef struct lua {
    an_isa isa;
    an_profile p;
    fn w;
} lua;

static int setup(void **state)
{
    lua *l = calloc(1, sizeof *l);
    if (!l)
        return -1;
    lua_like_table(&l->isa, &l->p);
    an_fbuild_start(&l->w.b, &l->w.f);
    *state = l;
    return 0;
}

static int teardown(void **state)
{
    lua *l = *state;
    fn_free(&l->w);
    an_isa_free(&l->isa);
    an_profile_free(&l->p);
    free(l);
    return 0;
}

static void a_read_window_keeps_values_live_and_a_write_window_kills_them(void **state)
{
    lua *l = *state;
    add(&l->w, &l->isa, LOADK, "5", "1");     /* 0 */
    add(&l->w, &l->isa, LOADK, "6", "2");     /* 1 */
    add(&l->w, &l->isa, CONCAT, "4", "3");    /* 2: reads r4 r5 r6, writes r4 */
    add(&l->w, &l->isa, MOVE, "200 4", "");   /* 3: r200, numbered as high as Lua numbers */
    add(&l->w, &l->isa, LOADNIL, "5", "1");   /* 4: writes r5 r6 */
    add(&l->w, &l->isa, ADD, "7 200 200", ""); /* 5 */
    add(&l->w, &l->isa, HALT, "", "");        /* 6 */
    assert_true(l->w.f.insns[2].implicit && l->w.f.insns[4].implicit && !l->w.f.insns[3].implicit);
    assert_int_equal(l->w.f.nimplicit, 2);
    an_regset *live = live_after(&l->w);
    assert_true(holds(&l->p, &l->w.f, &live[0], "r", 5) && holds(&l->p, &l->w.f, &live[0], "r", 4));
    assert_true(holds(&l->p, &l->w.f, &live[1], "r", 6) && holds(&l->p, &l->w.f, &live[1], "r", 5));
    assert_true(holds(&l->p, &l->w.f, &live[2], "r", 4));
    assert_false(holds(&l->p, &l->w.f, &live[2], "r", 5)); /* LOADNIL writes it before any read */
    assert_false(holds(&l->p, &l->w.f, &live[2], "r", 6));
    assert_true(holds(&l->p, &l->w.f, &live[3], "r", 200) && !holds(&l->p, &l->w.f, &live[3], "r", 4));
    assert_false(holds(&l->p, &l->w.f, &live[5], "r", 7)); /* HALT reads nothing */
    /* MOVE's r200 and ADD's r200 are one id. */
    assert_int_equal(l->w.f.insns[3].reg[0], l->w.f.insns[5].reg[1]);
    assert_false(an_insn_writes(&l->w.f, 4, l->w.f.insns[3].reg[0]));
    assert_true(an_insn_writes(&l->w.f, 4, l->w.f.insns[0].reg[0]));
    free(live);
}

static void an_open_window_reads_its_kind_from_its_start_up(void **state)
{
    lua *l = *state;
    add(&l->w, &l->isa, LOADK, "9", "1");  /* 0 */
    add(&l->w, &l->isa, LOADK, "2", "1");  /* 1 */
    add(&l->w, &l->isa, LOADKK, "9", "1"); /* 2: k9, another kind than r9 */
    add(&l->w, &l->isa, CONCAT, "4", "0"); /* 3: B = 0, reads r4 and every r above */
    add(&l->w, &l->isa, HALT, "", "");
    an_regset *live = live_after(&l->w);
    assert_true(holds(&l->p, &l->w.f, &live[2], "r", 9));
    assert_false(holds(&l->p, &l->w.f, &live[2], "r", 2));
    assert_false(holds(&l->p, &l->w.f, &live[2], "k", 9));
    assert_true(l->w.f.insns[0].reg[0] != l->w.f.insns[2].reg[0]);
    free(live);
}

static void registers_that_cannot_be_named_make_an_instruction_opaque(void **state)
{
    lua *l = *state;
    add(&l->w, &l->isa, LOADK, "3", "1");
    add(&l->w, &l->isa, OPAQUE, "3", ""); /* its table names no kinds */
    add(&l->w, &l->isa, HALT, "", "");
    assert_true(l->w.f.insns[1].opaque && l->w.f.insns[1].nregs == 0 && !l->w.f.insns[0].opaque);
    an_regset *live = live_after(&l->w);
    assert_true(holds(&l->p, &l->w.f, &live[0], "r", 3)); /* an opaque instruction reads it all */
    free(live);
    /* A function naming more registers than regs.h gives ids: the first
     * AN_FUNC_REGS get one, instructions naming another are opaque. */
    fn big = {0};
    an_fbuild_start(&big.b, &big.f);
    for (int r = 0; r < AN_FUNC_REGS + 44; r++) {
        char regs[16];
        snprintf(regs, sizeof regs, "%d", 1000 + r);
        add(&big, &l->isa, LOADK, regs, "0");
    }
    assert_int_equal(big.f.nregs, AN_FUNC_REGS);
    assert_false(big.f.insns[AN_FUNC_REGS - 1].opaque);
    assert_true(big.f.insns[AN_FUNC_REGS].opaque && big.f.insns[AN_FUNC_REGS + 43].opaque);
    fn_free(&big);
}

static void windows_of_the_table_are_checked(void **state)
{
    lua *l = *state;
    char err[256];
    static const struct {
        int64_t op, access, base, offset, count_imm, count_add, open;
        const char *why;
    } bad[] = {
        {99, 1, 0, 0, -1, 1, 0, "of no opcode"},
        {LOADK, 4, 0, 0, -1, 1, 0, "an access"},
        {LOADK, 1, 1, 0, -1, 1, 0, "a base"},
        {LOADK, 1, 0, 0, 1, 0, 0, "a count_imm"},
        {LOADK, 1, 0, 0, -1, 0, 0, "no registers"},
        {LOADK, 1, 0, INT64_MAX, -1, 1, 0, "out of range"},
        {CONCAT, 1, 0, 0, -1, 1, 0, "not beside"}, /* CONCAT's window is not the last */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(an_isa_add_range(&l->isa, bad[i].op, bad[i].access, bad[i].base,
                                          bad[i].offset, bad[i].count_imm, bad[i].count_add,
                                          bad[i].open, err, sizeof err),
                         -1);
        if (!strstr(err, bad[i].why))
            fail_msg("case %zu: '%s' does not say '%s'", i, err, bad[i].why);
    }
    assert_int_equal(l->isa.nranges, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_read_window_keeps_values_live_and_a_write_window_kills_them, setup, teardown),
        cmocka_unit_test_setup_teardown(an_open_window_reads_its_kind_from_its_start_up, setup, teardown),
        cmocka_unit_test_setup_teardown(registers_that_cannot_be_named_make_an_instruction_opaque, setup, teardown),
        cmocka_unit_test_setup_teardown(windows_of_the_table_are_checked, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
