/* bitops.c - integer and bit manipulation: a bit-array prime sieve, then a
 * stream of pseudo-random words pushed through bit tricks (SWAR popcount,
 * bit reversal, Gray code, Morton interleaving, rotates, byte swaps, count
 * leading/trailing zeros, Gosper's next-combination) in 32 and 64 bits.
 *
 *   bitops [ROUNDS]   (default 34: each round sieves and mixes 64K words) */
#include "bench_util.h"

static uint32_t popcount64(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return (uint32_t)((x * 0x0101010101010101ULL) >> 56);
}

static uint32_t reverse32(uint32_t x)
{
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
    return (x >> 16) | (x << 16);
}

static uint32_t gray_decode(uint32_t g)
{
    g ^= g >> 16;
    g ^= g >> 8;
    g ^= g >> 4;
    g ^= g >> 2;
    g ^= g >> 1;
    return g;
}

/* Spread the low 16 bits of x to the even bit positions. */
static uint32_t spread16(uint32_t x)
{
    x &= 0xffff;
    x = (x | (x << 8)) & 0x00ff00ffu;
    x = (x | (x << 4)) & 0x0f0f0f0fu;
    x = (x | (x << 2)) & 0x33333333u;
    x = (x | (x << 1)) & 0x55555555u;
    return x;
}

static uint32_t compact16(uint32_t x)
{
    x &= 0x55555555u;
    x = (x | (x >> 1)) & 0x33333333u;
    x = (x | (x >> 2)) & 0x0f0f0f0fu;
    x = (x | (x >> 4)) & 0x00ff00ffu;
    x = (x | (x >> 8)) & 0x0000ffffu;
    return x;
}

static uint64_t rotl64(uint64_t x, unsigned r)
{
    r &= 63;
    return r ? (x << r) | (x >> (64 - r)) : x;
}

static uint32_t rotr32(uint32_t x, unsigned r)
{
    r &= 31;
    return r ? (x >> r) | (x << (32 - r)) : x;
}

static uint64_t bswap64(uint64_t x)
{
    x = ((x & 0x00ff00ff00ff00ffULL) << 8) | ((x >> 8) & 0x00ff00ff00ff00ffULL);
    x = ((x & 0x0000ffff0000ffffULL) << 16) | ((x >> 16) & 0x0000ffff0000ffffULL);
    return (x << 32) | (x >> 32);
}

/* The next larger word with the same number of set bits (Gosper's hack). */
static uint32_t next_combination(uint32_t x)
{
    uint32_t low = x & -x;
    uint32_t ripple = x + low;
    return ripple | (((x ^ ripple) >> 2) / low);
}

/* Count primes below n with a bit array of odd numbers. */
static uint32_t sieve_bits(uint64_t *bits, uint32_t n)
{
    uint32_t odds = n / 2; /* bit i stands for 2i+1 */
    uint32_t words = (odds + 63) / 64;
    memset(bits, 0, words * sizeof *bits);
    bits[0] |= 1; /* 1 is not prime */
    for (uint32_t i = 1; (2 * i + 1) * (2 * i + 1) < n; i++) {
        if (bits[i >> 6] >> (i & 63) & 1)
            continue;
        uint32_t p = 2 * i + 1;
        for (uint32_t j = (p * p) / 2; j < odds; j += p)
            bits[j >> 6] |= 1ULL << (j & 63);
    }
    uint32_t composite = 0;
    for (uint32_t w = 0; w + 1 < words; w++)
        composite += popcount64(bits[w]);
    for (uint32_t i = (words - 1) * 64; i < odds; i++)
        composite += bits[i >> 6] >> (i & 63) & 1;
    return odds - composite + (n > 2); /* odd primes, plus 2 */
}

static uint64_t mix_words(bench_rng *rng, uint32_t count)
{
    uint64_t acc = 0;
    uint32_t comb = 0x3f; /* six bits set */
    for (uint32_t i = 0; i < count; i++) {
        uint64_t w = bench_rng_u64(rng);
        uint32_t lo = (uint32_t)w, hi = (uint32_t)(w >> 32);
        uint32_t gray = lo ^ (lo >> 1);
        uint32_t morton = spread16(lo) | (spread16(hi) << 1);
        acc += popcount64(w);
        acc ^= reverse32(lo) + ((uint64_t)gray_decode(gray) << 32);
        acc += compact16(morton) ^ compact16(morton >> 1);
        acc = rotl64(acc, hi & 63) ^ bswap64(w);
        acc += rotr32(hi, lo) + (uint32_t)__builtin_clz(lo | 1) + (uint32_t)__builtin_ctzll(w | (1ULL << 63));
        acc += (uint64_t)(int64_t)(int32_t)hi >> 7; /* arithmetic shift of a sign-extended word */
        acc ^= (uint64_t)((int32_t)lo / (int32_t)((hi & 0x7fff) | 1));
        acc -= (lo & (lo - 1)) ^ (lo & -lo); /* clear and isolate the lowest bit */
        comb = next_combination(comb);
        if (comb >= 0xfc000000u)
            comb = 0x3f;
        acc += comb;
    }
    return acc;
}

int main(int argc, char **argv)
{
    int rounds = bench_scale(argc, argv, 34);
    const uint32_t limit = 1u << 20;
    uint64_t *bits = bench_alloc((limit / 128 + 1) * sizeof *bits);
    bench_rng rng = bench_rng_seed(0xb17b17);
    uint64_t sum = BENCH_CHECKSUM_INIT;
    uint32_t primes = 0;
    for (int r = 0; r < rounds; r++) {
        primes = sieve_bits(bits, limit - (uint32_t)r * 7);
        sum = bench_mix(sum, primes);
        sum = bench_mix(sum, mix_words(&rng, 1u << 16));
    }
    free(bits);
    printf("bitops: %d rounds, primes below %u: %u\n", rounds, limit - (uint32_t)(rounds - 1) * 7, primes);
    bench_print_checksum(sum);
    return 0;
}
