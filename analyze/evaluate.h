/*
 * evaluate.h - the saving a given list of macro ops achieves on a profile
 * (for --train/--test: ops chosen on some benchmarks, measured on others).
 */
#ifndef AN_EVALUATE_H
#define AN_EVALUATE_H

#include <stddef.h>

#include "cover.h"
#include "profile.h"

/* marginal[k] = normalised dispatches removed by adding set[k] to
 * set[0..k), over the optimal cover of every executed block of p.
 * Returns 0, or -1 if out of memory. */
int an_evaluate(const an_profile *p, const an_macro *set, size_t n, double *marginal);

#endif
