/*
 * evaluate.c - savings of a fixed list of macro ops, op by op and per
 * benchmark, on the executed blocks of a profile.
 */
#include "evaluate.h"

#include <stdlib.h>
#include <string.h>

#include "shapes.h"

int an_evaluate(const an_profile *p, const fu_pattern *set, size_t n, double *marginal,
                double *time_marginal, an_bench_saving *per_bench)
{
    uint32_t cap = 0, *scratch = NULL;
    fu_insn *keys = NULL;
    fu_index ix;
    if (fu_index_build(&ix, set, n) != 0)
        return -1;
    memset(marginal, 0, n * sizeof *marginal);
    if (time_marginal)
        memset(time_marginal, 0, n * sizeof *time_marginal);
    if (per_bench)
        memset(per_bench, 0, p->nbenches * sizeof *per_bench);
    for (size_t r = 0; r < p->nruns; r++) {
        const an_run *run = &p->runs[r];
        if (per_bench)
            per_bench[run->bench].dispatches += run->total;
        for (size_t fi = 0; fi < run->nfuncs; fi++) {
            const an_func *f = &run->funcs[fi];
            for (uint32_t b = 0; b < f->nblocks; b++) {
                const an_block *bl = &f->blocks[b];
                if (bl->weight <= 0 || bl->n < 2)
                    continue;
                if (bl->n > cap) {
                    cap = bl->n;
                    free(scratch);
                    free(keys);
                    scratch = malloc((cap + 1) * sizeof *scratch);
                    keys = malloc(cap * sizeof *keys);
                    if (!scratch || !keys) {
                        free(scratch);
                        free(keys);
                        fu_index_free(&ix);
                        return -1;
                    }
                }
                for (uint32_t i = 0; i < bl->n; i++)
                    an_insn_key(&f->insns[bl->first + i], &keys[i]);
                /* Op k changes the cover only where it matches. */
                uint32_t before = bl->n;
                for (size_t k = 0; k < n; k++) {
                    int matches = 0;
                    for (uint32_t i = 0; !matches && i + set[k].n <= bl->n; i++)
                        matches = fu_match(&set[k], keys + i);
                    if (!matches)
                        continue;
                    uint32_t cost = fu_cover_indexed(keys, bl->n, set, k + 1, &ix, scratch, NULL);
                    marginal[k] += bl->weight * ((double)before - cost);
                    if (time_marginal)
                        time_marginal[k] += bl->tweight * ((double)before - cost);
                    before = cost;
                }
                if (per_bench) {
                    per_bench[run->bench].removed += bl->freq * ((double)bl->n - before);
                    per_bench[run->bench].share += bl->weight * ((double)bl->n - before);
                    per_bench[run->bench].time_share += bl->tweight * ((double)bl->n - before);
                }
            }
        }
    }
    free(scratch);
    free(keys);
    fu_index_free(&ix);
    return 0;
}
