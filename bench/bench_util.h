/* bench_util.h - helpers shared by the benchmark programs: the scale
 * argument, a deterministic PRNG (splitmix64, seeded by the program), and a
 * 64-bit running checksum printed as the last line of every program.
 *
 * Everything here is static inline so each benchmark stays one translation
 * unit, built the same way natively and for wasm32-wasi. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The scale argument: argv[1] as a positive int, or dflt without one.
 * A malformed argument prints a usage line and exits with status 2. */
static inline int bench_scale(int argc, char **argv, int dflt)
{
    if (argc < 2)
        return dflt;
    char *end;
    long v = strtol(argv[1], &end, 10);
    if (*argv[1] == '\0' || *end != '\0' || v < 1 || v > 1000000000L) {
        fprintf(stderr, "usage: %s [SCALE]   (SCALE: a positive integer, default %d)\n",
                argv[0], dflt);
        exit(2);
    }
    return (int)v;
}

/* splitmix64: a small, well-mixed generator; the same sequence everywhere. */
typedef struct {
    uint64_t state;
} bench_rng;

static inline bench_rng bench_rng_seed(uint64_t seed)
{
    bench_rng r = { seed };
    return r;
}

static inline uint64_t bench_rng_u64(bench_rng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint32_t bench_rng_u32(bench_rng *r)
{
    return (uint32_t)(bench_rng_u64(r) >> 32);
}

/* Uniform in [0, n) for n > 0 (multiply-shift; the bias is irrelevant here). */
static inline uint32_t bench_rng_below(bench_rng *r, uint32_t n)
{
    return (uint32_t)(((uint64_t)bench_rng_u32(r) * n) >> 32);
}

/* Uniform double in [0, 1), exactly representable (53 random bits). */
static inline double bench_rng_unit(bench_rng *r)
{
    return (double)(bench_rng_u64(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Running checksum: fold 64-bit values into a hash (order-sensitive). */
#define BENCH_CHECKSUM_INIT 0xcbf29ce484222325ULL

static inline uint64_t bench_mix(uint64_t h, uint64_t v)
{
    h ^= v;
    h *= 0x100000001b3ULL;
    h ^= h >> 29;
    return h;
}

/* Fold a double by its bit pattern, so the check is exact. */
static inline uint64_t bench_mix_double(uint64_t h, double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return bench_mix(h, bits);
}

static inline uint64_t bench_mix_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return bench_mix(h, (uint64_t)n);
}

/* The last line of every benchmark's output. */
static inline void bench_print_checksum(uint64_t h)
{
    printf("checksum %016" PRIx64 "\n", h);
}

/* malloc that never returns NULL: a benchmark cannot do without memory. */
static inline void *bench_alloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory (%zu bytes)\n", n);
        exit(3);
    }
    return p;
}

#endif
