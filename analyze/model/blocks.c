/*
 * blocks.c - basic-block splitting, block frequencies from exact counts or
 * samples, and per-benchmark normalisation.
 */
#include "blocks.h"
#include "time_model.h"

#include <stdlib.h>

long an_insn_containing(const an_func *f, uint32_t off)
{
    uint32_t lo = 0, hi = f->ninsns;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (f->insns[mid].off <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && off - f->insns[lo - 1].off < f->insns[lo - 1].len ? (long)lo - 1 : -1;
}

long an_insn_at(const an_func *f, uint32_t off)
{
    long i = an_insn_containing(f, off);
    return i >= 0 && f->insns[i].off == off ? i : -1;
}

int an_split_blocks(an_func *f)
{
    free(f->blocks);
    f->blocks = NULL;
    f->nblocks = 0;
    if (f->ninsns == 0)
        return 0;
    for (uint32_t i = 0; i < f->ninsns; i++)
        f->insns[i].leader = i == 0 || (f->insns[i - 1].flags & (AN_BRANCH | AN_TERM));
    for (uint32_t e = 0; e < f->nedges; e++) {
        long t = an_insn_at(f, f->edges[e].to);
        if (t >= 0)
            f->insns[t].leader = 1;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->ninsns; i++)
        n += f->insns[i].leader;
    if (!(f->blocks = calloc(n, sizeof *f->blocks)))
        return -1;
    for (uint32_t i = 0; i < f->ninsns; i++) {
        if (f->insns[i].leader)
            f->blocks[f->nblocks++].first = i;
        f->blocks[f->nblocks - 1].n++;
        f->insns[i].block = f->nblocks - 1;
    }
    return 0;
}

void an_counted_freq(an_func *f)
{
    for (uint32_t b = 0; b < f->nblocks; b++)
        f->blocks[b].freq = f->insns[f->blocks[b].first].count;
}

/* Each block's frequency under per-opcode costs cost[]: its samples over
 * the cost of one pass through it. */
static void freq_at_costs(an_run *run, const double *cost)
{
    for (size_t fi = 0; fi < run->nfuncs; fi++) {
        an_func *f = &run->funcs[fi];
        for (uint32_t b = 0; b < f->nblocks; b++) {
            an_block *bl = &f->blocks[b];
            double s = 0, c = 0;
            for (uint32_t i = bl->first; i < bl->first + bl->n; i++) {
                s += f->insns[i].count;
                c += cost[f->insns[i].op];
            }
            bl->freq = c > 0 ? s / c : 0;
        }
    }
}

/* A block with samples: only those have a frequency above 0, so the
 * rounds below visit only them (in the order of the run's functions and
 * blocks, so that every sum is the one over all instructions). */
typedef struct sampled_block {
    an_func *f;
    an_block *bl;
    double samples;
} sampled_block;

/* Samples land on an instruction in proportion to the time it takes, so an
 * expensive instruction collects more of them than a cheap one executed as
 * often, and a block's samples over its length count the blocks that hold
 * slow instructions too often.  Every instruction of a block executes as
 * often as the block, which is what separates the two: with samples of
 * instruction i distributed as Poisson(cost[op(i)] x freq[block(i)]), the
 * maximum-likelihood costs and frequencies are found by alternating
 *     freq[b]  = samples of b / costs of b's instructions
 *     cost[op] = samples of op / frequencies of op's instructions,
 * each cost drawn towards 1 by a prior worth one sample, so that an opcode
 * seen in few samples keeps about the average cost.  Costs are scaled to
 * average 1 over the instructions of sampled blocks, which keeps
 * frequencies in samples per average instruction. */
enum { COST_ROUNDS = 200 };
#define COST_PRIOR 1.0
#define COST_TOLERANCE 1e-6

int an_sampled_freq(an_run *run, size_t nops)
{
    double *cost = malloc((nops + 1) * sizeof *cost);
    double *samples = calloc(nops + 1, sizeof *samples);
    double *freq_sum = calloc(nops + 1, sizeof *freq_sum);
    double *next = malloc((nops + 1) * sizeof *next);
    size_t nsb = 0;
    for (size_t fi = 0; fi < run->nfuncs; fi++)
        for (uint32_t b = 0; b < run->funcs[fi].nblocks; b++) {
            const an_block *bl = &run->funcs[fi].blocks[b];
            for (uint32_t i = bl->first; i < bl->first + bl->n; i++)
                if (run->funcs[fi].insns[i].count > 0) {
                    nsb++;
                    break;
                }
        }
    sampled_block *sb = malloc((nsb + 1) * sizeof *sb);
    int rc = cost && samples && freq_sum && next && sb ? 0 : -1;
    for (size_t op = 0; op <= nops && rc == 0; op++)
        cost[op] = 1;
    for (size_t fi = 0; fi < run->nfuncs && rc == 0; fi++)
        for (uint32_t i = 0; i < run->funcs[fi].ninsns; i++)
            samples[run->funcs[fi].insns[i].op] += run->funcs[fi].insns[i].count;
    nsb = 0;
    for (size_t fi = 0; fi < run->nfuncs && rc == 0; fi++)
        for (uint32_t b = 0; b < run->funcs[fi].nblocks; b++) {
            an_func *f = &run->funcs[fi];
            an_block *bl = &f->blocks[b];
            double s = 0;
            for (uint32_t i = bl->first; i < bl->first + bl->n; i++)
                s += f->insns[i].count;
            if (s > 0)
                sb[nsb++] = (sampled_block){f, bl, s};
        }
    for (int round = 0; round < COST_ROUNDS && rc == 0; round++) {
        for (size_t k = 0; k < nsb; k++) {
            double c = 0;
            for (uint32_t i = sb[k].bl->first; i < sb[k].bl->first + sb[k].bl->n; i++)
                c += cost[sb[k].f->insns[i].op];
            sb[k].bl->freq = c > 0 ? sb[k].samples / c : 0;
        }
        for (size_t op = 0; op <= nops; op++)
            freq_sum[op] = 0;
        double n = 0, next_sum = 0, change = 0;
        for (size_t k = 0; k < nsb; k++)
            for (uint32_t i = sb[k].bl->first; i < sb[k].bl->first + sb[k].bl->n; i++)
                freq_sum[sb[k].f->insns[i].op] += sb[k].bl->freq;
        for (size_t op = 0; op <= nops; op++)
            next[op] = (samples[op] + COST_PRIOR) / (freq_sum[op] + COST_PRIOR);
        for (size_t k = 0; k < nsb; k++)
            if (sb[k].bl->freq > 0)
                for (uint32_t i = sb[k].bl->first; i < sb[k].bl->first + sb[k].bl->n; i++) {
                    n++;
                    next_sum += next[sb[k].f->insns[i].op];
                }
        double scale = n > 0 ? n / next_sum : 1;
        for (size_t op = 0; op <= nops; op++) {
            double c = next[op] * scale, d = c > cost[op] ? c / cost[op] : cost[op] / c;
            if (d - 1 > change)
                change = d - 1;
            cost[op] = c;
        }
        if (change < COST_TOLERANCE)
            break;
    }
    if (rc == 0)
        freq_at_costs(run, cost);
    free(cost);
    free(samples);
    free(freq_sum);
    free(next);
    free(sb);
    return rc;
}

int an_estimate_frequencies(an_profile *p)
{
    for (size_t r = 0; r < p->nruns; r++) {
        an_run *run = &p->runs[r];
        if (run->estimated)
            continue;
        if (!run->exact && an_sampled_freq(run, p->nops) != 0)
            return -1;
        for (size_t f = 0; run->exact && f < run->nfuncs; f++)
            an_counted_freq(&run->funcs[f]);
        run->estimated = 1;
    }
    return 0;
}

int an_normalise(an_profile *p)
{
    if (an_estimate_frequencies(p) != 0)
        return -1;
    size_t *runs_of = calloc(p->nbenches ? p->nbenches : 1, sizeof *runs_of);
    if (!runs_of)
        return -1;
    for (size_t r = 0; r < p->nruns; r++) {
        an_run *run = &p->runs[r];
        run->total = 0;
        for (size_t f = 0; f < run->nfuncs; f++)
            for (uint32_t b = 0; b < run->funcs[f].nblocks; b++)
                run->total += run->funcs[f].blocks[b].freq * run->funcs[f].blocks[b].n;
        if (run->members > 1)
            runs_of[run->bench] += run->members_ran;
        else if (run->total > 0)
            runs_of[run->bench]++;
    }
    for (size_t r = 0; r < p->nruns; r++) {
        an_run *run = &p->runs[r];
        /* A pool of runs (run_pool.h) sums each block's share of its own
         * run: the benchmark's runs share its weight of 1. */
        int pooled = run->members > 1;
        double scale = pooled ? (runs_of[run->bench] ? 1.0 / (double)runs_of[run->bench] : 0)
                       : run->total > 0 ? 1.0 / (run->total * runs_of[run->bench])
                                        : 0;
        for (size_t f = 0; f < run->nfuncs; f++)
            for (uint32_t b = 0; b < run->funcs[f].nblocks; b++)
                run->funcs[f].blocks[b].weight =
                    (pooled ? run->funcs[f].blocks[b].norm : run->funcs[f].blocks[b].freq) * scale;
    }
    free(runs_of);
    return an_time_weights(p);
}
