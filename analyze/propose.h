/*
 * propose.h - choosing a set of macro ops greedily by marginal saving,
 * where the saving of a set is the dispatches its optimal cover of every
 * executed block removes (weighted by block frequency), never a sum of
 * overlapping n-gram counts.
 */
#ifndef AN_PROPOSE_H
#define AN_PROPOSE_H

#include <stddef.h>
#include <stdint.h>

#include "ngrams.h"
#include "profile.h"

#define AN_WHERE 3 /* locations reported per proposal */

typedef struct an_where {
    uint32_t run, func, off; /* run and function index in the profile */
    double weight;
} an_where;

typedef struct an_proposal {
    const an_gram *gram;
    double saving;     /* marginal: normalised dispatches removed */
    double cumulative; /* share of all dispatches removed by this op and those before */
    uint32_t benches;  /* benchmarks where it removes dispatches */
    an_where where[AN_WHERE];
} an_proposal;

/* Choose up to k macro ops among the `pool` hottest n-grams of grams
 * (ranked by weight x (n - 1)).  Fills out[0..returned); -1 if out of
 * memory.  Uses the grams' tag field. */
int an_propose(const an_profile *p, an_grams *grams, size_t k, size_t pool, an_proposal *out);

#endif
