/*
 * test_collect_codec.c - sample stream compression: every stream decodes to
 * exactly what was encoded, however pathological (empty, one sample, all
 * zeros, huge deltas, pc going backwards, the extreme 64-bit values), and
 * damaged chunks are refused, not misread.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sample_codec.h"

static void round_trip(const sample_rec *s, size_t n)
{
    char err[256];
    uint8_t *data;
    size_t len, raw;
    assert_int_equal(sample_encode(s, n, &data, &len, &raw, err, sizeof err), 0);
    sample_rec *back = NULL;
    size_t m = 99;
    assert_int_equal(sample_decode(data, len, &back, &m, err, sizeof err), 0);
    assert_int_equal(m, n);
    if (n)
        assert_memory_equal(back, s, n * sizeof *s);
    free(back);
    free(data);
}

static void empty_stream(void **state)
{
    (void)state;
    round_trip(NULL, 0);
}

static void single_sample(void **state)
{
    (void)state;
    round_trip(&(sample_rec){1, 0x7f0012345678}, 1);
}

static void all_zeros(void **state)
{
    (void)state;
    sample_rec s[1000] = {{0, 0}};
    round_trip(s, 1000);
}

static void huge_deltas_and_pc_going_backwards(void **state)
{
    (void)state;
    sample_rec s[] = {
        {0, UINT64_MAX}, {1, 0},          {1, UINT64_MAX}, {UINT64_MAX, 1},
        {0, INT64_MAX},  {5, (uint64_t)INT64_MIN}, {6, 0x7fffffff0000}, {7, 0x1000},
        {7, 0x7fffffff0000}, {UINT64_MAX, UINT64_MAX - 1},
    };
    round_trip(s, sizeof s / sizeof *s);
}

static void a_hot_loop_compresses_below_half_a_byte_per_sample(void **state)
{
    (void)state;
    enum { N = 8192 };
    sample_rec *s = malloc(N * sizeof *s);
    assert_non_null(s);
    uint64_t x = 12345;
    for (size_t i = 0; i < N; i++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        s[i] = (sample_rec){i + 1, 0x7f0000001000u + 3 * ((x >> 33) % 4)}; /* 4 instructions */
    }
    char err[256];
    uint8_t *data;
    size_t len, raw;
    assert_int_equal(sample_encode(s, N, &data, &len, &raw, err, sizeof err), 0);
    assert_true(len * 2 < N);
    free(data);
    round_trip(s, N);
    free(s);
}

static void damaged_chunks_are_refused(void **state)
{
    (void)state;
    sample_rec s[64];
    for (size_t i = 0; i < 64; i++)
        s[i] = (sample_rec){i, 0x1000 + i * 7};
    char err[256];
    uint8_t *data;
    size_t len, raw;
    assert_int_equal(sample_encode(s, 64, &data, &len, &raw, err, sizeof err), 0);
    sample_rec *back = NULL;
    size_t n;
    /* truncated */
    assert_int_equal(sample_decode(data, len - 3, &back, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "sample chunk"));
    /* not zlib at all */
    static const uint8_t junk[] = "this is not a sample chunk";
    assert_int_equal(sample_decode(junk, sizeof junk, &back, &n, err, sizeof err), -1);
    /* trailing bytes after the stream */
    uint8_t *longer = malloc(len + 1);
    assert_non_null(longer);
    memcpy(longer, data, len);
    longer[len] = 0;
    assert_int_equal(sample_decode(longer, len + 1, &back, &n, err, sizeof err), -1);
    assert_null(back);
    free(longer);
    free(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(empty_stream),
        cmocka_unit_test(single_sample),
        cmocka_unit_test(all_zeros),
        cmocka_unit_test(huge_deltas_and_pc_going_backwards),
        cmocka_unit_test(a_hot_loop_compresses_below_half_a_byte_per_sample),
        cmocka_unit_test(damaged_chunks_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
