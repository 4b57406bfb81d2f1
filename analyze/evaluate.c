/*
 * evaluate.c - savings of a fixed list of macro ops, op by op, on the
 * executed blocks of a profile.
 */
#include "evaluate.h"

#include <stdlib.h>
#include <string.h>

int an_evaluate(const an_profile *p, const an_macro *set, size_t n, double *marginal)
{
    uint32_t cap = 0, *scratch = NULL;
    uint16_t *ops = NULL;
    memset(marginal, 0, n * sizeof *marginal);
    for (size_t r = 0; r < p->nruns; r++)
        for (size_t fi = 0; fi < p->runs[r].nfuncs; fi++) {
            const an_func *f = &p->runs[r].funcs[fi];
            for (uint32_t b = 0; b < f->nblocks; b++) {
                const an_block *bl = &f->blocks[b];
                if (bl->weight <= 0 || bl->n < 2)
                    continue;
                if (bl->n > cap) {
                    cap = bl->n;
                    free(scratch);
                    free(ops);
                    scratch = malloc((cap + 1) * sizeof *scratch);
                    ops = malloc(cap * sizeof *ops);
                    if (!scratch || !ops) {
                        free(scratch);
                        free(ops);
                        return -1;
                    }
                }
                for (uint32_t i = 0; i < bl->n; i++)
                    ops[i] = f->insns[bl->first + i].op;
                uint32_t before = bl->n;
                for (size_t k = 0; k < n; k++) {
                    uint32_t cost = an_cover(ops, bl->n, set, k + 1, scratch, NULL);
                    marginal[k] += bl->weight * ((double)before - cost);
                    before = cost;
                }
            }
        }
    free(scratch);
    free(ops);
    return 0;
}
