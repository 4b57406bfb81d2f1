/*
 * report_text.h - pulley-report's terminal view of the hot code, in the
 * manner of Pulley's profiler: the hot functions, and in each the
 * instructions above a threshold with a few around them, one line each
 * (share %, count, offset, disassembly), optionally coloured by heat.
 */
#ifndef RP_REPORT_TEXT_H
#define RP_REPORT_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "hot_code.h"
#include "profile_model.h"

typedef struct rp_text_opts {
    double threshold;   /* fraction of all executed instructions */
    size_t functions;   /* at most this many functions */
    unsigned context;   /* instructions shown before and after a hot one */
    int color;          /* ANSI colours */
} rp_text_opts;

/* How many of v's functions the view shows: those at or above the
 * threshold (at least the hottest), at most o->functions. */
size_t rp_text_functions(const hc_view *v, double threshold, size_t max);

/* Write the view; text for the shown functions should be loaded
 * (report_db.c).  Returns 0, or -1 when out of memory or writing failed. */
int rp_write_text(FILE *out, const an_profile *p, const hc_view *v, const rp_text_opts *o);

#endif
