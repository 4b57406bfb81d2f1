/* recurse.c - recursion and call-heavy code: naive Fibonacci, Takeuchi's
 * function, Ackermann's function, N-queens backtracking, and an expression
 * tree evaluated through a table of function pointers (indirect calls).
 * Recursion depth stays below a few hundred frames.
 *
 *   recurse [REPEAT]   (default 90) */
#include "bench_util.h"

static uint32_t fib(uint32_t n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static int tak(int x, int y, int z)
{
    if (y >= x)
        return z;
    return tak(tak(x - 1, y, z), tak(y - 1, z, x), tak(z - 1, x, y));
}

static uint32_t ack(uint32_t m, uint32_t n)
{
    if (m == 0)
        return n + 1;
    if (n == 0)
        return ack(m - 1, 1);
    return ack(m - 1, ack(m, n - 1));
}

/* Count placements of n queens; cols/diag masks as bit sets. */
static uint32_t queens(int n, int row, uint32_t cols, uint32_t d1, uint32_t d2)
{
    if (row == n)
        return 1;
    uint32_t total = 0;
    for (int c = 0; c < n; c++) {
        uint32_t cb = 1u << c, a = 1u << (row + c), b = 1u << (row - c + n - 1);
        if ((cols & cb) || (d1 & a) || (d2 & b))
            continue;
        total += queens(n, row + 1, cols | cb, d1 | a, d2 | b);
    }
    return total;
}

/* ---- expression trees evaluated through function pointers ------------- */

struct expr;
typedef int32_t (*eval_fn)(const struct expr *e, int32_t x);

struct expr {
    eval_fn eval;
    const struct expr *a, *b;
    int32_t k;
};

static int32_t ev_const(const struct expr *e, int32_t x) { (void)x; return e->k; }
static int32_t ev_var(const struct expr *e, int32_t x) { (void)e; return x; }
static int32_t ev_add(const struct expr *e, int32_t x)
{
    return (int32_t)((uint32_t)e->a->eval(e->a, x) + (uint32_t)e->b->eval(e->b, x));
}
static int32_t ev_mul(const struct expr *e, int32_t x)
{
    return (int32_t)((uint32_t)e->a->eval(e->a, x) * (uint32_t)e->b->eval(e->b, x));
}
static int32_t ev_sub(const struct expr *e, int32_t x)
{
    return (int32_t)((uint32_t)e->a->eval(e->a, x) - (uint32_t)e->b->eval(e->b, x));
}
static int32_t ev_max(const struct expr *e, int32_t x)
{
    int32_t l = e->a->eval(e->a, x), r = e->b->eval(e->b, x);
    return l > r ? l : r;
}

#define EXPR_POOL 4096

/* Build a random tree of the given depth from a pool of nodes. */
static const struct expr *make_expr(struct expr *pool, int *used, bench_rng *rng, int depth)
{
    static const eval_fn binary[] = { ev_add, ev_mul, ev_sub, ev_max };
    struct expr *e = &pool[(*used)++];
    if (depth <= 0 || *used + 2 >= EXPR_POOL) {
        e->eval = bench_rng_below(rng, 3) ? ev_var : ev_const;
        e->k = (int32_t)bench_rng_below(rng, 19) - 9;
        e->a = e->b = NULL;
        return e;
    }
    e->eval = binary[bench_rng_below(rng, 4)];
    e->a = make_expr(pool, used, rng, depth - 1 - (int)bench_rng_below(rng, 2));
    e->b = make_expr(pool, used, rng, depth - 1 - (int)bench_rng_below(rng, 2));
    e->k = 0;
    return e;
}

int main(int argc, char **argv)
{
    int repeat = bench_scale(argc, argv, 90);
    uint64_t sum = BENCH_CHECKSUM_INIT;
    static struct expr pool[EXPR_POOL];
    bench_rng rng = bench_rng_seed(0x2ec);
    uint32_t f = 0, a = 0, q = 0;
    int t = 0;
    int32_t ev = 0;
    for (int r = 0; r < repeat; r++) {
        f = fib(24 + (uint32_t)(r % 2));
        t = tak(18, 12, 6 - r % 2);
        a = ack(2, 120) + ack(3, 5);
        q = queens(8, 0, 0, 0, 0);
        int used = 0;
        const struct expr *e = make_expr(pool, &used, &rng, 10);
        ev = 0;
        for (int32_t x = -300; x < 300; x++)
            ev = (int32_t)((uint32_t)ev * 3u + (uint32_t)e->eval(e, x));
        sum = bench_mix(sum, f);
        sum = bench_mix(sum, (uint64_t)t);
        sum = bench_mix(sum, a);
        sum = bench_mix(sum, q);
        sum = bench_mix(sum, (uint32_t)ev);
        sum = bench_mix(sum, (uint32_t)used);
    }
    printf("recurse: fib %u, tak %d, ack %u, queens %u, expr %d\n", f, t, a, q, (int)ev);
    bench_print_checksum(sum);
    return 0;
}
