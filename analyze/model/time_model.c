/*
 * time_model.c - block weights in time from the stored costs of a run's
 * build (see time_model.h).
 */
#include "time_model.h"

#include <stdlib.h>

static int run_timed(const an_run *run)
{
    return run->opcost && run->dispatch_cost > 0;
}

/* The run's time in the units of its block weights: sum over blocks of
 * weight x the block's cost, opcodes of no stored cost at the mean. */
static double run_time(const an_run *run)
{
    double known = 0, known_w = 0, unknown_w = 0;
    for (size_t f = 0; f < run->nfuncs; f++) {
        const an_func *fn = &run->funcs[f];
        for (uint32_t b = 0; b < fn->nblocks; b++) {
            const an_block *bl = &fn->blocks[b];
            if (bl->weight <= 0)
                continue;
            for (uint32_t i = bl->first; i < bl->first + bl->n; i++) {
                uint16_t op = fn->insns[i].op;
                double c = op < run->nopcost ? run->opcost[op] : 0;
                if (c > 0) {
                    known += bl->weight * c;
                    known_w += bl->weight;
                } else {
                    unknown_w += bl->weight;
                }
            }
        }
    }
    return known_w > 0 ? known + unknown_w * (known / known_w) : 0;
}

int an_time_weights(an_profile *p)
{
    double *time = calloc(p->nbenches ? p->nbenches : 1, sizeof *time);
    char *untimed = calloc(p->nbenches ? p->nbenches : 1, 1);
    if (!time || !untimed) {
        free(time);
        free(untimed);
        return -1;
    }
    for (size_t r = 0; r < p->nruns; r++) {
        const an_run *run = &p->runs[r];
        if (!run_timed(run))
            untimed[run->bench] = 1;
        else
            time[run->bench] += run_time(run);
    }
    for (size_t r = 0; r < p->nruns; r++) {
        const an_run *run = &p->runs[r];
        int ok = !untimed[run->bench] && time[run->bench] > 0;
        /* The benchmark's dispatches weigh 1 in all: its time per
         * dispatch is its time in those units. */
        double scale = ok ? run->dispatch_cost / time[run->bench] : 0;
        for (size_t f = 0; f < run->nfuncs; f++)
            for (uint32_t b = 0; b < run->funcs[f].nblocks; b++)
                run->funcs[f].blocks[b].tweight = run->funcs[f].blocks[b].weight * scale;
    }
    free(time);
    free(untimed);
    return 0;
}

const an_run *an_untimed_run(const an_profile *p)
{
    for (size_t r = 0; r < p->nruns; r++)
        if (!run_timed(&p->runs[r]))
            return &p->runs[r];
    return NULL;
}

int an_profile_timed(const an_profile *p)
{
    return p->nruns > 0 && !an_untimed_run(p);
}
