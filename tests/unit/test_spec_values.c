/*
 * test_spec_values.c - script values: parsing wast2json's value objects
 * (ranges, patterns, references) and matching results bit for bit.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "spec_values.h"
#include "wasm_module.h"

/* Parse {"type": TYPE, "value": VALUE} (VALUE NULL: no value member). */
static bool parse(const char *type, const char *value, bool pattern, spec_value *out)
{
    char text[256], err[128];
    if (value)
        snprintf(text, sizeof text, "{\"type\": \"%s\", \"value\": \"%s\"}", type, value);
    else
        snprintf(text, sizeof text, "{\"type\": \"%s\"}", type);
    spec_json *v = spec_json_parse(text, strlen(text), err, sizeof err);
    assert_non_null(v);
    bool ok = spec_value_parse(v, pattern, out, err, sizeof err);
    if (!ok)
        assert_true(strlen(err) > 0);
    spec_json_free(v);
    return ok;
}

static spec_value value(const char *type, const char *text)
{
    spec_value v;
    assert_true(parse(type, text, false, &v));
    return v;
}

static spec_value pattern(const char *type, const char *text)
{
    spec_value v;
    assert_true(parse(type, text, true, &v));
    return v;
}

static spec_value bits(uint8_t type, uint64_t b)
{
    return (spec_value){.type = type, .kind = SPEC_VALUE_BITS, .bits = b};
}

/* Does `expected` match a number of this type and these bits? */
static bool matches(const spec_value *expected, uint8_t type, uint64_t b)
{
    spec_value actual = bits(type, b);
    return spec_value_matches(expected, &actual);
}

static void numbers_are_the_decimal_of_their_bits(void **state)
{
    (void)state;
    assert_int_equal(value("i32", "4294967295").bits, UINT32_MAX);
    assert_int_equal(value("i64", "18446744073709551615").bits, UINT64_MAX);
    assert_int_equal(value("f32", "2143289344").bits, 0x7fc00000);
    assert_int_equal(value("f64", "9221120237041090560").bits, UINT64_C(0x7ff8000000000000));
    assert_int_equal(value("i32", "0").type, PVM_WASM_I32);
    assert_int_equal(value("f64", "0").type, PVM_WASM_F64);
}

static void out_of_range_or_malformed_numbers_are_rejected(void **state)
{
    (void)state;
    spec_value v;
    assert_false(parse("i32", "4294967296", false, &v));
    assert_false(parse("f32", "4294967296", false, &v));
    assert_false(parse("i64", "18446744073709551616", false, &v));
    assert_false(parse("i32", "-1", false, &v));
    assert_false(parse("i32", " 1", false, &v));
    assert_false(parse("i32", "1x", false, &v));
    assert_false(parse("i32", "", false, &v));
    assert_false(parse("i32", NULL, false, &v));
    assert_false(parse("v128", "0", false, &v));
    assert_false(parse("i32", "null", false, &v));
}

static void nan_patterns_only_where_results_are_expected(void **state)
{
    (void)state;
    spec_value v;
    assert_int_equal(pattern("f32", "nan:canonical").kind, SPEC_VALUE_NAN_CANONICAL);
    assert_int_equal(pattern("f64", "nan:arithmetic").kind, SPEC_VALUE_NAN_ARITHMETIC);
    assert_false(parse("f32", "nan:canonical", false, &v)); /* not as an argument */
    assert_false(parse("i32", "nan:canonical", true, &v));  /* not for integers */
}

static void canonical_nan_is_either_sign_quiet_bit_alone(void **state)
{
    (void)state;
    spec_value c32 = pattern("f32", "nan:canonical"), c64 = pattern("f64", "nan:canonical");
    assert_true(matches(&c32, PVM_WASM_F32, 0x7fc00000));
    assert_true(matches(&c32, PVM_WASM_F32, 0xffc00000));
    assert_false(matches(&c32, PVM_WASM_F32, 0x7fc00001));
    assert_false(matches(&c32, PVM_WASM_F32, 0x7f800000)); /* inf */
    assert_false(matches(&c32, PVM_WASM_F64, 0x7fc00000));
    assert_true(matches(&c64, PVM_WASM_F64, UINT64_C(0xfff8000000000000)));
    assert_false(matches(&c64, PVM_WASM_F64, UINT64_C(0x7ff8000000000001)));
    /* An f32 canonical NaN's bits are no f64 NaN. */
    assert_false(matches(&c64, PVM_WASM_F64, 0x7fc00000));
}

static void arithmetic_nan_is_any_quiet_nan(void **state)
{
    (void)state;
    spec_value a32 = pattern("f32", "nan:arithmetic"), a64 = pattern("f64", "nan:arithmetic");
    assert_true(matches(&a32, PVM_WASM_F32, 0x7fc00000));
    assert_true(matches(&a32, PVM_WASM_F32, 0xffe00001));
    assert_false(matches(&a32, PVM_WASM_F32, 0x7fa00000)); /* signalling */
    assert_false(matches(&a32, PVM_WASM_F32, 0x3fc00000));
    assert_true(matches(&a64, PVM_WASM_F64, UINT64_C(0x7ffc000000000000)));
    assert_false(matches(&a64, PVM_WASM_F64, UINT64_C(0x7ff4000000000000)));
}

static void floats_compare_by_bits(void **state)
{
    (void)state;
    spec_value pz = value("f32", "0"), nz = value("f32", "2147483648");
    assert_false(spec_value_matches(&pz, &nz)); /* +0 is not -0 */
    assert_true(spec_value_matches(&nz, &nz));
    spec_value nan = value("f64", "9221120237041090561"); /* a payload */
    assert_true(matches(&nan, PVM_WASM_F64, nan.bits));
    assert_false(matches(&nan, PVM_WASM_F64, nan.bits - 1));
    /* Same bits, other type: no match. */
    spec_value i = value("i32", "0");
    assert_false(spec_value_matches(&pz, &i));
}

static void references_null_and_extern_values(void **state)
{
    (void)state;
    spec_value fnull = value("funcref", "null"), enull = value("externref", "null");
    spec_value e42 = value("externref", "42"), e0 = value("externref", "0");
    spec_value v;
    assert_int_equal(fnull.kind, SPEC_VALUE_NULL);
    assert_int_equal(e42.kind, SPEC_VALUE_REF);
    assert_int_equal(e42.bits, 42);
    assert_int_equal(e0.kind, SPEC_VALUE_REF); /* ref.extern 0 is not null */
    assert_false(spec_value_matches(&enull, &e0));
    assert_false(spec_value_matches(&e0, &enull));
    assert_true(spec_value_matches(&e42, &e42));
    spec_value e41 = e42;
    e41.bits = 41;
    assert_false(spec_value_matches(&e42, &e41));
    assert_false(spec_value_matches(&fnull, &enull)); /* types differ */
    assert_false(parse("funcref", "3", false, &v)); /* funcrefs have no numbers */
    assert_false(parse("externref", NULL, true, &v));
}

static void values_print_with_type_and_bits(void **state)
{
    (void)state;
    char buf[96];
    spec_value_format(&(spec_value[]){bits(PVM_WASM_F32, 0x3f800000)}[0], buf, sizeof buf);
    assert_string_equal(buf, "f32:0x3f800000 (1)");
    spec_value_format(&(spec_value[]){bits(PVM_WASM_I32, 0xffffffff)}[0], buf, sizeof buf);
    assert_string_equal(buf, "i32:4294967295 (0xffffffff)");
    spec_value n = pattern("f64", "nan:canonical");
    spec_value_format(&n, buf, sizeof buf);
    assert_string_equal(buf, "f64:nan:canonical");
    spec_value e = value("externref", "null");
    spec_value_format(&e, buf, sizeof buf);
    assert_string_equal(buf, "externref:null");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(numbers_are_the_decimal_of_their_bits),
        cmocka_unit_test(out_of_range_or_malformed_numbers_are_rejected),
        cmocka_unit_test(nan_patterns_only_where_results_are_expected),
        cmocka_unit_test(canonical_nan_is_either_sign_quiet_bit_alone),
        cmocka_unit_test(arithmetic_nan_is_any_quiet_nan),
        cmocka_unit_test(floats_compare_by_bits),
        cmocka_unit_test(references_null_and_extern_values),
        cmocka_unit_test(values_print_with_type_and_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
