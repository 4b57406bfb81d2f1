/*
 * profile_read.h - reading profile databases (never written) into the model:
 * run selection, functions decoded with their run's opcode table, basic
 * blocks, and samples or exact counts attached to instructions.
 */
#ifndef AN_PROFILE_READ_H
#define AN_PROFILE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* Which runs: all, a list of ids, or those with a label. */
typedef struct an_runsel {
    int all;
    const char *label;
    int64_t ids[64];
    size_t nids;
} an_runsel;

/* Parse "all", "ID,ID,..." or "label:NAME".  Returns 0 or -1. */
int an_runsel_parse(an_runsel *sel, const char *text);

/* Append the selected runs of the database at `path` to p.  With
 * exact_only, runs without exact counts are skipped.  Returns the number of
 * runs added, or -1 with err (prefixed with the path). */
int an_profile_read(an_profile *p, const char *path, const an_runsel *sel, int exact_only,
                    char *err, size_t cap);
/* The same for each of paths[0 .. n): the runs added, or -1 with err at
 * the first database that cannot be read. */
int an_profile_read_all(an_profile *p, char *const *paths, int n, const an_runsel *sel,
                        int exact_only, char *err, size_t cap);

#endif
