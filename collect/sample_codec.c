/*
 * sample_codec.c - delta + zigzag + varint coding of sample streams, then
 * zlib (format in sample_codec.h).  Every zlib return code is checked.
 */
#include "sample_codec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

#define VARINT_MAX 10
/* Bytes before zlib: the count, then two varints per sample. */
#define RAW_BOUND(n) (VARINT_MAX + (n) * 2 * VARINT_MAX)

static int fail(char *err, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return -1;
}

static uint64_t zigzag(uint64_t d) { return (d << 1) ^ (0 - (d >> 63)); }
static uint64_t unzigzag(uint64_t z) { return (z >> 1) ^ (0 - (z & 1)); }

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* Read a varint from [*p, end); -1 if truncated or longer than 64 bits. */
static int get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    uint64_t r = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (*p == end)
            return -1;
        uint8_t b = *(*p)++;
        if (shift == 63 && b > 1)
            return -1;
        r |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = r;
            return 0;
        }
    }
    return -1;
}

int sample_encode(const sample_rec *s, size_t n, uint8_t **out, size_t *outlen, size_t *rawlen,
                  char *err, size_t errcap)
{
    if (n > SAMPLE_CHUNK_MAX)
        return fail(err, errcap, "sample chunk of %zu samples is too large", n);
    uint8_t *raw = malloc(RAW_BOUND(n));
    if (!raw)
        return fail(err, errcap, "out of memory encoding %zu samples", n);
    uint8_t *p = put_varint(raw, n);
    uint64_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        p = put_varint(p, zigzag(s[i].tick - prev));
        prev = s[i].tick;
    }
    prev = 0;
    for (size_t i = 0; i < n; i++) {
        p = put_varint(p, zigzag(s[i].pc - prev));
        prev = s[i].pc;
    }
    uLong raw_size = (uLong)(p - raw);
    uLongf zsize = compressBound(raw_size);
    uint8_t *z = malloc(zsize);
    if (!z) {
        free(raw);
        return fail(err, errcap, "out of memory compressing %zu samples", n);
    }
    int rc = compress2(z, &zsize, raw, raw_size, Z_BEST_COMPRESSION);
    free(raw);
    if (rc != Z_OK) {
        free(z);
        return fail(err, errcap, "zlib compress2 failed: %s", zError(rc));
    }
    *out = z;
    *outlen = zsize;
    *rawlen = raw_size;
    return 0;
}

/* Inflate data into a new buffer of at most `limit` bytes. */
static int inflate_all(const uint8_t *data, size_t len, size_t limit, uint8_t **out,
                       size_t *outlen, char *err, size_t errcap)
{
    if (len > UINT32_MAX)
        return fail(err, errcap, "sample chunk of %zu bytes is too large", len);
    size_t cap = len < limit / 4 ? len * 4 + 64 : limit, size = 0;
    uint8_t *buf = malloc(cap);
    if (!buf)
        return fail(err, errcap, "out of memory decoding a sample chunk");
    z_stream zs = {0};
    int rc = inflateInit(&zs);
    if (rc != Z_OK) {
        free(buf);
        return fail(err, errcap, "zlib inflateInit failed: %s", zError(rc));
    }
    zs.next_in = (Bytef *)data;
    zs.avail_in = (uInt)len;
    const char *problem = NULL;
    for (;;) {
        size_t room = cap - size;
        zs.next_out = buf + size;
        zs.avail_out = room > UINT32_MAX ? UINT32_MAX : (uInt)room;
        uInt before = zs.avail_out;
        rc = inflate(&zs, Z_NO_FLUSH);
        size += before - zs.avail_out;
        if (rc == Z_STREAM_END) {
            if (zs.avail_in != 0)
                problem = "bytes follow its zlib stream";
            break;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            problem = zs.msg ? zs.msg : zError(rc);
            break;
        }
        if (size < cap) { /* room left but no progress: the input ran out */
            if (rc == Z_BUF_ERROR) {
                problem = "truncated zlib stream";
                break;
            }
            continue;
        }
        if (cap >= limit) {
            problem = "too large once expanded";
            break;
        }
        cap = cap > limit / 2 ? limit : cap * 2;
        uint8_t *grown = realloc(buf, cap);
        if (!grown) {
            problem = "out of memory";
            break;
        }
        buf = grown;
    }
    inflateEnd(&zs);
    if (problem) {
        free(buf);
        return fail(err, errcap, "sample chunk is not valid: %s", problem);
    }
    *out = buf;
    *outlen = size;
    return 0;
}

int sample_decode(const uint8_t *data, size_t len, sample_rec **out, size_t *n, char *err,
                  size_t errcap)
{
    uint8_t *raw = NULL;
    size_t rawlen = 0;
    if (inflate_all(data, len, RAW_BOUND(SAMPLE_CHUNK_MAX), &raw, &rawlen, err, errcap) != 0)
        return -1;
    const uint8_t *p = raw, *end = raw + rawlen;
    uint64_t count;
    sample_rec *s = NULL;
    if (get_varint(&p, end, &count) != 0 || count > SAMPLE_CHUNK_MAX ||
        count > (uint64_t)(end - p) / 2) {
        free(raw);
        return fail(err, errcap, "sample chunk has a bad sample count");
    }
    if (count > 0 && !(s = malloc(count * sizeof *s))) {
        free(raw);
        return fail(err, errcap, "out of memory decoding %llu samples",
                    (unsigned long long)count);
    }
    uint64_t tick = 0, pc = 0, d;
    for (size_t i = 0; i < count; i++) {
        if (get_varint(&p, end, &d) != 0)
            goto bad;
        s[i].tick = tick += unzigzag(d);
    }
    for (size_t i = 0; i < count; i++) {
        if (get_varint(&p, end, &d) != 0)
            goto bad;
        s[i].pc = pc += unzigzag(d);
    }
    if (p != end)
        goto bad;
    free(raw);
    *out = s;
    *n = count;
    return 0;
bad:
    free(raw);
    free(s);
    return fail(err, errcap, "sample chunk is malformed (bad varint or trailing bytes)");
}
