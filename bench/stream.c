/* stream.c - memory-bound array work: the four STREAM-style kernels (copy,
 * scale, add, triad) over double arrays larger than the caches, an int32
 * strided gather and a prefix sum, and memcpy/memset of whole arrays.
 * The scale factor sqrt(2)-1 keeps the values bounded over any number of
 * passes (copy, scale, add, triad multiply them by s*(2+s) = 1).
 *
 *   stream [PASSES]   (default 45 passes over 3 x 256K doubles) */
#include "bench_util.h"

#define N (1 << 18)

static void copy(double *restrict dst, const double *restrict src, int n)
{
    for (int i = 0; i < n; i++)
        dst[i] = src[i];
}

static void scale(double *restrict dst, const double *restrict src, double s, int n)
{
    for (int i = 0; i < n; i++)
        dst[i] = s * src[i];
}

static void add(double *restrict dst, const double *restrict a, const double *restrict b, int n)
{
    for (int i = 0; i < n; i++)
        dst[i] = a[i] + b[i];
}

static void triad(double *restrict dst, const double *restrict a, const double *restrict b,
                  double s, int n)
{
    for (int i = 0; i < n; i++)
        dst[i] = a[i] + s * b[i];
}

static double sum(const double *a, int n)
{
    double t = 0;
    for (int i = 0; i < n; i++)
        t += a[i];
    return t;
}

/* Gather with a large odd stride (touches a new cache line almost every
 * time), then an in-place prefix sum; returns the last element. */
static uint32_t gather_prefix(uint32_t *restrict dst, const uint32_t *restrict src, int n)
{
    uint32_t idx = 0;
    for (int i = 0; i < n; i++) {
        dst[i] = src[idx];
        idx = (idx + 4099) & (uint32_t)(n - 1);
    }
    for (int i = 1; i < n; i++)
        dst[i] += dst[i - 1];
    return dst[n - 1];
}

int main(int argc, char **argv)
{
    int passes = bench_scale(argc, argv, 45);
    const double s = 0.41421356237309503;
    double *a = bench_alloc(N * sizeof *a);
    double *b = bench_alloc(N * sizeof *b);
    double *c = bench_alloc(N * sizeof *c);
    uint32_t *u = bench_alloc(N * sizeof *u);
    uint32_t *v = bench_alloc(N * sizeof *v);
    bench_rng rng = bench_rng_seed(0x57ea4);
    for (int i = 0; i < N; i++) {
        a[i] = 1.0 + bench_rng_unit(&rng);
        u[i] = bench_rng_u32(&rng);
    }
    memset(b, 0, N * sizeof *b);
    memset(c, 0, N * sizeof *c);

    uint64_t check = BENCH_CHECKSUM_INIT;
    for (int p = 0; p < passes; p++) {
        copy(c, a, N);
        scale(b, c, s, N);
        add(c, a, b, N);
        triad(a, b, c, s, N);
        check = bench_mix(check, gather_prefix(v, u, N));
        memcpy(u, v, N * sizeof *u);
        check = bench_mix_double(check, a[p * 977 % N]);
    }
    double total = sum(a, N) + sum(b, N) + sum(c, N);
    check = bench_mix_double(check, total);
    printf("stream: %d passes over %d doubles, sum %.6f\n", passes, N, total);
    free(a);
    free(b);
    free(c);
    free(u);
    free(v);
    bench_print_checksum(check);
    return 0;
}
