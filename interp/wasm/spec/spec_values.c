/*
 * spec_values.c - parsing, matching and printing script values (see
 * spec_values.h).  Float comparisons are on bits, never on C floats, so
 * -0 differs from +0 and NaN payloads count.
 */
#include "spec_values.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasm_module.h"

#define F32_EXP UINT64_C(0x7f800000)
#define F32_QUIET UINT64_C(0x00400000)
#define F32_MAG UINT64_C(0x7fffffff)
#define F64_EXP UINT64_C(0x7ff0000000000000)
#define F64_QUIET UINT64_C(0x0008000000000000)
#define F64_MAG UINT64_C(0x7fffffffffffffff)

uint8_t spec_valtype_by_name(const char *name)
{
    static const struct {
        const char *name;
        uint8_t type;
    } types[] = {
        {"i32", PVM_WASM_I32},         {"i64", PVM_WASM_I64},
        {"f32", PVM_WASM_F32},         {"f64", PVM_WASM_F64},
        {"funcref", PVM_WASM_FUNCREF}, {"externref", PVM_WASM_EXTERNREF},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (name && !strcmp(name, types[i].name))
            return types[i].type;
    return 0;
}

/* An unsigned decimal of at most `max` into *out. */
static bool parse_unsigned(const char *s, uint64_t max, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return false;
    errno = 0;
    char *end;
    unsigned long long n = strtoull(s, &end, 10);
    if (errno || *end || n > max)
        return false;
    *out = n;
    return true;
}

static bool is_ref(uint8_t type)
{
    return type == PVM_WASM_FUNCREF || type == PVM_WASM_EXTERNREF;
}

bool spec_value_parse(const spec_json *v, bool pattern, spec_value *out, char *err,
                      size_t errcap)
{
    const char *tname = spec_json_str(v, "type");
    const char *text = spec_json_str(v, "value");
    uint8_t type = spec_valtype_by_name(tname);
    if (!type) {
        snprintf(err, errcap, "unsupported value type %s", tname ? tname : "(none)");
        return false;
    }
    *out = (spec_value){.type = type, .kind = SPEC_VALUE_BITS};
    bool narrow = type == PVM_WASM_I32 || type == PVM_WASM_F32;
    bool is_float = type == PVM_WASM_F32 || type == PVM_WASM_F64;
    if (text && is_float && pattern && !strcmp(text, "nan:canonical"))
        out->kind = SPEC_VALUE_NAN_CANONICAL;
    else if (text && is_float && pattern && !strcmp(text, "nan:arithmetic"))
        out->kind = SPEC_VALUE_NAN_ARITHMETIC;
    else if (text && is_ref(type) && !strcmp(text, "null"))
        out->kind = SPEC_VALUE_NULL;
    else if (type == PVM_WASM_EXTERNREF && parse_unsigned(text, UINT64_MAX, &out->bits))
        out->kind = SPEC_VALUE_REF;
    else if (is_ref(type) || !parse_unsigned(text, narrow ? UINT32_MAX : UINT64_MAX, &out->bits)) {
        snprintf(err, errcap, "bad %s value %s", tname, text ? text : "(none)");
        return false;
    }
    return true;
}

bool spec_value_matches(const spec_value *expected, const spec_value *actual)
{
    if (expected->type != actual->type)
        return false;
    bool f32 = expected->type == PVM_WASM_F32;
    uint64_t exp = f32 ? F32_EXP : F64_EXP, quiet = f32 ? F32_QUIET : F64_QUIET;
    uint64_t mag = actual->bits & (f32 ? F32_MAG : F64_MAG);
    switch (expected->kind) {
    case SPEC_VALUE_NAN_CANONICAL:
        return actual->kind == SPEC_VALUE_BITS && mag == (exp | quiet);
    case SPEC_VALUE_NAN_ARITHMETIC:
        return actual->kind == SPEC_VALUE_BITS && (mag & (exp | quiet)) == (exp | quiet);
    case SPEC_VALUE_NULL:
        return actual->kind == SPEC_VALUE_NULL;
    default:
        return actual->kind == expected->kind && actual->bits == expected->bits;
    }
}

void spec_value_format(const spec_value *v, char *buf, size_t cap)
{
    const char *t = pvm_wasm_valtype_name(v->type);
    switch (v->kind) {
    case SPEC_VALUE_NAN_CANONICAL: snprintf(buf, cap, "%s:nan:canonical", t); return;
    case SPEC_VALUE_NAN_ARITHMETIC: snprintf(buf, cap, "%s:nan:arithmetic", t); return;
    case SPEC_VALUE_NULL: snprintf(buf, cap, "%s:null", t); return;
    case SPEC_VALUE_REF: snprintf(buf, cap, "%s:%" PRIu64, t, v->bits); return;
    default: break;
    }
    if (v->type == PVM_WASM_F32) {
        uint32_t b = (uint32_t)v->bits;
        float f;
        memcpy(&f, &b, sizeof f);
        snprintf(buf, cap, "f32:0x%08" PRIx32 " (%.9g)", b, (double)f);
    } else if (v->type == PVM_WASM_F64) {
        double d;
        memcpy(&d, &v->bits, sizeof d);
        snprintf(buf, cap, "f64:0x%016" PRIx64 " (%.17g)", v->bits, d);
    } else if (v->type == PVM_WASM_I32) {
        snprintf(buf, cap, "i32:%" PRIu32 " (0x%" PRIx32 ")", (uint32_t)v->bits, (uint32_t)v->bits);
    } else {
        snprintf(buf, cap, "%s:%" PRIu64 " (0x%" PRIx64 ")", t, v->bits, v->bits);
    }
}
