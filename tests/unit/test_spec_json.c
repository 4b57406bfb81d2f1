/*
 * test_spec_json.c - the JSON reader of the spec runner: wast2json's
 * shapes, string escapes (NULs and surrogate pairs in export names), and
 * rejection of bad text with the byte offset.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "spec_json.h"

static spec_json *parse(const char *text)
{
    char err[128];
    spec_json *v = spec_json_parse(text, strlen(text), err, sizeof err);
    if (!v)
        fail_msg("%s", err);
    return v;
}

/* The error message for a text that must be rejected. */
static const char *reject(const char *text, size_t size)
{
    static char err[128];
    spec_json *v = spec_json_parse(text, size, err, sizeof err);
    assert_null(v);
    assert_true(strlen(err) > 0);
    return err;
}

static void a_wast2json_command_is_read(void **state)
{
    (void)state;
    spec_json *root = parse(
        "{\"source_filename\": \"x.wast\",\n \"commands\": [\n"
        "  {\"type\": \"assert_return\", \"line\": 19, \"action\": {\"type\": \"invoke\","
        " \"field\": \"add\", \"args\": [{\"type\": \"f32\", \"value\": \"2147483648\"}]},"
        " \"expected\": []}]}\n");
    const spec_json *cmds = spec_json_array(root, "commands");
    assert_non_null(cmds);
    assert_int_equal(cmds->count, 1);
    const spec_json *c = &cmds->items[0];
    assert_string_equal(spec_json_str(c, "type"), "assert_return");
    long line = 0;
    assert_true(spec_json_long(c, "line", &line));
    assert_int_equal(line, 19);
    const spec_json *action = spec_json_get(c, "action");
    assert_string_equal(spec_json_str(action, "field"), "add");
    const spec_json *args = spec_json_array(action, "args");
    assert_int_equal(args->count, 1);
    assert_string_equal(spec_json_str(&args->items[0], "value"), "2147483648");
    assert_int_equal(spec_json_array(c, "expected")->count, 0);
    spec_json_free(root);
}

static void lookups_of_missing_or_mistyped_members_give_null(void **state)
{
    (void)state;
    spec_json *root = parse("{\"a\": 1, \"s\": \"x\", \"f\": 1.5, \"big\": 99999999999999999999}");
    long n;
    assert_null(spec_json_get(root, "zz"));
    assert_null(spec_json_str(root, "a"));
    assert_null(spec_json_array(root, "s"));
    assert_false(spec_json_long(root, "s", &n));
    assert_false(spec_json_long(root, "f", &n));
    assert_false(spec_json_long(root, "big", &n));
    assert_null(spec_json_get(NULL, "a"));
    assert_null(spec_json_get(spec_json_get(root, "a"), "a")); /* not an object */
    spec_json_free(root);
}

static void escapes_decode_to_utf8_with_nuls_kept(void **state)
{
    (void)state;
    spec_json *root = parse("[\"a\\u0000b\", \"\\u005c\\u0022\\/\\n\\t\", \"\\u00e9\\u20ac\","
                            " \"\\ud83d\\ude00\", \"\xc3\xa9\"]");
    assert_int_equal(root->count, 5);
    assert_int_equal(root->items[0].len, 3);
    assert_memory_equal(root->items[0].str, "a\0b", 3);
    assert_string_equal(root->items[1].str, "\\\"/\n\t");
    assert_string_equal(root->items[2].str, "\xc3\xa9\xe2\x82\xac");
    assert_string_equal(root->items[3].str, "\xf0\x9f\x98\x80");
    assert_string_equal(root->items[4].str, "\xc3\xa9"); /* raw UTF-8 passes through */
    spec_json_free(root);
}

static void literals_numbers_and_empty_containers(void **state)
{
    (void)state;
    spec_json *root = parse(" [true, false, null, -0, 12.5e-3, {}, []] ");
    assert_int_equal(root->count, 7);
    assert_int_equal(root->items[0].kind, SPEC_JSON_TRUE);
    assert_int_equal(root->items[1].kind, SPEC_JSON_FALSE);
    assert_int_equal(root->items[2].kind, SPEC_JSON_NULL);
    assert_string_equal(root->items[3].str, "-0");
    assert_string_equal(root->items[4].str, "12.5e-3");
    assert_int_equal(root->items[5].kind, SPEC_JSON_OBJECT);
    assert_int_equal(root->items[5].count, 0);
    assert_int_equal(root->items[6].kind, SPEC_JSON_ARRAY);
    spec_json_free(root);
}

static void bad_text_is_rejected_with_its_offset(void **state)
{
    (void)state;
    static const char *bad[] = {
        "",          "{",          "[1,]",         "{\"a\" 1}",   "{\"a\": 1,}",
        "\"abc",     "\"\\x\"",    "\"\\u12\"",    "\"\\ud800\"", "\"\\udc00\"",
        "\"\\ud800\\u0041\"",      "01",           "1.",          "-",
        "1e",        "tru",        "[1] 2",        "{1: 2}",      "\"a\tb\"",
        "[nul]",     "\"\\",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        reject(bad[i], strlen(bad[i]));
    assert_string_equal(reject("[1, 2, x]", 9), "at byte 7: bad number");
    /* A NUL byte inside the text is just a bad character. */
    reject("[1,\0 2]", 7);
}

static void nesting_is_limited(void **state)
{
    (void)state;
    char deep[SPEC_JSON_MAX_DEPTH * 2 + 2];
    size_t n = 0;
    for (int i = 0; i < SPEC_JSON_MAX_DEPTH + 1; i++)
        deep[n++] = '[';
    for (int i = 0; i < SPEC_JSON_MAX_DEPTH + 1; i++)
        deep[n++] = ']';
    assert_non_null(strstr(reject(deep, n), "nested"));
    spec_json *ok = spec_json_parse(deep + 1, n - 2, NULL, 0); /* one level less */
    assert_non_null(ok);
    spec_json_free(ok);
}

static void many_items_grow_without_loss(void **state)
{
    (void)state;
    char text[6000];
    size_t n = 0;
    text[n++] = '[';
    for (int i = 0; i < 1000; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s%d", i ? "," : "", i);
    text[n++] = ']';
    spec_json *root = spec_json_parse(text, n, NULL, 0);
    assert_non_null(root);
    assert_int_equal(root->count, 1000);
    assert_string_equal(root->items[999].str, "999");
    spec_json_free(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_wast2json_command_is_read),
        cmocka_unit_test(lookups_of_missing_or_mistyped_members_give_null),
        cmocka_unit_test(escapes_decode_to_utf8_with_nuls_kept),
        cmocka_unit_test(literals_numbers_and_empty_containers),
        cmocka_unit_test(bad_text_is_rejected_with_its_offset),
        cmocka_unit_test(nesting_is_limited),
        cmocka_unit_test(many_items_grow_without_loss),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
