/*
 * pipeline.h - the proposal pipeline in one call, as pulley-ngrams and
 * pulley-report both run it: normalise the profile (every benchmark
 * weighs 1), register liveness of the functions that ran, n-gram mining,
 * the greedy choice of a set of macro ops, and the operand facts of the
 * chosen ops and of the hottest n-grams.
 */
#ifndef AN_PIPELINE_H
#define AN_PIPELINE_H

#include <stddef.h>

#include "facts.h"
#include "ngrams.h"
#include "profile_model.h"
#include "propose.h"

typedef struct an_proposals_opts {
    unsigned max_n;    /* longest n-gram, 2..AN_MAX_N */
    size_t top;        /* macro ops to choose */
    size_t pool;       /* candidates the choice considers (0: max(64, 4 * top)) */
    double min_saving; /* share of all dispatches an op must remove (AN_MIN_SAVING) */
    an_objective objective; /* what a candidate is judged by (default: shared) */
    size_t ngrams;     /* hottest n-grams to list with their facts (0: none) */
    int include_adaptive; /* mine adaptive opcodes too (AN_ADAPTIVE) */
    /* Called once mining is done, with the number of distinct n-grams
     * (for a progress line); may be NULL. */
    void (*mined)(void *arg, size_t distinct);
    void *arg;
} an_proposals_opts;

typedef struct an_proposals {
    an_grams grams;       /* every mined n-gram (props and top point here) */
    an_proposal *props;   /* the chosen ops, in the order chosen */
    an_facts *facts;      /* facts[k]: operand facts of props[k] */
    size_t n;
    an_gram **top;        /* the hottest n-grams, by weight */
    an_facts *top_facts;  /* top_facts[i]: operand facts of top[i] */
    size_t ntop;
    an_choice choice;     /* what was asked for, how many candidates there were */
    double total;         /* normalised dispatches of the profile */
} an_proposals;

/* Run the pipeline on p (whose blocks it normalises and whose liveness it
 * computes) into out.  Returns 0, or -1 when out of memory (out is then
 * freed). */
int an_proposals_compute(an_profile *p, const an_proposals_opts *o, an_proposals *out);
void an_proposals_free(an_proposals *r);

#endif
