/*
 * test_base.c - base/: the array growth helper (from empty, doubling, a
 * need beyond double, overflow refused with the array intact), FNV-1a 64
 * (its published test vectors) and base_fail (a message cut to its buffer).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/error.h"
#include "base/grow.h"
#include "base/hash.h"

static void growth_from_empty_takes_the_first_capacity(void **state)
{
    (void)state;
    int *v = NULL;
    size_t cap = 0;
    assert_int_equal(BASE_GROW(v, cap, 1, 16), 0);
    assert_non_null(v);
    assert_int_equal(cap, 16);
    for (int i = 0; i < 16; i++)
        v[i] = i;
    assert_int_equal(BASE_GROW(v, cap, 16, 16), 0); /* room already */
    assert_int_equal(cap, 16);
    free(v);
}

static void a_full_array_doubles_and_keeps_its_items(void **state)
{
    (void)state;
    uint64_t *v = NULL;
    size_t cap = 0;
    for (size_t n = 0; n < 100; n++) {
        size_t before = cap;
        assert_int_equal(BASE_GROW(v, cap, n + 1, 4), 0);
        assert_int_equal(cap, n < before ? before : before ? 2 * before : 4);
        v[n] = n * 3;
    }
    assert_int_equal(cap, 128);
    for (size_t n = 0; n < 100; n++)
        assert_int_equal(v[n], n * 3);
    free(v);
}

static void a_need_beyond_double_is_met(void **state)
{
    (void)state;
    char *v = NULL;
    size_t cap = 0;
    assert_int_equal(BASE_GROW(v, cap, 1000, 8), 0);
    assert_int_equal(cap, 1000);
    memset(v, 'x', 1000);
    assert_int_equal(BASE_GROW(v, cap, 5000, 8), 0);
    assert_int_equal(cap, 5000);
    assert_int_equal(v[999], 'x');
    free(v);

    void *raw = NULL;
    cap = 0;
    assert_int_equal(base_grow(&raw, &cap, 3, 24, 2), 0); /* the function form */
    assert_int_equal(cap, 3);
    free(raw);
}

static void an_overflowing_size_is_refused_with_the_array_intact(void **state)
{
    (void)state;
    uint32_t *v = malloc(4 * sizeof *v);
    assert_non_null(v);
    for (uint32_t i = 0; i < 4; i++)
        v[i] = i + 7;
    uint32_t *before = v;
    /* A capacity whose double does not fit in bytes (the array is really
     * 4 items: realloc must not be reached). */
    size_t cap = SIZE_MAX / sizeof *v / 2 + 1, need = cap + 1;
    assert_int_equal(BASE_GROW(v, cap, need, 16), -1);
    assert_ptr_equal(v, before);
    assert_int_equal(cap, SIZE_MAX / sizeof *v / 2 + 1);
    /* A need that does not fit, from a capacity whose double would. */
    cap = 4;
    assert_int_equal(BASE_GROW(v, cap, SIZE_MAX / sizeof *v + 1, 16), -1);
    assert_int_equal(BASE_GROW(v, cap, SIZE_MAX, 16), -1);
    /* A capacity past half of SIZE_MAX. */
    cap = SIZE_MAX / 2 + 1;
    assert_int_equal(BASE_GROW(v, cap, SIZE_MAX, 16), -1);
    assert_int_equal(cap, SIZE_MAX / 2 + 1);
    void *raw = v;
    cap = 4;
    assert_int_equal(base_grow(&raw, &cap, 5, SIZE_MAX / 4, 16), -1);
    assert_ptr_equal(raw, before);
    assert_int_equal(cap, 4);
    assert_int_equal(base_grow(&raw, &cap, 5, 0, 16), -1); /* no item size */
    assert_ptr_equal(v, before);
    for (uint32_t i = 0; i < 4; i++)
        assert_int_equal(v[i], i + 7);
    free(v);
}

static void fnv1a64_gives_the_published_values(void **state)
{
    (void)state;
    assert_true(BASE_FNV1A64_INIT == UINT64_C(0xcbf29ce484222325));
    assert_true(base_fnv1a64_str(BASE_FNV1A64_INIT, "") == UINT64_C(0xcbf29ce484222325));
    assert_true(base_fnv1a64_str(BASE_FNV1A64_INIT, "a") == UINT64_C(0xaf63dc4c8601ec8c));
    assert_true(base_fnv1a64_str(BASE_FNV1A64_INIT, "foobar") == UINT64_C(0x85944171f73967e8));
    assert_true(base_fnv1a64_bytes(BASE_FNV1A64_INIT, "foobar", 6) ==
                UINT64_C(0x85944171f73967e8));
    assert_true(base_fnv1a64_bytes(BASE_FNV1A64_INIT, NULL, 0) == BASE_FNV1A64_INIT);
    /* Continuing: "foo" then "bar" is "foobar"; a step is one byte. */
    uint64_t h = base_fnv1a64_str(BASE_FNV1A64_INIT, "foo");
    assert_true(base_fnv1a64_bytes(h, "bar", 3) == UINT64_C(0x85944171f73967e8));
    assert_true(base_fnv1a64_step(BASE_FNV1A64_INIT, 'a') == UINT64_C(0xaf63dc4c8601ec8c));
}

static void a_failure_says_why_cut_to_its_buffer_and_returns_minus_one(void **state)
{
    (void)state;
    char err[16];
    assert_int_equal(base_fail(err, sizeof err, "row %d: %s", 7, "bad"), -1);
    assert_string_equal(err, "row 7: bad");
    assert_int_equal(base_fail(err, 8, "%s", "a long message"), -1);
    assert_string_equal(err, "a long ");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(growth_from_empty_takes_the_first_capacity),
        cmocka_unit_test(a_full_array_doubles_and_keeps_its_items),
        cmocka_unit_test(a_need_beyond_double_is_met),
        cmocka_unit_test(an_overflowing_size_is_refused_with_the_array_intact),
        cmocka_unit_test(fnv1a64_gives_the_published_values),
        cmocka_unit_test(a_failure_says_why_cut_to_its_buffer_and_returns_minus_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
