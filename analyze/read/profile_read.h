/*
 * profile_read.h - reading profile databases (never written) into the model:
 * run selection, functions decoded with their run's opcode table, basic
 * blocks, and samples or exact counts attached to instructions, each run
 * checked against damage first (run_check.h).
 */
#ifndef AN_PROFILE_READ_H
#define AN_PROFILE_READ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile_model.h"
#include "run_select.h"

/* Append the runs of the database at `path` that sel selects to p (runs
 * it leaves out by default are noted in p->skipped, as are damaged runs
 * with sel->skip_damaged).  Returns the number of runs added, or -1 with
 * err (prefixed with the path). */
int an_profile_read(an_profile *p, const char *path, an_runsel *sel, char *err, size_t cap);

/* The same for each of paths[0 .. n), each file once, then check that
 * every id and label of sel selected a run: the runs added, or -1 with
 * err at the first problem. */
int an_profile_read_all(an_profile *p, char *const *paths, int n, an_runsel *sel, char *err,
                        size_t cap);

/* "TOOL: left out run 4 of a.db: it did not finish ..." for each run
 * left out, and a note for each run whose register operands the analysis
 * could not use. */
void an_print_skipped(FILE *out, const char *tool, const an_profile *p);

#endif
