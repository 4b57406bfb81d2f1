/* matmul.c - a numeric kernel: dense double matrix multiply (i-k-j loop
 * order, row-major), repeated with the product fed back after scaling, an
 * int32 matrix multiply against a transposed operand (dot products), and a
 * Gaussian elimination with partial pivoting to solve a linear system.
 *
 *   matmul [ROUNDS]   (default 11 rounds at N = 120) */
#include <math.h>

#include "bench_util.h"

#define N 120

static void matmul(double *restrict c, const double *restrict a, const double *restrict b, int n)
{
    for (int i = 0; i < n * n; i++)
        c[i] = 0.0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++) {
            double aik = a[i * n + k];
            for (int j = 0; j < n; j++)
                c[i * n + j] += aik * b[k * n + j];
        }
}

/* c = a * bt^T, with bt already transposed: every entry is a dot product. */
static void matmul_int(int32_t *restrict c, const int32_t *restrict a, const int32_t *restrict bt, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            uint32_t dot = 0;
            for (int k = 0; k < n; k++)
                dot += (uint32_t)a[i * n + k] * (uint32_t)bt[j * n + k];
            c[i * n + j] = (int32_t)dot;
        }
}

/* Solve m x = rhs in place (m is destroyed); returns 0 if singular. */
static int solve(double *m, double *rhs, double *x, int n)
{
    for (int col = 0; col < n; col++) {
        int piv = col;
        for (int r = col + 1; r < n; r++)
            if (fabs(m[r * n + col]) > fabs(m[piv * n + col]))
                piv = r;
        if (m[piv * n + col] == 0.0)
            return 0;
        if (piv != col) {
            for (int j = 0; j < n; j++) {
                double t = m[col * n + j];
                m[col * n + j] = m[piv * n + j];
                m[piv * n + j] = t;
            }
            double t = rhs[col];
            rhs[col] = rhs[piv];
            rhs[piv] = t;
        }
        for (int r = col + 1; r < n; r++) {
            double f = m[r * n + col] / m[col * n + col];
            for (int j = col; j < n; j++)
                m[r * n + j] -= f * m[col * n + j];
            rhs[r] -= f * rhs[col];
        }
    }
    for (int r = n - 1; r >= 0; r--) {
        double s = rhs[r];
        for (int j = r + 1; j < n; j++)
            s -= m[r * n + j] * x[j];
        x[r] = s / m[r * n + r];
    }
    return 1;
}

int main(int argc, char **argv)
{
    int rounds = bench_scale(argc, argv, 11);
    double *a = bench_alloc(N * N * sizeof *a);
    double *b = bench_alloc(N * N * sizeof *b);
    double *c = bench_alloc(N * N * sizeof *c);
    double *rhs = bench_alloc(N * sizeof *rhs);
    double *x = bench_alloc(N * sizeof *x);
    int32_t *ia = bench_alloc(N * N * sizeof *ia);
    int32_t *ib = bench_alloc(N * N * sizeof *ib);
    int32_t *ic = bench_alloc(N * N * sizeof *ic);
    bench_rng rng = bench_rng_seed(0x3a73);
    for (int i = 0; i < N * N; i++) {
        a[i] = bench_rng_unit(&rng) - 0.5;
        b[i] = bench_rng_unit(&rng) - 0.5;
        ia[i] = (int32_t)bench_rng_below(&rng, 2001) - 1000;
        ib[i] = (int32_t)bench_rng_below(&rng, 2001) - 1000;
    }
    uint64_t sum = BENCH_CHECKSUM_INIT;
    double trace = 0, residual = 0;
    for (int r = 0; r < rounds; r++) {
        for (int rep = 0; rep < 8; rep++) {
            matmul(c, a, b, N);
            /* feed back: b = c scaled to keep the entries near 1 */
            double norm = 0;
            for (int i = 0; i < N * N; i++)
                norm += fabs(c[i]);
            for (int i = 0; i < N * N; i++)
                b[i] = c[i] * ((double)(N * N) / norm) * 0.5;
        }
        trace = 0;
        for (int i = 0; i < N; i++)
            trace += c[i * N + i];
        sum = bench_mix_double(sum, trace);

        matmul_int(ic, ia, ib, N);
        for (int i = 0; i < N * N; i += 31)
            sum = bench_mix(sum, (uint32_t)ic[i]);
        ia[r % (N * N)] = ic[r % (N * N)] % 1000; /* next round differs */

        /* solve a x = rhs for a known x (all ones) and measure the error */
        for (int i = 0; i < N; i++) {
            rhs[i] = 0;
            for (int j = 0; j < N; j++)
                rhs[i] += a[i * N + j] + (i == j ? (double)N : 0.0);
        }
        for (int i = 0; i < N * N; i++)
            c[i] = a[i] + (i / N == i % N ? (double)N : 0.0);
        if (!solve(c, rhs, x, N)) {
            fprintf(stderr, "matmul: singular system\n");
            return 1;
        }
        residual = 0;
        for (int i = 0; i < N; i++)
            residual += fabs(x[i] - 1.0);
        sum = bench_mix_double(sum, residual);
    }
    printf("matmul: %d rounds at N=%d, trace %.9f, solve error %.3e\n", rounds, N, trace, residual);
    free(a);
    free(b);
    free(c);
    free(rhs);
    free(x);
    free(ia);
    free(ib);
    free(ic);
    bench_print_checksum(sum);
    return 0;
}
