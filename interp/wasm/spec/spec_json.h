/*
 * spec_json.h - a small JSON reader for the output of wast2json: the whole
 * text becomes a tree of values.  Robust against bad input: nesting is
 * limited, every allocation is checked, and a bad text is rejected with a
 * message naming the byte offset.
 *
 * Strings are decoded (escapes, \u surrogate pairs to UTF-8) into
 * NUL-terminated buffers that may hold NULs themselves: `len` is their true
 * length (export names in the spec suite contain "\u0000").  Numbers are
 * kept as their text; spec_json_long() converts integers.
 */
#ifndef PULLEY_SPEC_JSON_H
#define PULLEY_SPEC_JSON_H

#include <stdbool.h>
#include <stddef.h>

#define SPEC_JSON_MAX_DEPTH 64

typedef enum spec_json_kind {
    SPEC_JSON_NULL,
    SPEC_JSON_FALSE,
    SPEC_JSON_TRUE,
    SPEC_JSON_NUMBER, /* str holds the number's text */
    SPEC_JSON_STRING,
    SPEC_JSON_ARRAY,
    SPEC_JSON_OBJECT,
} spec_json_kind;

typedef struct spec_json spec_json;
struct spec_json {
    spec_json_kind kind;
    char *str;         /* NUMBER, STRING: NUL-terminated */
    size_t len;        /* bytes in str */
    char *key;         /* a member of an OBJECT: its key (NUL-terminated) */
    size_t key_len;
    spec_json *items;  /* ARRAY elements or OBJECT members, in order */
    size_t count;
};

/* Parse `size` bytes of text.  Returns the root value, or NULL with a
 * message ("at byte N: ...") in err (errcap bytes; may be 0). */
spec_json *spec_json_parse(const char *text, size_t size, char *err, size_t errcap);
void spec_json_free(spec_json *v);

/* The member `key` of an object (the first one if repeated), or NULL if v
 * is NULL, not an object, or has no such member. */
const spec_json *spec_json_get(const spec_json *v, const char *key);
/* The string member `key`, or NULL if missing or not a string. */
const char *spec_json_str(const spec_json *v, const char *key);
/* The array member `key`, or NULL if missing or not an array. */
const spec_json *spec_json_array(const spec_json *v, const char *key);
/* The integer member `key` (a number without fraction or exponent that
 * fits a long) into *out; false if missing or not such a number. */
bool spec_json_long(const spec_json *v, const char *key, long *out);

#endif
