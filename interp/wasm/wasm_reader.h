/*
 * wasm_reader.h - reading the primitive values of the Wasm binary format
 * from a bounded region of a module: bytes, LEB128 integers (with the spec's
 * rules on length and unused bits), floats, vector lengths and UTF-8 names.
 *
 * Every read checks the region's end; every failure formats an error that
 * names the byte offset (from the start of the module) and the problem, and
 * returns -1.  The translator can use a reader over a validated body, whose
 * reads cannot fail.
 */
#ifndef PULLEY_WASM_READER_H
#define PULLEY_WASM_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "wasm_module.h"

typedef struct pvm_wasm_reader {
    const uint8_t *bytes; /* the whole module */
    size_t size;          /* of the whole module */
    size_t pos;           /* next byte to read */
    size_t end;           /* end of the region being read */
    uint32_t func;        /* function being read (for messages), or PVM_WASM_NONE */
    bool in_section;      /* reading inside a section (for messages) */
    pvm_error *err;
} pvm_wasm_reader;

/* A reader over bytes[pos, end) of a module of `size` bytes. */
pvm_wasm_reader pvm_wasm_reader_at(const uint8_t *bytes, size_t size, size_t pos,
                                   size_t end, pvm_error *err);

/* Report a problem at byte offset `at`: "at byte N (0xN)[ in function F]: ..."
 * Always returns -1. */
int pvm_wasm_fail(const pvm_wasm_reader *r, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static inline size_t pvm_wasm_left(const pvm_wasm_reader *r) { return r->end - r->pos; }

/* The readers of a byte and of LEB128 integers.  Most integers in code
 * take one byte: that case is read here, inline; the others, and every
 * failure, by the full readers (wasm_reader.c). */
int pvm_wasm_read_u8_at_end(pvm_wasm_reader *r);
int pvm_wasm_read_leb(pvm_wasm_reader *r, unsigned bits, bool is_signed, uint64_t *out);

static inline int pvm_wasm_read_u8(pvm_wasm_reader *r, uint8_t *out)
{
    if (r->pos >= r->end) {
        *out = 0; /* no byte; written all the same, for the compiler's sake */
        return pvm_wasm_read_u8_at_end(r);
    }
    *out = r->bytes[r->pos++];
    return 0;
}

/* An integer of one byte (bit 7 clear) as its raw bits, sign-extended to
 * 64 when is_signed; else the full reader's result. */
static inline int pvm_wasm_leb_bits(pvm_wasm_reader *r, unsigned bits, bool is_signed,
                                    uint64_t *out)
{
    if (r->pos < r->end && r->bytes[r->pos] < 0x80) {
        uint64_t b = r->bytes[r->pos++];
        *out = is_signed && (b & 0x40) ? b | ~UINT64_C(0x7f) : b;
        return 0;
    }
    return pvm_wasm_read_leb(r, bits, is_signed, out);
}

static inline int pvm_wasm_read_u32(pvm_wasm_reader *r, uint32_t *out)
{
    uint64_t v = 0;
    int rc = pvm_wasm_leb_bits(r, 32, false, &v);
    *out = (uint32_t)v;
    return rc;
}

static inline int pvm_wasm_read_s32(pvm_wasm_reader *r, int32_t *out)
{
    uint64_t v = 0;
    int rc = pvm_wasm_leb_bits(r, 32, true, &v);
    *out = (int32_t)(uint32_t)v;
    return rc;
}

static inline int pvm_wasm_read_s33(pvm_wasm_reader *r, int64_t *out)
{
    uint64_t v = 0;
    int rc = pvm_wasm_leb_bits(r, 33, true, &v);
    *out = (int64_t)v;
    return rc;
}

static inline int pvm_wasm_read_s64(pvm_wasm_reader *r, int64_t *out)
{
    uint64_t v = 0;
    int rc = pvm_wasm_leb_bits(r, 64, true, &v);
    *out = (int64_t)v;
    return rc;
}

/* n raw little-endian bytes (n <= 8) as an integer: f32 and f64 bits. */
int pvm_wasm_read_fixed(pvm_wasm_reader *r, unsigned n, uint64_t *out);
/* A vector length, checked against the bytes left: each element takes at
 * least min_bytes, so a hostile count cannot make the caller over-allocate. */
int pvm_wasm_read_count(pvm_wasm_reader *r, size_t min_bytes, uint32_t *out);
/* A u32 length followed by that many bytes of valid UTF-8. */
int pvm_wasm_read_name(pvm_wasm_reader *r, pvm_wasm_name *out);
/* A value type byte (numeric or reference; v128 is not supported). */
int pvm_wasm_read_valtype(pvm_wasm_reader *r, uint8_t *out);
/* A reference type byte: funcref or externref. */
int pvm_wasm_read_reftype(pvm_wasm_reader *r, uint8_t *out);

/* True if b is the code of a value type we accept. */
int pvm_wasm_is_valtype(unsigned b);
/* True if p[0..len) is valid UTF-8 (no overlong forms, surrogates or
 * code points above U+10FFFF). */
int pvm_wasm_utf8_valid(const uint8_t *p, size_t len);

#endif
