/*
 * spec_values.h - the values of a spec test script, as wast2json writes
 * them: {"type": "i32", "value": "4294967295"} (integers and floats as the
 * unsigned decimal of their bits), "nan:canonical" / "nan:arithmetic"
 * result patterns for floats, and references ("null", or the number of an
 * extern reference).  Parsing checks ranges; matching compares bits.
 */
#ifndef PULLEY_SPEC_VALUES_H
#define PULLEY_SPEC_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spec_json.h"

typedef enum spec_value_kind {
    SPEC_VALUE_BITS,           /* a number: `bits` */
    SPEC_VALUE_NULL,           /* a null reference */
    SPEC_VALUE_REF,            /* a non-null reference: externref `bits` */
    SPEC_VALUE_NAN_CANONICAL,  /* pattern: a canonical NaN of either sign */
    SPEC_VALUE_NAN_ARITHMETIC, /* pattern: a NaN with the quiet bit set */
} spec_value_kind;

typedef struct spec_value {
    uint8_t type; /* pvm_wasm_valtype code: 0x7F i32 ... 0x6F externref */
    uint8_t kind; /* spec_value_kind */
    uint64_t bits; /* i32 and f32: in the low 32 bits, the rest zero */
} spec_value;

/* Parse one value ({"type": ..., "value": ...}).  Patterns are accepted only
 * if `pattern` (an expected result).  Returns false with a message in err
 * (errcap bytes) if the object is not a value of a supported type. */
bool spec_value_parse(const spec_json *v, bool pattern, spec_value *out, char *err,
                      size_t errcap);

/* True if `actual` (a value, not a pattern) matches `expected`: same type,
 * and bit-identical, or a NaN the pattern accepts. */
bool spec_value_matches(const spec_value *expected, const spec_value *actual);

/* "i32:42", "f32:0x7fc00000 (nan)", "f64:0x3ff0000000000000 (1)",
 * "externref:null", "f32:nan:canonical" ... into buf. */
void spec_value_format(const spec_value *v, char *buf, size_t cap);

/* The value type code named `name` ("i32", ..., "externref"), or 0. */
uint8_t spec_valtype_by_name(const char *name);

#endif
