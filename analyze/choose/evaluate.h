/*
 * evaluate.h - the saving a given list of macro ops achieves on a profile
 * (for --train/--test: ops chosen on some benchmarks, measured on others).
 */
#ifndef AN_EVALUATE_H
#define AN_EVALUATE_H

#include <stddef.h>

#include "cover.h"
#include "profile_model.h"

/* What a set removes from one benchmark. */
typedef struct an_bench_saving {
    double dispatches; /* executed instructions (raw units: executions or samples) */
    double removed;    /* of those, removed by the set */
    double share;      /* removed / dispatches over its runs, each benchmark weighing 1 */
    double time_share; /* its time saved, predicted (time_model.h; 0 without a model) */
} an_bench_saving;

/* marginal[k] = normalised dispatches removed by adding set[k] to
 * set[0..k), over the optimal cover of every executed block of p (the
 * patterns in p's opcode numbers); time_marginal (NULL, or n entries): the
 * same in predicted normalised time (time_model.h); per_bench (NULL, or
 * p->nbenches entries): what the whole set removes from each benchmark.
 * p must be normalised.  Returns 0, or -1 if out of memory. */
int an_evaluate(const an_profile *p, const fu_pattern *set, size_t n, double *marginal,
                double *time_marginal, an_bench_saving *per_bench);

#endif
