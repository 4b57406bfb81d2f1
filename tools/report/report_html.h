/*
 * report_html.h - pulley-report's HTML report: one self-contained file
 * (inline CSS, no script, no external reference) with the run summary,
 * the hot functions, the proposed macro ops linked to their places, and
 * the annotated disassembly of the hottest functions.
 */
#ifndef RP_REPORT_HTML_H
#define RP_REPORT_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "hot_code.h"
#include "profile_model.h"
#include "report_db.h"
#include "report_proposals.h"

typedef struct rp_html {
    const an_profile *p;
    const hc_view *v;
    const rp_run_info *runs;     /* per run of p */
    const rp_proposals *props;
    size_t nshow;                /* v->funcs[0..nshow) get their disassembly */
    double threshold;            /* fraction: the function list stops below it */
    const char *version;
} rp_html;

/* Anchors: "f<N>" per shown function (#N in the report), "f<N>-0x<offset>" per
 * instruction, "p<rank>" per proposal.  Returns 0, or -1 when out of
 * memory or when writing failed. */
int rp_write_html(FILE *out, const rp_html *h);

/* Write s with &, <, >, " and ' escaped. */
void rp_html_escape(FILE *out, const char *s);

#endif
