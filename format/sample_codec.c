/*
 * sample_codec.c - sample stream chunks (formats in sample_codec.h): the
 * dzv2-rc encoder and decoder (a dictionary of distinct pcs, then a range
 * coder, range_coder.h), and the dzv1-zlib ones (delta + zigzag + varint,
 * then zlib) that older databases hold.  Every zlib return code and every
 * allocation is checked; a damaged chunk is refused, never misread.
 */
#include "sample_codec.h"
#include "base/error.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "range_coder.h"

#define VARINT_MAX 10
/* dzv1 bytes before zlib: the count, then two varints per sample. */
#define RAW_BOUND(n) (VARINT_MAX + (n) * 2 * VARINT_MAX)
/* The first byte of a dzv2 chunk (a zlib stream starts with 0x78). */
#define DZV2_FORMAT_BYTE 0x02
/* dzv2: format byte, two varints, the coder's 5 bytes at least, CRC. */
#define DZV2_HEADER_MAX (1 + 2 * VARINT_MAX)
#define DZV2_CRC_BYTES 4


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


/* ---- dzv1-zlib -------------------------------------------------------------- */

static int encode_v1(const sample_rec *s, size_t n, uint8_t **out, size_t *outlen, size_t *rawlen,
                     char *err, size_t errcap)
{
    uint8_t *raw = malloc(RAW_BOUND(n));
    if (!raw)
        return base_fail(err, errcap, "out of memory encoding %zu samples", n);
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
        return base_fail(err, errcap, "out of memory compressing %zu samples", n);
    }
    int rc = compress2(z, &zsize, raw, raw_size, Z_BEST_COMPRESSION);
    free(raw);
    if (rc != Z_OK) {
        free(z);
        return base_fail(err, errcap, "zlib compress2 failed: %s", zError(rc));
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
        return base_fail(err, errcap, "sample chunk of %zu bytes is too large", len);
    size_t cap = len < limit / 4 ? len * 4 + 64 : limit, size = 0;
    uint8_t *buf = malloc(cap);
    if (!buf)
        return base_fail(err, errcap, "out of memory decoding a sample chunk");
    z_stream zs = {0};
    int rc = inflateInit(&zs);
    if (rc != Z_OK) {
        free(buf);
        return base_fail(err, errcap, "zlib inflateInit failed: %s", zError(rc));
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
        return base_fail(err, errcap, "sample chunk is not valid: %s", problem);
    }
    *out = buf;
    *outlen = size;
    return 0;
}

static int decode_v1(const uint8_t *data, size_t len, sample_rec **out, size_t *n, char *err,
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
        return base_fail(err, errcap, "sample chunk has a bad sample count");
    }
    if (count > 0 && !(s = malloc(count * sizeof *s))) {
        free(raw);
        return base_fail(err, errcap, "out of memory decoding %llu samples",
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
    return base_fail(err, errcap, "sample chunk is malformed (bad varint or trailing bytes)");
}

/* ---- dzv2-rc --------------------------------------------------------------- */

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The distinct pcs of s, ascending, into dict (n entries of room). */
static size_t distinct_pcs(const sample_rec *s, size_t n, uint64_t *dict)
{
    for (size_t i = 0; i < n; i++)
        dict[i] = s[i].pc;
    qsort(dict, n, sizeof *dict, compare_u64);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || dict[i] != dict[k - 1])
            dict[k++] = dict[i];
    return k;
}

/* Position of pc in dict[0..k) (it is there). */
static uint32_t dict_index(const uint64_t *dict, size_t k, uint64_t pc)
{
    size_t lo = 0, hi = k;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (dict[mid] <= pc)
            lo = mid;
        else
            hi = mid;
    }
    return (uint32_t)lo;
}

/* Bits of an index into k entries. */
static unsigned index_bits(size_t k) { return k > 1 ? rc_bit_length(k - 1) : 0; }

static void put_u32le(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Range-code the dictionary and the samples into e. */
static void code_body(rc_encoder *e, const sample_rec *s, size_t n, const uint64_t *dict,
                      size_t k, uint16_t *tree)
{
    rc_number_model dict_model, tick_model;
    rc_number_model_init(&dict_model);
    rc_number_model_init(&tick_model);
    for (size_t j = 0; j < k; j++)
        rc_encode_number(e, &dict_model, j ? dict[j] - dict[j - 1] - 1 : dict[0]);
    unsigned bits = index_bits(k);
    rc_probs_init(tree, (size_t)1 << bits);
    uint64_t tick = 0;
    for (size_t i = 0; i < n; i++) {
        rc_encode_number(e, &tick_model, s[i].tick - tick);
        tick = s[i].tick;
        rc_encode_tree(e, tree, bits, dict_index(dict, k, s[i].pc));
    }
    rc_encoder_finish(e);
}

static int encode_v2(const sample_rec *s, size_t n, uint8_t **out, size_t *outlen, size_t *rawlen,
                     char *err, size_t errcap)
{
    uint64_t *dict = malloc((n ? n : 1) * sizeof *dict);
    if (!dict)
        return base_fail(err, errcap, "out of memory encoding %zu samples", n);
    size_t k = distinct_pcs(s, n, dict);
    uint16_t *tree = malloc(((size_t)1 << index_bits(k)) * sizeof *tree);
    rc_encoder e;
    rc_encoder_init(&e);
    if (tree)
        code_body(&e, s, n, dict, k, tree);
    free(tree);
    free(dict);
    uint8_t *chunk = NULL;
    if (tree && !e.failed)
        chunk = malloc(DZV2_HEADER_MAX + e.len + DZV2_CRC_BYTES);
    if (!chunk) {
        free(e.buf);
        return base_fail(err, errcap, "out of memory encoding %zu samples", n);
    }
    uint8_t *p = chunk;
    *p++ = DZV2_FORMAT_BYTE;
    p = put_varint(p, n);
    p = put_varint(p, k);
    memcpy(p, e.buf, e.len);
    p += e.len;
    free(e.buf);
    size_t len = (size_t)(p - chunk);
    put_u32le(p, (uint32_t)crc32(0, chunk, (uInt)len));
    *out = chunk;
    *outlen = len + DZV2_CRC_BYTES;
    *rawlen = n * sizeof *s;
    return 0;
}

/* Decode the dictionary and the samples from d into dict and s. */
static bool decode_body(rc_decoder *d, sample_rec *s, size_t n, uint64_t *dict, size_t k,
                        uint16_t *tree)
{
    rc_number_model dict_model, tick_model;
    rc_number_model_init(&dict_model);
    rc_number_model_init(&tick_model);
    uint64_t v;
    for (size_t j = 0; j < k; j++) {
        if (!rc_decode_number(d, &dict_model, &v) || d->overrun)
            return false;
        if (j && v >= UINT64_MAX - dict[j - 1])
            return false; /* past the largest pc */
        dict[j] = j ? dict[j - 1] + v + 1 : v;
    }
    unsigned bits = index_bits(k);
    rc_probs_init(tree, (size_t)1 << bits);
    uint64_t tick = 0;
    for (size_t i = 0; i < n; i++) {
        if (!rc_decode_number(d, &tick_model, &v))
            return false;
        s[i].tick = tick += v;
        uint32_t index = rc_decode_tree(d, tree, bits);
        if (index >= k || d->overrun)
            return false;
        s[i].pc = dict[index];
    }
    return rc_decoder_done(d);
}

static int decode_v2(const uint8_t *data, size_t len, sample_rec **out, size_t *n, char *err,
                     size_t errcap)
{
    if (len < 1 + 2 + 5 + DZV2_CRC_BYTES)
        return base_fail(err, errcap, "sample chunk is not valid: %zu bytes are too few", len);
    if (len > UINT32_MAX)
        return base_fail(err, errcap, "sample chunk of %zu bytes is too large", len);
    const uint8_t *end = data + len - DZV2_CRC_BYTES;
    if (get_u32le(end) != (uint32_t)crc32(0, data, (uInt)(len - DZV2_CRC_BYTES)))
        return base_fail(err, errcap,
                    "sample chunk is not valid: its checksum does not match (damaged or cut short)");
    const uint8_t *p = data + 1;
    uint64_t count, k;
    if (get_varint(&p, end, &count) != 0 || get_varint(&p, end, &k) != 0 ||
        count > SAMPLE_CHUNK_MAX || k > count || (k == 0) != (count == 0))
        return base_fail(err, errcap, "sample chunk is not valid: bad sample or pc count");
    sample_rec *s = malloc((count ? count : 1) * sizeof *s);
    uint64_t *dict = malloc((k ? k : 1) * sizeof *dict);
    uint16_t *tree = malloc(((size_t)1 << index_bits(k)) * sizeof *tree);
    int rc = 0;
    if (!s || !dict || !tree)
        rc = base_fail(err, errcap, "out of memory decoding %llu samples", (unsigned long long)count);
    else {
        rc_decoder d;
        if (!rc_decoder_init(&d, p, end) || !decode_body(&d, s, count, dict, k, tree))
            rc = base_fail(err, errcap, "sample chunk is not valid: malformed coded data, or"
                                   " bytes missing or left over");
    }
    free(dict);
    free(tree);
    if (rc != 0 || count == 0) {
        free(s);
        s = NULL;
    }
    if (rc == 0) {
        *out = s;
        *n = count;
    }
    return rc;
}

/* ---- the formats ------------------------------------------------------------ */

const char *sample_format_name(sample_format format)
{
    return format == SAMPLE_FORMAT_DZV1_ZLIB ? SAMPLE_ENCODING_V1 : SAMPLE_ENCODING;
}

int sample_encode_as(sample_format format, const sample_rec *s, size_t n, uint8_t **out,
                     size_t *outlen, size_t *rawlen, char *err, size_t errcap)
{
    if (n > SAMPLE_CHUNK_MAX)
        return base_fail(err, errcap, "sample chunk of %zu samples is too large", n);
    if (format == SAMPLE_FORMAT_DZV1_ZLIB)
        return encode_v1(s, n, out, outlen, rawlen, err, errcap);
    return encode_v2(s, n, out, outlen, rawlen, err, errcap);
}

int sample_encode(const sample_rec *s, size_t n, uint8_t **out, size_t *outlen, size_t *rawlen,
                  char *err, size_t errcap)
{
    return sample_encode_as(SAMPLE_FORMAT_DZV2_RC, s, n, out, outlen, rawlen, err, errcap);
}

int sample_decode(const uint8_t *data, size_t len, sample_rec **out, size_t *n, char *err,
                  size_t errcap)
{
    *out = NULL;
    *n = 0;
    if (len == 0)
        return base_fail(err, errcap, "sample chunk is not valid: it is empty");
    if (data[0] == DZV2_FORMAT_BYTE)
        return decode_v2(data, len, out, n, err, errcap);
    if (data[0] == 0x78) /* zlib, deflate with a 32 KiB window: dzv1 */
        return decode_v1(data, len, out, n, err, errcap);
    return base_fail(err, errcap, "sample chunk is not valid: unknown format (first byte 0x%02x)",
                data[0]);
}
