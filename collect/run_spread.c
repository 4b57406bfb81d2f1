/*
 * run_spread.c - a sample of a run spread over the run's instructions
 * (see run_spread.h).
 */
#include "run_spread.h"

#include "func_rows.h"

static bool bit(const uint8_t *bits, size_t off)
{
    return bits[off / 8] & (1u << (off % 8));
}

/* The start of the instruction after the one at off, or size. */
static size_t next_start(const reg_function *f, size_t off)
{
    for (off++; off < f->size && !bit(f->starts, off); off++)
        if (off % 8 == 0 && f->starts[off / 8] == 0) /* a whole byte without a start */
            off += 7;
    return off < f->size ? off : f->size;
}

/* How many instructions the run from `start` holds. */
static uint64_t run_length(const reg_function *f, size_t start)
{
    uint64_t k = 1;
    for (size_t off = start; !bit(f->ends, off); k++) {
        off = next_start(f, off);
        if (off == f->size)
            break;
    }
    return k;
}

/* The i-th of k instructions gets the samples whose evenly spaced
 * positions (j + 1/2) * k / n, j = 0 .. n-1, fall in [i, i + 1): n/k
 * rounded down or up, together n. */
static uint64_t share(uint64_t n, uint64_t k, uint64_t i)
{
    uint64_t q = n / k, r = n % k;
    if (k > UINT32_MAX / 2) /* 2 * (i + 1) * r would not fit: the rest to the first */
        return q + (i < r);
    return q + (2 * (i + 1) * r + k) / (2 * k) - (2 * i * r + k) / (2 * k);
}

/* The instructions that start before byte off. */
static size_t rank(const reg_function *f, size_t off)
{
    size_t r = 0, byte = 0;
    for (; byte < off / 8; byte++)
        r += (size_t)__builtin_popcount(f->starts[byte]);
    return r + (size_t)__builtin_popcount(f->starts[byte] & ((1u << (off % 8)) - 1));
}

/* By cost: the i-th instruction, whose costs before it in the run sum to
 * before, gets the samples whose evenly spaced positions fall in its part
 * [before, before + cost) of the run's total. */
static uint64_t cost_share(uint64_t n, double total, double before, double cost)
{
    double from = (double)n * before / total + 0.5, to = (double)n * (before + cost) / total + 0.5;
    uint64_t a = (uint64_t)from, b = (uint64_t)to;
    return (b < n ? b : n) - (a < n ? a : n);
}

static int spread_one(const reg_function *f, uintptr_t pc, uint64_t n, pc_hist *out)
{
    size_t off = pp__func_rows_start_at(f->starts, pc - f->stored);
    uint64_t k = run_length(f, off);
    size_t first = f->costs && bit(f->starts, off) ? rank(f, off) : SIZE_MAX;
    const float *cost = first <= f->ncosts && k <= f->ncosts - first ? f->costs + first : NULL;
    double total = 0, before = 0;
    for (uint64_t i = 0; cost && i < k; i++)
        total += cost[i];
    if (!(total > 0))
        cost = NULL;
    for (uint64_t i = 0; i < k; i++, off = next_start(f, off)) {
        uint64_t s = cost ? cost_share(n, total, before, cost[i]) : share(n, k, i);
        if (cost)
            before += cost[i];
        if (s && pp__pc_hist_add(out, f->stored + off, s) != 0)
            return -1;
    }
    return 0;
}

int pp__spread_runs(const registry *r, const pc_hist *h, pc_hist *out)
{
    for (size_t i = 0; i < h->cap; i++) {
        const pc_hist_entry *e = &h->slots[i];
        if (!e->count)
            continue;
        int f = e->pc ? pp__registry_find_stored(r, (uintptr_t)e->pc) : -1;
        int rc = f >= 0 && r->funcs[f].decoded ? spread_one(&r->funcs[f], (uintptr_t)e->pc,
                                                            e->count, out)
                                               : pp__pc_hist_add(out, e->pc, e->count);
        if (rc != 0)
            return -1;
    }
    return 0;
}
