/*
 * ngrams_evaluation.h - printing what a given set of macro ops (a .macros
 * file) removes from a profile: per op in the file's order and per
 * benchmark (pulley-ngrams --evaluate), in every output format, with the
 * time they save where the profile's builds stored their costs.
 */
#ifndef NGRAMS_EVALUATION_H
#define NGRAMS_EVALUATION_H

#include <stdio.h>

#include "evaluate.h"
#include "macro_set.h"
#include "profile_model.h"
#include "table.h"

typedef struct an_evaluation {
    const char *file;                 /* the .macros file */
    const fu_set *set;
    const double *marginal;           /* per op, normalised dispatches */
    const double *time_marginal;      /* per op, predicted normalised time; NULL: no
                                       * time model (time_model.h) */
    const an_bench_saving *per_bench; /* per benchmark of p */
    const an_profile *p;
    double total;                     /* normalised dispatches of p */
} an_evaluation;

void an_evaluation_print(FILE *out, const an_evaluation *e, an_format fmt);

#endif
