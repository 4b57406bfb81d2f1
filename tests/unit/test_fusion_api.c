/*
 * test_fusion_api.c - the optimal cover as an outside interpreter gets it
 * (include/pulley/fusion.h): a .macros set reads and describes itself as
 * the file says; binding it names the mnemonics the interpreter lacks; the
 * public cover of a block is fu_cover's, choice for choice, on thousands
 * of random blocks whose registers are numbered far above 255; blocks
 * naming more than 256 distinct registers are covered exactly as a cover
 * comparing whole register numbers covers them; instructions the set's
 * parts describe otherwise are refused, naming them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <pulley/fusion.h>
#include "cover.h"
#include "macro_set.h"

static uint32_t rng = 20240527;

static unsigned next(unsigned n)
{
    rng = rng * 1103515245u + 12345u;
    return (rng >> 8) % n;
}

/* ---- an instruction set: opK is opcode 100 + 37 K ---------------------- */

enum { NOPS = 5, MAX_BLOCK = 700 };

static int opcode_of(void *ctx, const char *mnemonic)
{
    (void)ctx;
    if (strncmp(mnemonic, "op", 2) != 0 || mnemonic[2] < '0' || mnemonic[2] >= '0' + NOPS ||
        mnemonic[3])
        return -1;
    return 100 + 37 * (mnemonic[2] - '0');
}

/* The register operands of opK. */
static unsigned op_regs(unsigned k)
{
    return 1 + k % 3;
}

/* ---- reading and describing ------------------------------------------------ */

static const char lua_like[] = "pulley-macros 1\n"
                               "macro ADDK__JMPIF\n"
                               "  predicted 12.5\n"
                               "  part ADDK r0 r1 imm\n"
                               "  part JMPIF r0 vec2 imm\n"
                               "end\n"
                               "macro MOVE__MOVE\n"
                               "  part MOVE r0 r1\n"
                               "  part MOVE r1 r0\n"
                               "end\n";

static void a_set_reads_and_describes_itself(void **state)
{
    (void)state;
    char err[256];
    pulleyfuse_set *s = pulleyfuse_parse(lua_like, strlen(lua_like), "lua.macros", err, sizeof err);
    if (!s)
        fail_msg("%s", err);
    assert_int_equal(pulleyfuse_count(s), 2);
    pulleyfuse_macro m;
    assert_int_equal(pulleyfuse_macro_at(s, 0, &m), 0);
    assert_string_equal(m.name, "ADDK__JMPIF");
    assert_true(m.nparts == 2 && m.nregs == 3 && m.nimms == 2 && m.predicted == 12.5);
    assert_true(strcmp(m.kinds[0], "r") == 0 && strcmp(m.kinds[2], "vec") == 0);
    assert_string_equal(m.parts[1].mnemonic, "JMPIF");
    assert_true(m.parts[1].nregs == 2 && m.parts[1].regs[0] == 0 && m.parts[1].regs[1] == 2);
    /* each part's immediates are the macro op's next ones */
    assert_true(m.parts[0].nimms == 1 && m.parts[0].imms[0] == 0);
    assert_true(m.parts[1].nimms == 1 && m.parts[1].imms[0] == 1);
    assert_int_equal(pulleyfuse_macro_at(s, 1, &m), 0);
    assert_true(m.predicted < 0 && m.parts[1].regs[0] == 1 && m.parts[1].regs[1] == 0);
    assert_int_equal(pulleyfuse_macro_at(s, 2, &m), -1);
    assert_int_equal(pulleyfuse_find(s, "MOVE__MOVE"), 1);
    assert_int_equal(pulleyfuse_find(s, "MOVE"), -1);
    pulleyfuse_free(s);

    static const char bad[] = "pulley-macros 1\nmacro m\n  part a r0 q\nend\n";
    assert_null(pulleyfuse_parse(bad, strlen(bad), "bad.macros", err, sizeof err));
    assert_non_null(strstr(err, "bad.macros:3: operand 'q'"));
    assert_null(pulleyfuse_read("/no/such/set.macros", err, sizeof err));
    assert_non_null(strstr(err, "/no/such/set.macros: "));
}

/* ---- binding ----------------------------------------------------------------- */

static int lua_opcode(void *ctx, const char *mnemonic)
{
    const int *high = ctx;
    if (strcmp(mnemonic, "ADDK") == 0)
        return 3;
    if (strcmp(mnemonic, "MOVE") == 0)
        return *high ? 70000 : 0;
    return -1; /* JMPIF unknown */
}

static void binding_names_what_the_interpreter_lacks(void **state)
{
    (void)state;
    char err[256];
    pulleyfuse_set *s = pulleyfuse_parse(lua_like, strlen(lua_like), "lua.macros", err, sizeof err);
    assert_non_null(s);
    int high = 0;
    assert_int_equal(pulleyfuse_bind(s, lua_opcode, &high, err, sizeof err), -1);
    assert_string_equal(err, "lua.macros: macro op ADDK__JMPIF: part 2, JMPIF, is not an opcode of"
                             " the interpreter");
    pulleyfuse_insn one = {.opcode = 3, .nregs = 2};
    assert_int_equal(pulleyfuse_cover(s, &one, 1, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "not bound"));

    static const char moves[] =
        "pulley-macros 1\nmacro M\n part MOVE r0 r1\n part MOVE r1 r0\nend\n";
    pulleyfuse_free(s);
    s = pulleyfuse_parse(moves, strlen(moves), "moves.macros", err, sizeof err);
    high = 1;
    assert_int_equal(pulleyfuse_bind(s, lua_opcode, &high, err, sizeof err), -1);
    assert_non_null(strstr(err, "moves.macros: macro op M: MOVE is opcode 70000"));
    high = 0;
    assert_int_equal(pulleyfuse_bind(s, lua_opcode, &high, err, sizeof err), 0);
    pulleyfuse_free(s);

    static const char uneven[] = "pulley-macros 1\nmacro M\n part MOVE r0 r1\n part MOVE r1\nend\n";
    s = pulleyfuse_parse(uneven, strlen(uneven), "uneven.macros", err, sizeof err);
    assert_int_equal(pulleyfuse_bind(s, lua_opcode, &high, err, sizeof err), -1);
    assert_non_null(strstr(err, "macro op M: part 2, MOVE, has 1 register operands, and another"
                                " part of its opcode (0) 2"));
    pulleyfuse_free(s);
}

/* ---- random sets and blocks ------------------------------------------------ */

/* A random set of n macro ops over op0 .. op4, as .macros text. */
static char *random_set(unsigned n)
{
    size_t cap = 64 + (size_t)n * 400, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    len += (size_t)snprintf(text, cap, "pulley-macros 1\n");
    for (unsigned m = 0; m < n; m++) {
        len += (size_t)snprintf(text + len, cap - len, "macro m%u\n", m);
        unsigned parts = 2 + next(next(4) ? 3 : 7), regs = 0;
        for (unsigned k = 0; k < parts; k++) {
            unsigned op = next(NOPS);
            len += (size_t)snprintf(text + len, cap - len, "  part op%u", op);
            for (unsigned j = 0; j < op_regs(op); j++) {
                unsigned r = regs && (next(3) || regs == PULLEYFUSE_MAX_REGS) ? next(regs) : regs++;
                len += (size_t)snprintf(text + len, cap - len, " r%u", r);
            }
            len += (size_t)snprintf(text + len, cap - len, "%s\n", op % 2 ? " imm" : "");
        }
        len += (size_t)snprintf(text + len, cap - len, "end\n");
    }
    return text;
}

/* A random block: each register operand one of the last instructions'
 * (so that macro ops match), a register of the whole block (which keeps
 * its number while others come and go), or a fresh number, fresh numbers
 * 256 apart (so that their low bytes collide). */
static void random_block(pulleyfuse_insn *b, unsigned len, uint32_t fresh_base)
{
    uint32_t fresh = 0;
    for (unsigned i = 0; i < len; i++) {
        unsigned op = next(NOPS);
        b[i] = (pulleyfuse_insn){.opcode = 100 + 37 * op, .nregs = op_regs(op)};
        if (next(20) == 0) /* an opcode no part names */
            b[i].opcode = next(2) ? 99 : 70000 + next(3);
        for (unsigned j = 0; j < b[i].nregs; j++) {
            unsigned back = 1 + next(3);
            if (next(8) == 0)
                b[i].regs[j] = fresh_base - 1;
            else if (i >= back && next(3))
                b[i].regs[j] = b[i - back].regs[next(b[i - back].nregs)];
            else
                b[i].regs[j] = fresh_base + 256 * fresh++;
        }
    }
}

/* fusion/'s instructions of block b, registers numbered densely by first
 * use (the block names 256 registers or fewer). */
static void dense_keys(const pulleyfuse_insn *b, unsigned len, fu_insn *keys)
{
    static uint32_t seen[256];
    unsigned nseen = 0;
    for (unsigned i = 0; i < len; i++) {
        memset(&keys[i], 0, sizeof keys[i]);
        keys[i].op = (uint16_t)(b[i].opcode > UINT16_MAX ? 99 : b[i].opcode);
        keys[i].nregs = (uint8_t)b[i].nregs;
        for (unsigned j = 0; j < b[i].nregs; j++) {
            unsigned r = 0;
            while (r < nseen && seen[r] != b[i].regs[j])
                r++;
            if (r == nseen) {
                assert_true(nseen < 256);
                seen[nseen++] = b[i].regs[j];
            }
            keys[i].reg[j] = (uint8_t)r;
        }
    }
}

static pulleyfuse_set *bound_set(const char *text)
{
    char err[256];
    pulleyfuse_set *s = pulleyfuse_parse(text, strlen(text), "random.macros", err, sizeof err);
    if (!s || pulleyfuse_bind(s, opcode_of, NULL, err, sizeof err) != 0)
        fail_msg("%s\n%s", err, text);
    return s;
}

static void the_public_cover_is_fu_cover(void **state)
{
    (void)state;
    static pulleyfuse_insn block[MAX_BLOCK];
    static fu_insn keys[MAX_BLOCK];
    static uint32_t scratch[MAX_BLOCK + 1];
    static int32_t want[MAX_BLOCK], got[MAX_BLOCK];
    char err[256];
    unsigned fused = 0;
    for (int trial = 0; trial < 300; trial++) {
        char *text = random_set(4 + next(9));
        pulleyfuse_set *s = bound_set(text);
        fu_set set;
        assert_int_equal(fu_set_parse(&set, text, strlen(text), "random.macros", err, sizeof err),
                         0);
        fu_pattern *pats = calloc(set.n, sizeof *pats);
        assert_non_null(pats);
        for (size_t m = 0; m < set.n; m++)
            assert_int_equal(
                fu_pattern_of(&set.macros[m], opcode_of, NULL, &pats[m], err, sizeof err), 0);
        for (int b = 0; b < 10; b++) {
            unsigned len = 1 + next(80);
            random_block(block, len, 1000 + next(5000));
            dense_keys(block, len, keys);
            uint32_t cost = fu_cover(keys, len, pats, set.n, scratch, want);
            fused += cost < len;
            assert_int_equal(pulleyfuse_cover(s, block, len, got, err, sizeof err), cost);
            assert_memory_equal(got, want, len * sizeof *got);
            assert_int_equal(pulleyfuse_cover(s, block, len, NULL, err, sizeof err), cost);
        }
        free(pats);
        fu_set_free(&set);
        pulleyfuse_free(s);
        free(text);
    }
    assert_true(fused > 1000); /* of 3000 blocks: macro ops did apply */
}

/* ---- blocks of many registers ------------------------------------------------ */

/* Does macro op m match block b at `at`, comparing whole register numbers? */
static int wide_match(const pulleyfuse_macro *m, const pulleyfuse_insn *b, unsigned at)
{
    uint32_t reg[PULLEYFUSE_MAX_REGS];
    unsigned bound = 0;
    for (unsigned k = 0; k < m->nparts; k++) {
        const pulleyfuse_insn *in = &b[at + k];
        if ((int)in->opcode != opcode_of(NULL, m->parts[k].mnemonic))
            return 0;
        for (unsigned j = 0; j < m->parts[k].nregs; j++) {
            unsigned r = m->parts[k].regs[j];
            if (bound >> r & 1) {
                if (reg[r] != in->regs[j])
                    return 0;
            } else {
                reg[r] = in->regs[j];
                bound |= 1u << r;
            }
        }
    }
    return 1;
}

/* The cover with the fewest dispatches, comparing whole registers, with
 * cover.h's choice among equals: the oracle.  m[0 .. nm): the set. */
static int64_t wide_cover(const pulleyfuse_macro *m, size_t nm, const pulleyfuse_insn *b,
                          unsigned len, int32_t *choice)
{
    uint32_t cost[MAX_BLOCK + 1];
    cost[0] = 0;
    for (unsigned i = 1; i <= len; i++) {
        cost[i] = cost[i - 1] + 1;
        choice[i - 1] = -1;
        for (size_t k = 0; k < nm; k++) {
            unsigned n = m[k].nparts;
            if (n <= i && cost[i - n] + 1 < cost[i] && wide_match(&m[k], b, i - n)) {
                cost[i] = cost[i - n] + 1;
                choice[i - 1] = (int32_t)k;
            }
        }
    }
    for (unsigned i = len; i > 0;) {
        unsigned n = choice[i - 1] >= 0 ? m[choice[i - 1]].nparts : 1;
        for (unsigned k = 1; k < n; k++)
            choice[i - 1 - k] = -1;
        i -= n;
    }
    return cost[len];
}

static unsigned distinct_regs(const pulleyfuse_insn *b, unsigned len)
{
    static uint32_t seen[MAX_BLOCK * PULLEYFUSE_MAX_REGS];
    unsigned n = 0;
    for (unsigned i = 0; i < len; i++)
        for (unsigned j = 0; j < b[i].nregs; j++) {
            unsigned r = 0;
            while (r < n && seen[r] != b[i].regs[j])
                r++;
            if (r == n)
                seen[n++] = b[i].regs[j];
        }
    return n;
}

static void blocks_of_many_registers_are_covered_exactly(void **state)
{
    (void)state;
    static pulleyfuse_insn block[MAX_BLOCK];
    static int32_t want[MAX_BLOCK], got[MAX_BLOCK];
    char err[256];
    unsigned over_256 = 0, fused = 0;
    for (int trial = 0; trial < 200; trial++) {
        char *text = random_set(1 + next(12));
        pulleyfuse_set *s = bound_set(text);
        pulleyfuse_macro m[12];
        size_t nm = pulleyfuse_count(s);
        for (size_t k = 0; k < nm; k++)
            assert_int_equal(pulleyfuse_macro_at(s, k, &m[k]), 0);
        for (int b = 0; b < 10; b++) {
            unsigned len = 300 + next(MAX_BLOCK - 300);
            random_block(block, len, next(1u << 30));
            over_256 += distinct_regs(block, len) > 256;
            int64_t cost = wide_cover(m, nm, block, len, want);
            fused += cost < len;
            assert_int_equal(pulleyfuse_cover(s, block, len, got, err, sizeof err), cost);
            assert_memory_equal(got, want, len * sizeof *got);
        }
        pulleyfuse_free(s);
        free(text);
    }
    assert_true(over_256 > 1000); /* of 2000 blocks: they did name more than 256 */
    assert_true(fused > 1000);    /* and macro ops did apply */
}

/* 300 distinct registers, each pair of instructions a match, and next to
 * each register one 256 higher, which an 8-bit number would take for it. */
static void a_block_of_300_registers(void **state)
{
    (void)state;
    static const char text[] = "pulley-macros 1\n"
                               "macro pair\n  part op1 r0 r1\n  part op1 r1 r2\nend\n";
    pulleyfuse_set *s = bound_set(text);
    pulleyfuse_insn block[600];
    int32_t choice[600];
    char err[256];
    for (unsigned i = 0; i < 200; i += 2) {
        uint32_t a = 1000 + 3 * i / 2; /* registers a, a + 1, a + 2: 300 in all */
        block[i] = (pulleyfuse_insn){.opcode = 137, .nregs = 2, .regs = {a, a + 1}};
        block[i + 1] = (pulleyfuse_insn){.opcode = 137, .nregs = 2, .regs = {a + 1, a + 2}};
    }
    assert_int_equal(distinct_regs(block, 200), 300);
    assert_int_equal(pulleyfuse_cover(s, block, 200, choice, err, sizeof err), 100);
    for (unsigned i = 0; i < 200; i++)
        assert_int_equal(choice[i], i % 2 ? 0 : -1);
    /* the second instruction of every other pair reads a + 257: no match */
    for (unsigned i = 0; i < 200; i += 4)
        block[i + 1].regs[0] += 256;
    assert_int_equal(pulleyfuse_cover(s, block, 200, choice, err, sizeof err), 150);
    for (unsigned i = 0; i < 200; i += 4)
        assert_true(choice[i + 1] == -1 && choice[i + 3] == 0);
    /* One register every instruction names while 600 others come and go:
     * none of those is it, so no pair matches (the lasting register, r1
     * of the first part, is never r1 of the second, a fresh one). */
    for (unsigned i = 0; i < 600; i++)
        block[i] = (pulleyfuse_insn){.opcode = 137, .nregs = 2, .regs = {5000 + i, 7}};
    assert_int_equal(pulleyfuse_cover(s, block, 600, choice, err, sizeof err), 600);
    pulleyfuse_free(s);
}

/* ---- instructions the parts describe otherwise --------------------------------- */

static void instructions_unlike_the_parts_are_refused(void **state)
{
    (void)state;
    static const char text[] = "pulley-macros 1\n"
                               "macro pair\n  part op1 r0 r1\n  part op1 r1 r2\nend\n";
    pulleyfuse_set *s = bound_set(text);
    char err[256];
    pulleyfuse_insn block[3] = {{.opcode = 137, .nregs = 2, .regs = {1, 2}},
                                {.opcode = 137, .nregs = 1, .regs = {2}},
                                {.opcode = 9, .nregs = 17}};
    assert_int_equal(pulleyfuse_cover(s, block, 3, NULL, err, sizeof err), -1);
    assert_string_equal(err, "instruction 1 of the block (opcode 137) has 1 register operands: the"
                             " parts of random.macros give its opcode 2");
    block[1].nregs = 2;
    assert_int_equal(pulleyfuse_cover(s, block, 3, NULL, err, sizeof err), -1);
    assert_string_equal(err, "instruction 2 of the block has 17 register operands: at most 16");
    block[2].nregs = 0;
    assert_int_equal(pulleyfuse_cover(s, block, 3, NULL, err, sizeof err), 2);
    assert_int_equal(pulleyfuse_cover(s, block, 0, NULL, err, sizeof err), 0);
    /* opcodes above 65535 match nothing, whatever their low bits */
    block[0].opcode = block[1].opcode = 137 + 65536;
    assert_int_equal(pulleyfuse_cover(s, block, 3, NULL, err, sizeof err), 3);
    pulleyfuse_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_set_reads_and_describes_itself),
        cmocka_unit_test(binding_names_what_the_interpreter_lacks),
        cmocka_unit_test(the_public_cover_is_fu_cover),
        cmocka_unit_test(blocks_of_many_registers_are_covered_exactly),
        cmocka_unit_test(a_block_of_300_registers),
        cmocka_unit_test(instructions_unlike_the_parts_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
