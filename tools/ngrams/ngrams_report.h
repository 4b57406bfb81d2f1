/*
 * ngrams_report.h - what pulley-ngrams found, and printing it as text, markdown,
 * JSON or CSV: the chosen macro ops (proposals) and the hottest n-grams.
 */
#ifndef NGRAMS_REPORT_H
#define NGRAMS_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "choice_notes.h"
#include "facts.h"
#include "ngrams.h"
#include "profile_model.h"
#include "propose.h"
#include "table.h"

typedef struct an_report {
    const an_profile *p;
    double total;            /* normalised dispatches (benchmarks with data) */
    const an_proposal *props;
    const an_facts *prop_facts;
    size_t nprops;
    const an_choice *choice; /* what was asked for (NULL: not said) */
    an_gram *const *top;     /* hottest n-grams */
    const an_facts *top_facts;
    size_t ntop;
    /* --test: the proposals measured on other runs (test_marginal NULL: none) */
    const an_profile *test;
    const char *test_label;
    const double *test_marginal;
} an_report;

void an_report_print(FILE *out, const an_report *r, an_format fmt);

#endif
