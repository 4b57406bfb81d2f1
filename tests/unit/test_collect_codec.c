/*
 * test_collect_codec.c - sample stream chunks: every stream decodes to
 * exactly what was encoded, in both formats and however pathological
 * (empty, one sample, all host, huge jumps, pc or tick going backwards, the
 * extreme 64-bit values, every pc distinct, dictionary sizes at powers of
 * two, many slots sampled at one tick); chunks written by the old collector
 * (dzv1-zlib) still decode; dzv2 stays near the entropy of the pcs; and
 * damaged chunks are refused, not misread.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "sample_codec.h"

static const sample_format formats[] = {SAMPLE_FORMAT_DZV2_RC, SAMPLE_FORMAT_DZV1_ZLIB};

/* A small deterministic generator (64-bit LCG, high bits). */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint64_t rnd(void)
{
    rng_state = rng_state * 6364136223846793005u + 1442695040888963407u;
    uint64_t hi = rng_state >> 32;
    rng_state = rng_state * 6364136223846793005u + 1442695040888963407u;
    return hi << 32 | rng_state >> 32;
}

static size_t encode_as(sample_format f, const sample_rec *s, size_t n, uint8_t **data)
{
    char err[256];
    size_t len, raw;
    if (sample_encode_as(f, s, n, data, &len, &raw, err, sizeof err) != 0)
        fail_msg("encoding %zu samples as %s: %s", n, sample_format_name(f), err);
    return len;
}

static void assert_decodes_to(const uint8_t *data, size_t len, const sample_rec *s, size_t n)
{
    char err[256];
    sample_rec *back = NULL;
    size_t m = 99;
    if (sample_decode(data, len, &back, &m, err, sizeof err) != 0)
        fail_msg("decoding %zu samples: %s", n, err);
    assert_int_equal(m, n);
    if (n)
        assert_memory_equal(back, s, n * sizeof *s);
    else
        assert_null(back);
    free(back);
}

/* Both formats give s back; dzv2 chunks start with 0x02, dzv1 ones are
 * zlib streams (0x78). */
static void round_trip(const sample_rec *s, size_t n)
{
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++) {
        uint8_t *data;
        size_t len = encode_as(formats[i], s, n, &data);
        assert_int_equal(data[0], formats[i] == SAMPLE_FORMAT_DZV2_RC ? 0x02 : 0x78);
        assert_decodes_to(data, len, s, n);
        free(data);
    }
}

static void empty_stream(void **state)
{
    (void)state;
    round_trip(NULL, 0);
}

static void single_sample(void **state)
{
    (void)state;
    round_trip(&(sample_rec){1, 0x7f0012345678}, 1);
    round_trip(&(sample_rec){0, 0}, 1);
    round_trip(&(sample_rec){UINT64_MAX, UINT64_MAX}, 1);
}

static void all_host(void **state)
{
    (void)state;
    sample_rec s[1000];
    for (size_t i = 0; i < 1000; i++)
        s[i] = (sample_rec){i + 1, 0};
    round_trip(s, 1000);
    memset(s, 0, sizeof s);
    round_trip(s, 1000);
}

static void huge_jumps_and_going_backwards(void **state)
{
    (void)state;
    sample_rec s[] = {
        {0, UINT64_MAX}, {1, 0},          {1, UINT64_MAX}, {UINT64_MAX, 1},
        {0, INT64_MAX},  {5, (uint64_t)INT64_MIN}, {6, 0x7fffffff0000}, {7, 0x1000},
        {7, 0x7fffffff0000}, {UINT64_MAX, UINT64_MAX - 1}, {3, UINT64_MAX - 1}, {2, 1},
    };
    round_trip(s, sizeof s / sizeof *s);
}

/* Several VMs: every tick is sampled once per slot, so tick deltas are 0. */
static void several_slots_share_a_tick(void **state)
{
    (void)state;
    enum { N = 3000 };
    static sample_rec s[N];
    for (size_t i = 0; i < N; i++)
        s[i] = (sample_rec){1 + i / 3, i % 3 == 2 ? 0 : 0x40000 + 4 * (rnd() % 50)};
    round_trip(s, N);
}

/* Every pc distinct (the dictionary as large as the chunk), and
 * dictionaries of 2^b - 1, 2^b and 2^b + 1 pcs (index trees of b bits, a
 * full one, b + 1 bits). */
static void dictionary_sizes(void **state)
{
    (void)state;
    enum { N = 20000 };
    sample_rec *s = malloc(N * sizeof *s);
    assert_non_null(s);
    for (size_t i = 0; i < N; i++)
        s[i] = (sample_rec){i, rnd()};
    round_trip(s, N);
    static const size_t sizes[] = {2, 3, 127, 128, 129, 4095, 4096, 4097};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        for (size_t i = 0; i < N; i++)
            s[i] = (sample_rec){i, 0x10000 + 2 * (i < sizes[k] ? i : rnd() % sizes[k])};
        round_trip(s, N);
    }
    free(s);
}

/* The largest chunk allowed (of 300 pcs); one more is refused. */
static void the_largest_chunk(void **state)
{
    (void)state;
    sample_rec *s = malloc((SAMPLE_CHUNK_MAX + 1) * sizeof *s);
    assert_non_null(s);
    for (size_t i = 0; i <= SAMPLE_CHUNK_MAX; i++)
        s[i] = (sample_rec){i, 0x7f0000000000u + 4 * (rnd() % 300)};
    uint8_t *data;
    size_t len = encode_as(SAMPLE_FORMAT_DZV2_RC, s, SAMPLE_CHUNK_MAX, &data);
    assert_decodes_to(data, len, s, SAMPLE_CHUNK_MAX);
    free(data);
    char err[256];
    size_t raw;
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++) {
        assert_int_equal(sample_encode_as(formats[i], s, SAMPLE_CHUNK_MAX + 1, &data, &len, &raw,
                                          err, sizeof err),
                         -1);
        assert_non_null(strstr(err, "too large"));
    }
    free(s);
}

/* Random streams mixing the shapes above, many short ones. */
static void random_streams(void **state)
{
    (void)state;
    sample_rec s[600];
    for (int round = 0; round < 300; round++) {
        size_t n = rnd() % 600;
        uint64_t tick = rnd() % 3 ? 0 : rnd(), base = rnd();
        unsigned shape = (unsigned)(rnd() % 4);
        for (size_t i = 0; i < n; i++) {
            tick += rnd() % 8 ? 1 : rnd() % 3 ? 0 : rnd();
            uint64_t pc = shape == 0   ? base + rnd() % 16
                          : shape == 1 ? rnd()
                          : shape == 2 ? (rnd() % 5 ? base + 4 * (rnd() % 300) : 0)
                                       : base - i * 3;
            s[i] = (sample_rec){tick, pc};
        }
        round_trip(s, n);
    }
}

/* ---- compression ------------------------------------------------------- */

static void a_hot_loop_compresses_below_half_a_byte_per_sample(void **state)
{
    (void)state;
    enum { N = 8192 };
    sample_rec *s = malloc(N * sizeof *s);
    assert_non_null(s);
    for (size_t i = 0; i < N; i++)
        s[i] = (sample_rec){i + 1, 0x7f0000001000u + 3 * (rnd() % 4)}; /* 4 instructions */
    uint8_t *data;
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++) {
        size_t len = encode_as(formats[i], s, N, &data);
        assert_true(len * 2 < N);
        free(data);
    }
    free(s);
}

/* Independent samples from a skewed distribution over 400 pcs spread over
 * a megabyte of code: dzv2 spends little more than their entropy, and far
 * less than dzv1. */
static void dzv2_stays_near_the_entropy(void **state)
{
    (void)state;
    enum { N = 16384, K = 400 };
    uint64_t pcs[K];
    double weight[K], total = 0, cumulative[K];
    for (size_t j = 0; j < K; j++) {
        pcs[j] = 0x7f0000000000u + (rnd() % (1 << 20)) * 2;
        weight[j] = 1.0 / (double)(j + 1); /* Zipf */
        total += weight[j];
    }
    for (size_t j = 0; j < K; j++)
        cumulative[j] = (j ? cumulative[j - 1] : 0) + weight[j] / total;
    sample_rec *s = malloc(N * sizeof *s);
    assert_non_null(s);
    size_t counts[K] = {0};
    for (size_t i = 0; i < N; i++) {
        double u = (double)(rnd() >> 11) / 9007199254740992.0;
        size_t j = 0;
        while (j + 1 < K && cumulative[j] < u)
            j++;
        counts[j]++;
        s[i] = (sample_rec){i + 1, pcs[j]};
    }
    double bits = 0; /* empirical order-0 entropy of the pcs, in total */
    for (size_t j = 0; j < K; j++)
        if (counts[j])
            bits -= (double)counts[j] * log2((double)counts[j] / N);
    uint8_t *v1, *v2;
    size_t len1 = encode_as(SAMPLE_FORMAT_DZV1_ZLIB, s, N, &v1);
    size_t len2 = encode_as(SAMPLE_FORMAT_DZV2_RC, s, N, &v2);
    assert_decodes_to(v2, len2, s, N);
    /* The dictionary costs ~3 bytes a pc; adapting fast costs ~10%. */
    if ((double)len2 > 1.15 * bits / 8 + 3.0 * K || len2 * 10 > len1 * 8)
        fail_msg("dzv2 %zu bytes, dzv1 %zu, entropy %.0f bytes", len2, len1, bits / 8);
    free(v1);
    free(v2);
    free(s);
}

/* ---- chunks of the old format ------------------------------------------ */

/* Written by the schema version 1 collector (dzv1-zlib) for these samples. */
static const sample_rec old_samples[] = {
    {1, 0x7f001000}, {2, 0x7f001004}, {3, 0}, {5, 0x7f001000},
    {5, 0x7f0020a0}, {6, 0x7f001004}, {4, UINT64_MAX},
};
static const uint8_t old_chunk[] = {
    0x78, 0xda, 0x63, 0x67, 0x62, 0x62, 0x62, 0x61, 0x60, 0x62, 0x6e, 0x38, 0xd0,
    0xf0, 0x81, 0x9f, 0xa3, 0x1d, 0x44, 0x82, 0x99, 0x07, 0x9c, 0xb6, 0x3b, 0x75,
    0x82, 0x18, 0x00, 0xad, 0x3a, 0x0d, 0x26,
};

static size_t put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    for (; v >= 0x80; v >>= 7)
        p[n++] = (uint8_t)(v | 0x80);
    p[n++] = (uint8_t)v;
    return n;
}

static uint64_t zigzag(uint64_t d) { return (d << 1) ^ (0 - (d >> 63)); }

/* dzv1 written here from its description in sample_codec.h. */
static size_t dzv1_by_hand(const sample_rec *s, size_t n, uint8_t *out, size_t cap)
{
    uint8_t raw[4096];
    size_t len = put_varint(raw, n);
    for (size_t i = 0; i < n; i++)
        len += put_varint(raw + len, zigzag(s[i].tick - (i ? s[i - 1].tick : 0)));
    for (size_t i = 0; i < n; i++)
        len += put_varint(raw + len, zigzag(s[i].pc - (i ? s[i - 1].pc : 0)));
    uLongf zlen = cap;
    assert_int_equal(compress2(out, &zlen, raw, len, 6), Z_OK);
    return zlen;
}

static void old_format_chunks_still_decode(void **state)
{
    (void)state;
    size_t n = sizeof old_samples / sizeof *old_samples;
    assert_decodes_to(old_chunk, sizeof old_chunk, old_samples, n);
    uint8_t by_hand[4096];
    assert_decodes_to(by_hand, dzv1_by_hand(old_samples, n, by_hand, sizeof by_hand),
                      old_samples, n);
    sample_rec s[100];
    for (size_t i = 0; i < 100; i++)
        s[i] = (sample_rec){i * 2, rnd() % 3 ? 0x5000 + 4 * (rnd() % 20) : rnd()};
    assert_decodes_to(by_hand, dzv1_by_hand(s, 100, by_hand, sizeof by_hand), s, 100);
}

/* ---- damage ------------------------------------------------------------- */

static void assert_refused(const uint8_t *data, size_t len, const char *why)
{
    char err[256] = "";
    sample_rec *back = (sample_rec *)1;
    size_t n = 99;
    assert_int_equal(sample_decode(data, len, &back, &n, err, sizeof err), -1);
    assert_null(back);
    if (!strstr(err, why))
        fail_msg("error \"%s\" does not say \"%s\"", err, why);
}

static void damaged_chunks_are_refused(void **state)
{
    (void)state;
    sample_rec s[64];
    for (size_t i = 0; i < 64; i++)
        s[i] = (sample_rec){i, 0x1000 + i * 7};
    for (size_t f = 0; f < sizeof formats / sizeof *formats; f++) {
        uint8_t *data;
        size_t len = encode_as(formats[f], s, 64, &data);
        assert_refused(data, len - 3, "is not valid");      /* truncated */
        assert_refused(data, 1, "is not valid");            /* its first byte only */
        uint8_t *longer = malloc(len + 1);                  /* a byte left over */
        assert_non_null(longer);
        memcpy(longer, data, len);
        longer[len] = 0;
        assert_refused(longer, len + 1, "sample chunk");
        for (size_t at = 1; at < len; at += 3) {            /* one bit flipped */
            memcpy(longer, data, len);
            longer[at] ^= 0x10;
            assert_refused(longer, len, "sample chunk");
        }
        free(longer);
        free(data);
    }
    static const uint8_t junk[] = "this is not a sample chunk";
    assert_refused(junk, sizeof junk, "unknown format");
    assert_refused(junk, 0, "empty");
}

/* A dzv2 chunk with a valid checksum around the given bytes. */
static size_t dzv2_with_body(const uint8_t *body, size_t n, uint8_t *out)
{
    out[0] = 0x02;
    memcpy(out + 1, body, n);
    uint32_t crc = (uint32_t)crc32(0, out, (uInt)(n + 1));
    for (int i = 0; i < 4; i++)
        out[n + 1 + i] = (uint8_t)(crc >> (8 * i));
    return n + 5;
}

/* Well-checksummed nonsense: bad counts, nonzero first coder byte, random
 * bytes - refused (or, for random bytes, decoded to something) without
 * reading outside the chunk. */
static void malformed_dzv2_is_refused(void **state)
{
    (void)state;
    uint8_t chunk[300];
    static const uint8_t more_pcs_than_samples[] = {3, 4, 0, 0, 0, 0, 0, 0};
    assert_refused(chunk, dzv2_with_body(more_pcs_than_samples, 8, chunk), "pc count");
    static const uint8_t no_pcs[] = {3, 0, 0, 0, 0, 0, 0, 0};
    assert_refused(chunk, dzv2_with_body(no_pcs, 8, chunk), "pc count");
    static const uint8_t too_many[] = {0x81, 0x80, 0x80, 0x01, 1, 0, 0, 0, 0, 0};
    assert_refused(chunk, dzv2_with_body(too_many, 10, chunk), "pc count");
    static const uint8_t bad_first_byte[] = {1, 1, 7, 0, 0, 0, 0, 0};
    assert_refused(chunk, dzv2_with_body(bad_first_byte, 8, chunk), "malformed coded data");
    uint8_t body[200];
    for (int round = 0; round < 3000; round++) {
        size_t len = 3 + rnd() % 190;
        for (size_t i = 0; i < len; i++)
            body[i] = (uint8_t)rnd();
        body[0] = (uint8_t)(1 + rnd() % 120); /* samples */
        body[1] = (uint8_t)(1 + rnd() % body[0]); /* pcs */
        body[2] = 0;
        char err[256];
        sample_rec *back = NULL;
        size_t n = 0;
        if (sample_decode(chunk, dzv2_with_body(body, len, chunk), &back, &n, err,
                          sizeof err) == 0)
            assert_int_equal(n, body[0]);
        free(back);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(empty_stream),
        cmocka_unit_test(single_sample),
        cmocka_unit_test(all_host),
        cmocka_unit_test(huge_jumps_and_going_backwards),
        cmocka_unit_test(several_slots_share_a_tick),
        cmocka_unit_test(dictionary_sizes),
        cmocka_unit_test(the_largest_chunk),
        cmocka_unit_test(random_streams),
        cmocka_unit_test(a_hot_loop_compresses_below_half_a_byte_per_sample),
        cmocka_unit_test(dzv2_stays_near_the_entropy),
        cmocka_unit_test(old_format_chunks_still_decode),
        cmocka_unit_test(damaged_chunks_are_refused),
        cmocka_unit_test(malformed_dzv2_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
