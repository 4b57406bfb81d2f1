/* sha256.c - hashing: a SHA-256 implementation (FIPS 180-4) checked
 * against the standard "abc" test vector, then used to hash a 64 KB
 * pseudo-random buffer repeatedly, each digest feeding the next round's
 * buffer, plus a hash chain of many short messages.
 *
 *   sha256 [ROUNDS]   (default 56 rounds of 64 KB + 2048 short messages) */
#include "bench_util.h"

struct sha256 {
    uint32_t h[8];
    uint8_t block[64];
    uint32_t fill;   /* bytes in block */
    uint64_t total;  /* bytes hashed */
};

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, int n)
{
    return (x >> n) | (x << (32 - n));
}

static void compress(uint32_t h[8], const uint8_t *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = k + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
        uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        k = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += k;
}

static void sha256_init(struct sha256 *s)
{
    static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
    memcpy(s->h, iv, sizeof iv);
    s->fill = 0;
    s->total = 0;
}

static void sha256_update(struct sha256 *s, const uint8_t *p, size_t n)
{
    s->total += n;
    if (s->fill) {
        while (n && s->fill < 64) {
            s->block[s->fill++] = *p++;
            n--;
        }
        if (s->fill < 64)
            return;
        compress(s->h, s->block);
        s->fill = 0;
    }
    for (; n >= 64; n -= 64, p += 64)
        compress(s->h, p);
    memcpy(s->block, p, n);
    s->fill = (uint32_t)n;
}

static void sha256_final(struct sha256 *s, uint8_t out[32])
{
    uint64_t bits = s->total * 8;
    uint8_t pad = 0x80;
    sha256_update(s, &pad, 1);
    pad = 0;
    while (s->fill != 56)
        sha256_update(s, &pad, 1);
    uint8_t len[8];
    for (int i = 0; i < 8; i++)
        len[i] = (uint8_t)(bits >> (56 - 8 * i));
    sha256_update(s, len, 8);
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++)
            out[4 * i + j] = (uint8_t)(s->h[i] >> (24 - 8 * j));
}

static void digest(const void *p, size_t n, uint8_t out[32])
{
    struct sha256 s;
    sha256_init(&s);
    sha256_update(&s, p, n);
    sha256_final(&s, out);
}

static void print_hex(const char *label, const uint8_t d[32])
{
    printf("%s", label);
    for (int i = 0; i < 32; i++)
        printf("%02x", d[i]);
    printf("\n");
}

int main(int argc, char **argv)
{
    int rounds = bench_scale(argc, argv, 56);
    static const uint8_t abc_expected[32] = {
        0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
        0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
    };
    uint8_t d[32];
    digest("abc", 3, d);
    print_hex("sha256(abc) = ", d);
    if (memcmp(d, abc_expected, 32) != 0) {
        fprintf(stderr, "sha256 self-test failed\n");
        return 1;
    }

    enum { SIZE = 1 << 16 };
    uint8_t *buf = bench_alloc(SIZE);
    bench_rng rng = bench_rng_seed(0x5a256);
    for (size_t i = 0; i < SIZE; i++)
        buf[i] = (uint8_t)bench_rng_u32(&rng);
    uint64_t sum = BENCH_CHECKSUM_INIT;
    for (int r = 0; r < rounds; r++) {
        /* one big message fed in uneven pieces, to exercise the buffering */
        struct sha256 s;
        sha256_init(&s);
        size_t off = 0, piece = 1;
        while (off < SIZE) {
            size_t n = piece < SIZE - off ? piece : SIZE - off;
            sha256_update(&s, buf + off, n);
            off += n;
            piece = piece * 3 % 1000 + 1;
        }
        sha256_final(&s, d);
        memcpy(buf + (size_t)r * 32 % SIZE, d, 32);
        sum = bench_mix_bytes(sum, d, 32);
        /* a chain of short messages */
        for (int i = 0; i < 2048; i++)
            digest(d, (size_t)(1 + i % 32), d);
        sum = bench_mix_bytes(sum, d, 32);
    }
    print_hex("final digest = ", d);
    free(buf);
    bench_print_checksum(sum);
    return 0;
}
