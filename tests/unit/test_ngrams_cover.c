/*
 * test_ngrams_cover.c - the dynamic-programming cover of a block by macro
 * ops agrees with brute force (every way of cutting the block into pieces,
 * each a single op or a macro op) on many small random blocks and sets, and
 * the cover it reports is a valid one of that cost.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cover.h"

static uint32_t rng = 12345;

static unsigned next(unsigned n)
{
    rng = rng * 1103515245u + 12345u;
    return (rng >> 16) % n;
}

static int is_macro(const uint16_t *ops, unsigned n, const an_macro *set, size_t nset)
{
    for (size_t m = 0; m < nset; m++)
        if (set[m].n == n && memcmp(ops, set[m].ops, n * sizeof *ops) == 0)
            return 1;
    return 0;
}

/* Fewest pieces over all 2^(len-1) ways to cut the block. */
static uint32_t brute_force(const uint16_t *ops, uint32_t len, const an_macro *set, size_t nset)
{
    uint32_t best = len;
    for (uint32_t cuts = 0; cuts < (1u << (len - 1)); cuts++) {
        uint32_t pieces = 0, start = 0, ok = 1;
        for (uint32_t i = 1; i <= len && ok; i++)
            if (i == len || (cuts >> (i - 1) & 1)) {
                uint32_t n = i - start;
                ok = n == 1 || is_macro(ops + start, n, set, nset);
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
    for (int trial = 0; trial < 3000; trial++) {
        uint16_t ops[12], mops[4][4];
        an_macro set[4];
        uint32_t len = 1 + next(12), scratch[13];
        int32_t choice[12];
        unsigned alphabet = 2 + next(3);
        for (uint32_t i = 0; i < len; i++)
            ops[i] = (uint16_t)next(alphabet);
        size_t nset = next(5);
        for (size_t m = 0; m < nset; m++) {
            set[m].n = 2 + next(3);
            for (unsigned k = 0; k < set[m].n; k++)
                mops[m][k] = (uint16_t)next(alphabet);
            set[m].ops = mops[m];
        }
        uint32_t want = brute_force(ops, len, set, nset);
        assert_int_equal(an_cover(ops, len, set, nset, scratch, NULL), want);
        assert_int_equal(an_cover(ops, len, set, nset, scratch, choice), want);
        /* the reported cover: macros where chosen, single ops elsewhere */
        uint32_t pieces = 0;
        for (uint32_t i = len; i > 0; pieces++) {
            uint32_t n = choice[i - 1] >= 0 ? set[choice[i - 1]].n : 1;
            assert_true(n <= i);
            if (n > 1)
                assert_memory_equal(ops + i - n, set[choice[i - 1]].ops, n * sizeof *ops);
            for (uint32_t k = 1; k < n; k++)
                assert_int_equal(choice[i - 1 - k], -1);
            i -= n;
        }
        assert_int_equal(pieces, want);
    }
}

static void overlapping_occurrences_count_once(void **state)
{
    (void)state;
    const uint16_t ops[] = {7, 7, 7, 7, 7};
    const uint16_t pair[] = {7, 7};
    an_macro set[] = {{pair, 2}};
    uint32_t scratch[6];
    /* four overlapping occurrences, but only two fit: 5 -> 3 dispatches */
    assert_int_equal(an_cover(ops, 5, set, 1, scratch, NULL), 3);
    assert_int_equal(an_cover(ops, 5, NULL, 0, scratch, NULL), 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cover_matches_brute_force),
        cmocka_unit_test(overlapping_occurrences_count_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
