/*
 * options.h - command-line values shared by pulley-ngrams and
 * pulley-report: counts in a range and percentages; when to show progress.
 */
#ifndef AN_OPTIONS_H
#define AN_OPTIONS_H

/* Inputs of at least this many instructions (an_profile_ninsns) report
 * their progress on stderr. */
#define AN_PROGRESS_INSNS 200000

/* The end of both tools' --help (the README's table of exit statuses). */
#define AN_EXIT_HELP                                                                  \
    "Exit status: 0 on success; 1 when a database cannot be read (missing, not a\n"  \
    "profile, damaged), no run is selected, or the output cannot be written\n"      \
    "whole; 2 for bad usage.\n"

/* A whole decimal number in [lo, hi] into *out.  Returns 0, or -1 (and
 * *out unchanged) for anything else. */
int an_parse_count(const char *s, long lo, long hi, long *out);

/* A percentage in [0, 100], "%" allowed after it, into *out as a
 * fraction (2.5 -> 0.025).  Returns 0, or -1 (and *out unchanged). */
int an_parse_percent(const char *s, double *out);

#endif
