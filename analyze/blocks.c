/*
 * blocks.c - basic-block splitting, block frequencies from exact counts or
 * samples, and per-benchmark normalisation.
 */
#include "blocks.h"

#include <stdlib.h>

long an_insn_at(const an_func *f, uint32_t off)
{
    uint32_t lo = 0, hi = f->ninsns;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (f->insns[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < f->ninsns && f->insns[lo].off == off ? (long)lo : -1;
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

void an_block_freq(an_func *f, int exact)
{
    for (uint32_t b = 0; b < f->nblocks; b++) {
        an_block *bl = &f->blocks[b];
        if (exact) {
            bl->freq = f->insns[bl->first].count;
        } else {
            double s = 0;
            for (uint32_t i = 0; i < bl->n; i++)
                s += f->insns[bl->first + i].count;
            bl->freq = s / bl->n;
        }
    }
}

int an_normalise(an_profile *p)
{
    size_t *runs_of = calloc(p->nbenches ? p->nbenches : 1, sizeof *runs_of);
    if (!runs_of)
        return -1;
    for (size_t r = 0; r < p->nruns; r++) {
        an_run *run = &p->runs[r];
        run->total = 0;
        for (size_t f = 0; f < run->nfuncs; f++)
            for (uint32_t b = 0; b < run->funcs[f].nblocks; b++)
                run->total += run->funcs[f].blocks[b].freq * run->funcs[f].blocks[b].n;
        if (run->total > 0)
            runs_of[run->bench]++;
    }
    for (size_t r = 0; r < p->nruns; r++) {
        an_run *run = &p->runs[r];
        double scale = run->total > 0 ? 1.0 / (run->total * runs_of[run->bench]) : 0;
        for (size_t f = 0; f < run->nfuncs; f++)
            for (uint32_t b = 0; b < run->funcs[f].nblocks; b++)
                run->funcs[f].blocks[b].weight = run->funcs[f].blocks[b].freq * scale;
    }
    free(runs_of);
    return 0;
}
