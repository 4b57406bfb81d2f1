/*
 * report_proposals.h - the macro-op proposals pulley-report shows, made
 * as pulley-ngrams makes them (proposals.c), and every place they occur:
 * the optimal cover of each executed block by the whole chosen set says
 * which instructions each proposed op would replace.
 */
#ifndef RP_REPORT_PROPOSALS_H
#define RP_REPORT_PROPOSALS_H

#include <stddef.h>
#include <stdint.h>

#include "profile_model.h"
#include "pipeline.h"

typedef struct rp_place {
    uint32_t prop;      /* proposal index */
    uint32_t run, func; /* profile indices */
    uint32_t insn;      /* its first instruction */
    double saving;      /* normalised dispatches this occurrence removes */
} rp_place;

typedef struct rp_proposals {
    an_proposals set;   /* the chosen ops, their facts, the total */
    rp_place *places;   /* grouped by proposal, largest saving first */
    size_t *first;      /* proposal k's places: [first[k], first[k + 1]) */
} rp_proposals;

/* Choose up to `top` macro ops of at most max_n instructions among the
 * `pool` hottest n-grams (0: the default), as pulley-ngrams does, with
 * their facts and places.  Normalises p and computes liveness.  Returns
 * 0, or -1 when out of memory. */
int rp_proposals_compute(an_profile *p, unsigned max_n, size_t top, size_t pool, rp_proposals *out);
void rp_proposals_free(rp_proposals *r);

/* For each instruction of f: the proposal covering it in the optimal
 * cover of its block (-1: none), and start[i] = 1 where an occurrence
 * begins.  Returns 0, or -1 when out of memory. */
int rp_cover_marks(const rp_proposals *r, const an_func *f, int32_t *macro, uint8_t *start);

#endif
