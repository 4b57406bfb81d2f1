/*
 * report.h - what pulley-ngrams found, and printing it as text, markdown,
 * JSON or CSV: the chosen macro ops (proposals) and the hottest n-grams.
 */
#ifndef AN_REPORT_H
#define AN_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "facts.h"
#include "ngrams.h"
#include "profile.h"
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

/* When fewer than c->k ops were chosen, a sentence saying why into buf;
 * else "". */
void an_choice_note(const an_choice *c, size_t chosen, char *buf, size_t cap);

/* When adaptive opcodes ran, a sentence saying how much of the run they
 * are and whether they were mined into buf; else "". */
void an_adaptive_note(const an_choice *c, char *buf, size_t cap);

#endif
