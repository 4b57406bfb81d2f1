/*
 * wasm_reader.c - primitive values of the Wasm binary format: bytes, LEB128
 * integers, fixed-width floats, vector lengths, UTF-8 names, value types.
 *
 * LEB128 follows the spec exactly: an N-bit integer takes at most
 * ceil(N/7) bytes ("integer representation too long" otherwise), and the
 * unused bits of the last possible byte must be zero for unsigned integers
 * and copies of the sign bit for signed ones ("integer too large").
 */
#include "wasm_reader.h"

#include <stdarg.h>
#include <stdio.h>

pvm_wasm_reader pvm_wasm_reader_at(const uint8_t *bytes, size_t size, size_t pos,
                                   size_t end, pvm_error *err)
{
    pvm_wasm_reader r = {bytes, size, pos, end, PVM_WASM_NONE, false, err};
    return r;
}

int pvm_wasm_fail(const pvm_wasm_reader *r, size_t at, const char *fmt, ...)
{
    if (!r->err)
        return -1;
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (r->func != PVM_WASM_NONE)
        return pvm_errorf(r->err, "at byte %zu (0x%zx) in function %u: %s", at, at,
                          r->func, what);
    return pvm_errorf(r->err, "at byte %zu (0x%zx): %s", at, at, what);
}

static int unexpected_end(const pvm_wasm_reader *r)
{
    if (r->in_section || r->end < r->size)
        return pvm_wasm_fail(r, r->pos, "unexpected end of section or function");
    return pvm_wasm_fail(r, r->pos, "unexpected end");
}

int pvm_wasm_read_u8_at_end(pvm_wasm_reader *r) { return unexpected_end(r); }

/* An LEB128 integer of `bits` bits (32, 33 or 64), signed or not, as the
 * raw two's-complement bits (sign-extended to 64 for signed values). */
int pvm_wasm_read_leb(pvm_wasm_reader *r, unsigned bits, bool is_signed, uint64_t *out)
{
    size_t start = r->pos;
    unsigned max_bytes = (bits + 6) / 7;
    uint64_t v = 0;
    for (unsigned i = 0;; i++) {
        if (r->pos >= r->end)
            return unexpected_end(r);
        uint8_t b = r->bytes[r->pos++];
        unsigned shift = 7 * i;
        if (i == max_bytes - 1) {
            if (b & 0x80)
                return pvm_wasm_fail(r, start, "integer representation too long");
            /* The bits of b above the integer's width must be zero
             * (unsigned) or copies of the integer's top bit (signed). */
            unsigned used = bits - shift; /* 1..7 value bits in b */
            uint8_t unused = (uint8_t)(0x7F & ~((1u << used) - 1));
            uint8_t top = (uint8_t)(1u << (used - 1));
            uint8_t expect = (is_signed && (b & top)) ? unused : 0;
            if ((b & unused) != expect)
                return pvm_wasm_fail(r, start, "integer too large");
            v |= (uint64_t)(b & 0x7F) << shift;
            if (is_signed && (b & top) && shift + 7 < 64)
                v |= ~(uint64_t)0 << (shift + 7);
            break;
        }
        v |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) {
            if (is_signed && (b & 0x40))
                v |= ~(uint64_t)0 << (shift + 7);
            break;
        }
    }
    *out = v;
    return 0;
}

int pvm_wasm_read_fixed(pvm_wasm_reader *r, unsigned n, uint64_t *out)
{
    if (pvm_wasm_left(r) < n) {
        r->pos = r->end;
        return unexpected_end(r);
    }
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)r->bytes[r->pos + i] << (8 * i);
    r->pos += n;
    *out = v;
    return 0;
}

int pvm_wasm_read_count(pvm_wasm_reader *r, size_t min_bytes, uint32_t *out)
{
    size_t at = r->pos;
    if (pvm_wasm_read_u32(r, out))
        return -1;
    if (min_bytes && *out > pvm_wasm_left(r) / min_bytes)
        return pvm_wasm_fail(r, at, "unexpected end of section or function: %u "
                             "elements in %zu bytes", *out, pvm_wasm_left(r));
    return 0;
}

int pvm_wasm_read_name(pvm_wasm_reader *r, pvm_wasm_name *out)
{
    uint32_t len;
    if (pvm_wasm_read_u32(r, &len))
        return -1;
    if (len > pvm_wasm_left(r))
        return pvm_wasm_fail(r, r->pos, "length out of bounds: name of %u bytes, %zu left",
                             len, pvm_wasm_left(r));
    const uint8_t *p = r->bytes + r->pos;
    if (!pvm_wasm_utf8_valid(p, len))
        return pvm_wasm_fail(r, r->pos, "malformed UTF-8 encoding");
    out->str = (const char *)p;
    out->len = len;
    r->pos += len;
    return 0;
}

int pvm_wasm_is_valtype(unsigned b)
{
    switch (b) {
    case PVM_WASM_I32: case PVM_WASM_I64: case PVM_WASM_F32: case PVM_WASM_F64:
    case PVM_WASM_FUNCREF: case PVM_WASM_EXTERNREF:
        return 1;
    default:
        return 0;
    }
}

int pvm_wasm_read_valtype(pvm_wasm_reader *r, uint8_t *out)
{
    size_t at = r->pos;
    if (pvm_wasm_read_u8(r, out))
        return -1;
    if (*out == 0x7B)
        return pvm_wasm_fail(r, at, "malformed value type: v128 (SIMD is not supported)");
    if (!pvm_wasm_is_valtype(*out))
        return pvm_wasm_fail(r, at, "malformed value type 0x%02x", *out);
    return 0;
}

int pvm_wasm_read_reftype(pvm_wasm_reader *r, uint8_t *out)
{
    size_t at = r->pos;
    if (pvm_wasm_read_u8(r, out))
        return -1;
    if (*out != PVM_WASM_FUNCREF && *out != PVM_WASM_EXTERNREF)
        return pvm_wasm_fail(r, at, "malformed reference type 0x%02x", *out);
    return 0;
}

int pvm_wasm_utf8_valid(const uint8_t *p, size_t len)
{
    size_t i = 0;
    while (i < len) {
        uint8_t b = p[i];
        size_t n;     /* continuation bytes */
        uint8_t lo = 0x80, hi = 0xBF; /* range of the first continuation byte */
        if (b < 0x80) {
            i++;
            continue;
        } else if (b >= 0xC2 && b <= 0xDF) {
            n = 1;
        } else if (b >= 0xE0 && b <= 0xEF) {
            n = 2;
            if (b == 0xE0)
                lo = 0xA0; /* overlong */
            if (b == 0xED)
                hi = 0x9F; /* surrogates */
        } else if (b >= 0xF0 && b <= 0xF4) {
            n = 3;
            if (b == 0xF0)
                lo = 0x90; /* overlong */
            if (b == 0xF4)
                hi = 0x8F; /* above U+10FFFF */
        } else {
            return 0;
        }
        if (len - i - 1 < n)
            return 0;
        if (p[i + 1] < lo || p[i + 1] > hi)
            return 0;
        for (size_t k = 2; k <= n; k++)
            if (p[i + k] < 0x80 || p[i + k] > 0xBF)
                return 0;
        i += n + 1;
    }
    return 1;
}
