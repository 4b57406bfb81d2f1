/*
 * report_html_code.h - one hot function's annotated disassembly in the
 * HTML report: every instruction with its share as a heat colour and a
 * number, basic blocks as table sections, back-edges and forward branches
 * as links to their targets, and the proposed macro ops covering it.
 */
#ifndef RP_REPORT_HTML_CODE_H
#define RP_REPORT_HTML_CODE_H

#include <stddef.h>
#include <stdio.h>

#include "report_html.h"

/* Long stretches of never-seen blocks (at least this many instructions)
 * are folded into one line. */
#define RP_ELIDE_MIN 24

/* Write the section of h->v->funcs[k].  Returns 0, or -1 when out of memory. */
int rp_html_function(FILE *out, const rp_html *h, size_t k);

#endif
