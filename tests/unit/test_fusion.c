/*
 * test_fusion.c - the macro-op model both the VM and the analysis use
 * (fusion/): .macros files read as written and refused, naming the line,
 * when they are not one; a macro op's pattern asks for equal registers
 * where its parts share a macro register, the same whether its parts are
 * given by name or by number; the dynamic-programming cover
 * of a block agrees with brute force (every way of cutting the block into
 * pieces, each a single instruction or a match of a pattern) on many small
 * random blocks, sets and register layouts, and the cover it reports is a
 * valid one of that cost; registers of any number become 8-bit ones that
 * are equal, inside every window a match can span, exactly where the
 * registers are.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cover.h"
#include "macro_set.h"
#include "renumber.h"

static uint32_t rng = 12345;

static unsigned next(unsigned n)
{
    rng = rng * 1103515245u + 12345u;
    return (rng >> 16) % n;
}

/* ---- .macros files -------------------------------------------------------- */

static const char example[] =
    "# made by hand\n"
    "pulley-macros 1\n"
    "\n"
    "macro xlt64_s__br_if_not\n"
    "  predicted 26.4800\n"
    "  part xlt64_s x0 x1 x2\n"
    "  part br_if_not x0 imm\n"
    "end\n"
    "\n"
    "macro fmul64__fadd64\n"
    "  part fmul64 f0 f1 f2\n"
    "  part fadd64 f3 f3 f0\n"
    "end\n";

static void a_macros_file_reads_as_it_is_written(void **state)
{
    (void)state;
    fu_set s;
    char err[256];
    assert_int_equal(fu_set_parse(&s, example, strlen(example), "ex.macros", err, sizeof err), 0);
    assert_int_equal(s.n, 2);
    const fu_macro *m = &s.macros[0];
    assert_string_equal(m->name, "xlt64_s__br_if_not");
    assert_true(m->nparts == 2 && m->nregs == 3 && m->nimms == 1 && m->predicted == 26.48);
    assert_true(m->part[1].nregs == 1 && m->part[1].reg[0] == 0 && m->part[1].nimms == 1);
    assert_true(strcmp(s.macros[1].kind[0], "f") == 0 && s.macros[1].nregs == 4 && s.macros[1].predicted < 0);
    assert_int_equal(fu_set_find(&s, "fmul64__fadd64"), 1);
    assert_int_equal(fu_set_find(&s, "nope"), -1);
    /* Written again (with the same comment) it is the same bytes. */
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    assert_non_null(f);
    assert_int_equal(fu_set_write(f, &s, "made by hand"), 0);
    fclose(f);
    assert_string_equal(out, example);
    free(out);
    char name[FU_MAX_NAME];
    assert_int_equal(fu_default_name(&s.macros[1], name, sizeof name), 0);
    assert_string_equal(name, "fmul64__fadd64");
    fu_set_free(&s);
}

/* A register kind is any word of letters the instruction set names (Lua's
 * registers as r, a vector file as vec): the file keeps it as it is. */
static void register_kinds_are_the_instruction_sets_words(void **state)
{
    (void)state;
    static const char text[] = "pulley-macros 1\n"
                               "\n"
                               "macro ADDK__JMPIF\n"
                               "  part ADDK r0 r1 imm\n"
                               "  part JMPIF r0 vec2 imm\n"
                               "end\n";
    fu_set s;
    char err[256];
    if (fu_set_parse(&s, text, strlen(text), "lua.macros", err, sizeof err) != 0)
        fail_msg("%s", err);
    const fu_macro *m = &s.macros[0];
    assert_true(m->nregs == 3 && strcmp(m->kind[0], "r") == 0 && strcmp(m->kind[2], "vec") == 0);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    assert_non_null(f);
    assert_int_equal(fu_set_write(f, &s, NULL), 0);
    fclose(f);
    assert_string_equal(out, text);
    free(out);
    /* A kind that is no word of letters is refused when a set is made. */
    fu_set t = {0};
    fu_macro bad = *m;
    strcpy(bad.kind[1], "r[");
    assert_int_equal(fu_set_add(&t, &bad, err, sizeof err), -1);
    assert_non_null(strstr(err, "register 1 has kind 'r['"));
    fu_set_free(&t);
    fu_set_free(&s);
}

static void a_bad_macros_file_is_refused_naming_the_line(void **state)
{
    (void)state;
    static const struct {
        const char *text, *why;
    } bad[] = {
        {"", "x:1: empty"},
        {"macro a\n", "x:1: not a .macros file"},
        {"pulley-macros 2\n", "x:1: format version 2"},
        {"pulley-macros 1\npart a x0\n", "x:2: 'part' outside a macro op"},
        {"pulley-macros 1\nmacro m\n part a x0\nend\n", "x:4: macro op m has 1 part"},
        {"pulley-macros 1\nmacro m\n part a x1\n part b x0\nend\n", "x:3: macro register x1 is used before x0"},
        {"pulley-macros 1\nmacro m\n part a x0\n part b f0\nend\n", "x:4: macro register 0 is f0 here and x0"},
        {"pulley-macros 1\nmacro m\n part a imm x0\n part b\nend\n", "x:3: register operand x0 follows an immediate"},
        {"pulley-macros 1\nmacro m\n part a imm0\nend\n", "x:3: operand 'imm0'"},
        {"pulley-macros 1\nmacro m\n part a r_0\nend\n", "x:3: operand 'r_0'"},
        {"pulley-macros 1\nmacro m\n part a abcdefghijklmnop0\nend\n",
         "x:3: operand 'abcdefghijklmnop0': its register kind is 16 letters, at most 15"},
        {"pulley-macros 1\nmacro m\n part a x01\nend\n", "x:3: operand 'x01': a register number has no leading zero"},
        {"pulley-macros 1\nmacro m\n part a x99999999999999999999\nend\n",
         "x:3: operand 'x99999999999999999999': a macro op has at most 16 register operands (x0 to x15)"},
        {"pulley-macros 1\nmacro m\n part a\n part b\n", "x:5: macro op m has no 'end'"},
        {"pulley-macros 1\nmacro m\n part a\n part b\nend\nmacro m\n part a\n part b\nend\n", "x:9: macro op m is defined twice"},
        {"pulley-macros 1\nmacro 9m\n", "x:2: 'macro' takes a name"},
        {"pulley-macros 1\nmacro m\n predicted 101\n", "x:3: 'predicted' takes a percentage"},
        {"pulley-macros 1\nmacro m\n frob\n", "x:3: unknown keyword 'frob'"},
        {"pulley-macros 1\nmacro m\n part a\n part a\n part a\n part a\n part a\n part a\n part a\n part a\n part a\n",
         "x:11: macro op m has more than 8 parts"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fu_set s;
        char err[256] = "";
        assert_int_equal(fu_set_parse(&s, bad[i].text, strlen(bad[i].text), "x", err, sizeof err), -1);
        if (!strstr(err, bad[i].why))
            fail_msg("case %zu: '%s' does not say '%s'", i, err, bad[i].why);
        assert_int_equal(s.n, 0);
    }
    char err[256];
    fu_set s;
    assert_int_equal(fu_set_read(&s, "/nonexistent/x.macros", err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent/x.macros"));
}

/* A name one past the longest and a 17th register are refused saying so
 * (the longest name and the 16th register are taken). */
static void names_and_registers_past_the_limits_are_refused_saying_why(void **state)
{
    (void)state;
    char name[FU_MAX_NAME + 1], text[1024], err[256];
    fu_set s;
    for (int len = FU_MAX_NAME - 1; len <= FU_MAX_NAME; len++) {
        memset(name, 'n', (size_t)len);
        name[len] = '\0';
        /* as the op's name */
        snprintf(text, sizeof text, "pulley-macros 1\nmacro %s\n part a\n part b\nend\n", name);
        int rc = fu_set_parse(&s, text, strlen(text), "x", err, sizeof err);
        if (len < FU_MAX_NAME) {
            assert_int_equal(rc, 0);
            assert_string_equal(s.macros[0].name, name);
            fu_set_free(&s);
        } else {
            assert_int_equal(rc, -1);
            assert_string_equal(err, "x:2: macro op name nnnnnnnnnnnnnnnn... is 96 characters, at most 95");
        }
        /* as a part's mnemonic */
        snprintf(text, sizeof text, "pulley-macros 1\nmacro m\n part a\n part %s\nend\n", name);
        rc = fu_set_parse(&s, text, strlen(text), "x", err, sizeof err);
        if (len < FU_MAX_NAME) {
            assert_int_equal(rc, 0);
            assert_string_equal(s.macros[0].part[1].op, name);
            fu_set_free(&s);
        } else {
            assert_int_equal(rc, -1);
            assert_string_equal(err, "x:4: opcode name nnnnnnnnnnnnnnnn... is 96 characters, at most 95");
        }
    }
    /* Registers x0 .. x15 are the 16 a macro op may have; x16 is a 17th. */
    static const char sixteen[] = "pulley-macros 1\nmacro m\n"
                                  " part a x0 x1 x2 x3 x4 x5 x6 x7\n"
                                  " part b x8 x9 x10 x11 x12 x13 x14 x15\n";
    snprintf(text, sizeof text, "%s part c x15\nend\n", sixteen);
    assert_int_equal(fu_set_parse(&s, text, strlen(text), "x", err, sizeof err), 0);
    assert_int_equal(s.macros[0].nregs, 16);
    fu_set_free(&s);
    snprintf(text, sizeof text, "%s part c x16\nend\n", sixteen);
    assert_int_equal(fu_set_parse(&s, text, strlen(text), "x", err, sizeof err), -1);
    assert_string_equal(err, "x:5: operand 'x16' is register operand 17: a macro op has at most 16"
                             " register operands (x0 to x15)");
    assert_int_equal(s.n, 0);
    /* A name with no end in its field is refused when a set is made. */
    fu_macro m;
    memset(&m, 0, sizeof m);
    memset(m.name, 'n', sizeof m.name);
    m.nparts = 2;
    fu_set t = {0};
    assert_int_equal(fu_set_add(&t, &m, err, sizeof err), -1);
    assert_string_equal(err, "macro op name nnnnnnnnnnnnnnnn... is longer than 95 characters");
    assert_int_equal(t.n, 0);
}

/* ---- patterns ------------------------------------------------------------- */

static int opcode_of(void *ctx, const char *name)
{
    (void)ctx;
    return strcmp(name, "xlt64_s") == 0 ? 7 : strcmp(name, "br_if_not") == 0 ? 9 : -1;
}

static void shared_macro_registers_become_equal_registers(void **state)
{
    (void)state;
    fu_set s;
    char err[256];
    assert_int_equal(fu_set_parse(&s, example, strlen(example), "ex", err, sizeof err), 0);
    fu_pattern p;
    assert_int_equal(fu_pattern_of(&s.macros[0], opcode_of, NULL, &p, err, sizeof err), 0);
    assert_true(p.n == 2 && p.op[0] == 7 && p.op[1] == 9 && p.neq == 1);
    /* part 2's operand a is part 1's operand a */
    assert_true(p.eq[0][0] == 0 && p.eq[0][1] == FU_MAX_REGS);
    fu_insn code[2] = {{7, 3, {4, 5, 6}}, {9, 1, {4}}};
    assert_true(fu_match(&p, code));
    code[1].reg[0] = 5;
    assert_false(fu_match(&p, code));
    code[1].op = 8;
    code[1].reg[0] = 4;
    assert_false(fu_match(&p, code));
    assert_int_equal(fu_pattern_of(&s.macros[1], opcode_of, NULL, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "fmul64"));
    fu_set_free(&s);
}

/* The pattern of parts given by number is the one their .macros text makes. */
static void a_pattern_from_opcode_numbers_is_the_one_from_names(void **state)
{
    (void)state;
    fu_set s;
    char err[256];
    assert_int_equal(fu_set_parse(&s, example, strlen(example), "ex", err, sizeof err), 0);
    fu_pattern by_name, by_number;
    assert_int_equal(fu_pattern_of(&s.macros[0], opcode_of, NULL, &by_name, err, sizeof err), 0);
    const fu_insn parts[2] = {{7, 3, {0, 1, 2}}, {9, 1, {0}}}; /* xlt64_s x0 x1 x2; br_if_not x0 */
    assert_int_equal(fu_pattern_of_parts(parts, 2, &by_number), 0);
    assert_true(by_name.n == by_number.n && by_name.neq == by_number.neq);
    assert_memory_equal(by_name.op, by_number.op, sizeof by_name.op);
    assert_memory_equal(by_name.eq, by_number.eq, sizeof by_name.eq);
    /* fmul64 f0 f1 f2; fadd64 f3 f3 f0: two pairs of equal registers */
    const fu_insn floats[2] = {{3, 3, {0, 1, 2}}, {4, 3, {3, 3, 0}}};
    assert_int_equal(fu_pattern_of_parts(floats, 2, &by_number), 0);
    assert_true(by_number.n == 2 && by_number.op[0] == 3 && by_number.op[1] == 4);
    assert_int_equal(by_number.neq, 2);
    assert_true(by_number.eq[0][0] == FU_MAX_REGS && by_number.eq[0][1] == FU_MAX_REGS + 1);
    assert_true(by_number.eq[1][0] == 0 && by_number.eq[1][1] == FU_MAX_REGS + 2);
    /* too many parts, or a part with too many registers: refused */
    fu_insn many[FU_MAX_PARTS + 1];
    memset(many, 0, sizeof many);
    assert_int_equal(fu_pattern_of_parts(many, FU_MAX_PARTS + 1, &by_number), -1);
    many[0].nregs = FU_MAX_REGS + 1;
    assert_int_equal(fu_pattern_of_parts(many, 1, &by_number), -1);
    fu_set_free(&s);
}

/* ---- the cover ------------------------------------------------------------ */

/* Is block[0..n) a match of a pattern of the set? */
static int is_match(const fu_insn *block, unsigned n, const fu_pattern *set, size_t nset)
{
    for (size_t m = 0; m < nset; m++)
        if (set[m].n == n && fu_match(&set[m], block))
            return 1;
    return 0;
}

/* Fewest pieces over all 2^(len-1) ways to cut the block. */
static uint32_t brute_force(const fu_insn *block, uint32_t len, const fu_pattern *set, size_t nset)
{
    uint32_t best = len;
    for (uint32_t cuts = 0; cuts < (1u << (len - 1)); cuts++) {
        uint32_t pieces = 0, start = 0, ok = 1;
        for (uint32_t i = 1; i <= len && ok; i++)
            if (i == len || (cuts >> (i - 1) & 1)) {
                uint32_t n = i - start;
                ok = n == 1 || is_match(block + start, n, set, nset);
                pieces++;
                start = i;
            }
        if (ok && pieces < best)
            best = pieces;
    }
    return best;
}

static void cover_matches_brute_force(void **state)
{
    (void)state;
    for (int trial = 0; trial < 4000; trial++) {
        fu_insn block[12];
        fu_pattern set[4];
        uint32_t len = 1 + next(12), scratch[13];
        int32_t choice[12];
        unsigned alphabet = 2 + next(3);
        for (uint32_t i = 0; i < len; i++) {
            block[i] = (fu_insn){.op = (uint16_t)next(alphabet), .nregs = 2};
            block[i].reg[0] = (uint8_t)next(3);
            block[i].reg[1] = (uint8_t)next(3);
        }
        size_t nset = next(5);
        for (size_t m = 0; m < nset; m++) {
            memset(&set[m], 0, sizeof set[m]);
            set[m].n = (uint8_t)(2 + next(3));
            for (unsigned k = 0; k < set[m].n; k++)
                set[m].op[k] = (uint16_t)next(alphabet);
            set[m].neq = (uint8_t)next(3); /* registers that must be equal */
            for (unsigned e = 0; e < set[m].neq; e++) {
                unsigned a = next(set[m].n), b = next(set[m].n);
                set[m].eq[e][0] = (uint8_t)(a * FU_MAX_REGS + next(2));
                set[m].eq[e][1] = (uint8_t)(b * FU_MAX_REGS + next(2));
            }
        }
        uint32_t want = brute_force(block, len, set, nset);
        assert_int_equal(fu_cover(block, len, set, nset, scratch, NULL), want);
        assert_int_equal(fu_cover(block, len, set, nset, scratch, choice), want);
        /* the reported cover: matches where chosen, single instructions elsewhere */
        uint32_t pieces = 0;
        for (uint32_t i = len; i > 0; pieces++) {
            uint32_t n = choice[i - 1] >= 0 ? set[choice[i - 1]].n : 1;
            assert_true(n <= i);
            if (n > 1)
                assert_true(fu_match(&set[choice[i - 1]], block + i - n));
            for (uint32_t k = 1; k < n; k++)
                assert_int_equal(choice[i - 1 - k], -1);
            i -= n;
        }
        assert_int_equal(pieces, want);
        /* Indexed by last opcode: the same cover, the same choice. */
        fu_index ix;
        int32_t again[12];
        assert_int_equal(fu_index_build(&ix, set, nset), 0);
        assert_int_equal(fu_cover_indexed(block, len, set, nset, &ix, scratch, again), want);
        assert_memory_equal(again, choice, len * sizeof *choice);
        /* and the index of the whole set serves each of its beginnings */
        for (size_t k = 0; k <= nset; k++)
            assert_int_equal(fu_cover_indexed(block, len, set, k, &ix, scratch, NULL),
                             fu_cover(block, len, set, k, scratch, NULL));
        fu_index_free(&ix);
    }
}

static void overlapping_occurrences_count_once(void **state)
{
    (void)state;
    fu_insn block[5];
    for (int i = 0; i < 5; i++)
        block[i] = (fu_insn){.op = 7};
    fu_pattern pair = {.n = 2, .op = {7, 7}};
    uint32_t scratch[6];
    /* four overlapping occurrences, but only two fit: 5 -> 3 dispatches */
    assert_int_equal(fu_cover(block, 5, &pair, 1, scratch, NULL), 3);
    assert_int_equal(fu_cover(block, 5, NULL, 0, scratch, NULL), 5);
}

/* ---- registers of any number ------------------------------------------------- */

enum { LONG_BLOCK = 4000 };

/* A stream of instructions naming registers of a pool of `pool` numbers
 * (spread 256 apart), one of them named every few instructions. */
static void wide_block(uint32_t (*reg)[FU_MAX_REGS], uint8_t *nregs, unsigned pool)
{
    for (unsigned i = 0; i < LONG_BLOCK; i++) {
        nregs[i] = (uint8_t)next(FU_MAX_REGS + 1);
        for (unsigned j = 0; j < nregs[i]; j++)
            reg[i][j] = next(5) ? 77 + 256 * next(pool) : 3;
    }
}

static void registers_of_any_number_keep_their_equalities(void **state)
{
    (void)state;
    static uint32_t reg[LONG_BLOCK][FU_MAX_REGS];
    static uint8_t nregs[LONG_BLOCK];
    static fu_insn keys[LONG_BLOCK];
    for (unsigned pool = 4; pool <= 4096; pool *= 4) {
        wide_block(reg, nregs, pool);
        /* One block, then the same instructions as blocks of 1 to 40
         * numbered after one another without clearing (fu_renumber_gap). */
        for (int blocks = 0; blocks < 2; blocks++) {
            static uint16_t block_of[LONG_BLOCK];
            fu_renumber rn;
            fu_renumber_start(&rn);
            for (unsigned i = 0, b = 0; i < LONG_BLOCK; b++) {
                unsigned len = blocks ? 1 + next(40) : LONG_BLOCK;
                fu_renumber_gap(&rn, len);
                for (unsigned k = 0; k < len && i < LONG_BLOCK; k++, i++) {
                    block_of[i] = (uint16_t)b;
                    fu_renumber_next(&rn, reg[i], nregs[i], &keys[i]);
                    assert_int_equal(keys[i].nregs, nregs[i]);
                }
            }
            /* every pair of operands at most FU_MAX_PARTS - 1 instructions
             * apart inside one block */
            for (unsigned i = 0; i < LONG_BLOCK; i++)
                for (unsigned d = 0; d < FU_MAX_PARTS && i + d < LONG_BLOCK &&
                                     block_of[i + d] == block_of[i];
                     d++)
                    for (unsigned a = 0; a < nregs[i]; a++)
                        for (unsigned b = 0; b < nregs[i + d]; b++)
                            assert_int_equal(keys[i].reg[a] == keys[i + d].reg[b],
                                             reg[i][a] == reg[i + d][b]);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_macros_file_reads_as_it_is_written),
        cmocka_unit_test(register_kinds_are_the_instruction_sets_words),
        cmocka_unit_test(a_bad_macros_file_is_refused_naming_the_line),
        cmocka_unit_test(names_and_registers_past_the_limits_are_refused_saying_why),
        cmocka_unit_test(shared_macro_registers_become_equal_registers),
        cmocka_unit_test(a_pattern_from_opcode_numbers_is_the_one_from_names),
        cmocka_unit_test(cover_matches_brute_force),
        cmocka_unit_test(overlapping_occurrences_count_once),
        cmocka_unit_test(registers_of_any_number_keep_their_equalities),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
