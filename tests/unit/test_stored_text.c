/*
 * test_stored_text.c - the text lists a profile database stores
 * (format/stored_text.h), which the collector writes and every reader
 * parses with the same functions: words are counted whatever the spacing;
 * roles become read and written masks, and a wrong word, too many roles
 * or a count other than the operands' is refused saying which; index
 * lists stay below their limit; integer lists take the whole 64-bit range
 * and refuse overflow and stray characters; what the writer writes, the
 * parser reads back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "stored_text.h"

static void words_are_counted_whatever_the_spacing(void **state)
{
    (void)state;
    assert_int_equal(fmt_count_words(NULL), 0);
    assert_int_equal(fmt_count_words(""), 0);
    assert_int_equal(fmt_count_words("   "), 0);
    assert_int_equal(fmt_count_words("x"), 1);
    assert_int_equal(fmt_count_words(" x  x   s32 "), 3);
}

static void roles_become_read_and_written_masks(void **state)
{
    (void)state;
    uint16_t r, w;
    assert_null(fmt_parse_roles("w r rw", 3, &r, &w));
    assert_int_equal(r, 0x6);
    assert_int_equal(w, 0x5);
    assert_null(fmt_parse_roles("", 0, &r, &w));
    assert_int_equal(r | w, 0);
    assert_null(fmt_parse_roles(NULL, 0, &r, &w));
}

static void wrong_roles_are_refused_saying_why(void **state)
{
    (void)state;
    uint16_t r, w;
    assert_string_equal(fmt_parse_roles("w x", 2, &r, &w), "a role is not r, w or rw");
    assert_string_equal(fmt_parse_roles("wr", 1, &r, &w), "a role is not r, w or rw");
    assert_string_equal(fmt_parse_roles("w r", 1, &r, &w), "more roles than register operands");
    assert_string_equal(fmt_parse_roles("w", 2, &r, &w), "fewer roles than register operands");
    char many[64] = "";
    for (int i = 0; i < 17; i++)
        strcat(many, i ? " r" : "r");
    assert_string_equal(fmt_parse_roles(many, 17, &r, &w), "more than 16 register operands");
    /* every word is checked before the count */
    strcat(many, " q");
    assert_string_equal(fmt_parse_roles(many, 18, &r, &w), "a role is not r, w or rw");
}

static void index_lists_stay_below_their_limit(void **state)
{
    (void)state;
    uint8_t v[4];
    assert_int_equal(fmt_parse_indices(" 0 2  1", v, 4, 3), 3);
    assert_int_equal(v[0], 0);
    assert_int_equal(v[1], 2);
    assert_int_equal(v[2], 1);
    assert_int_equal(fmt_parse_indices("", v, 4, 3), 0);
    assert_int_equal(fmt_parse_indices("3", v, 4, 3), -1);  /* not below the limit */
    assert_int_equal(fmt_parse_indices("-1", v, 4, 3), -1);
    assert_int_equal(fmt_parse_indices("0 0 0 0 0", v, 4, 3), -1); /* more than max */
    assert_int_equal(fmt_parse_indices("a", v, 4, 3), -1);
}

static void integer_lists_take_the_whole_range_and_nothing_else(void **state)
{
    (void)state;
    int64_t v[3];
    assert_int_equal(fmt_parse_ints("-9223372036854775808 9223372036854775807", v, 3), 2);
    assert_true(v[0] == INT64_MIN);
    assert_true(v[1] == INT64_MAX);
    assert_int_equal(fmt_parse_ints("9223372036854775808", v, 3), -1); /* overflow */
    assert_int_equal(fmt_parse_ints("1x", v, 3), -1);
    assert_int_equal(fmt_parse_ints("1 2 3 4", v, 3), -1);
    assert_int_equal(fmt_parse_ints(NULL, v, 3), 0);
}

static void what_is_written_reads_back(void **state)
{
    (void)state;
    const int64_t in[] = {0, -7, INT64_MAX, INT64_MIN};
    char buf[128];
    assert_string_equal(fmt_write_ints(buf, sizeof buf, in, 4),
                        "0 -7 9223372036854775807 -9223372036854775808");
    int64_t out[4];
    assert_int_equal(fmt_parse_ints(buf, out, 4), 4);
    assert_memory_equal(in, out, sizeof in);
    assert_string_equal(fmt_write_ints(buf, sizeof buf, in, 0), "");
    assert_null(fmt_write_ints(buf, 8, in, 4)); /* does not fit */
}

static void flags_are_stored_as_words_lowest_bit_first(void **state)
{
    (void)state;
    char buf[64];
    fmt_flag_words(0, buf, sizeof buf);
    assert_string_equal(buf, "");
    fmt_flag_words(1 | 2, buf, sizeof buf);
    assert_string_equal(buf, "branch term");
    fmt_flag_words(1u << (FMT_FLAG_WORDS - 1) | 8, buf, sizeof buf);
    assert_string_equal(buf, "call adaptive");
    fmt_flag_words(1u << FMT_FLAG_WORDS, buf, sizeof buf); /* no word: left out */
    assert_string_equal(buf, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(words_are_counted_whatever_the_spacing),
        cmocka_unit_test(roles_become_read_and_written_masks),
        cmocka_unit_test(wrong_roles_are_refused_saying_why),
        cmocka_unit_test(index_lists_stay_below_their_limit),
        cmocka_unit_test(integer_lists_take_the_whole_range_and_nothing_else),
        cmocka_unit_test(what_is_written_reads_back),
        cmocka_unit_test(flags_are_stored_as_words_lowest_bit_first),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
