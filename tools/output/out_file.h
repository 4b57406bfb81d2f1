/*
 * out_file.h - an output file that appears under its final name only when
 * it was written whole: it is written to NAME.tmp.PID beside it and
 * renamed at the end, so that a full disk or a file size limit never
 * leaves a truncated report behind, nor destroys the previous one.  "-"
 * is the standard output.
 */
#ifndef PULLEY_ANALYZE_OUT_FILE_H
#define PULLEY_ANALYZE_OUT_FILE_H

#include <stddef.h>
#include <stdio.h>

typedef struct an_out_file {
    FILE *f;         /* write here */
    const char *path;
    char tmp[4096];  /* "" for the standard output */
} an_out_file;

/* Open; -1 with err ("PATH: reason") when the file cannot be created. */
int an_out_open(an_out_file *o, const char *path, char *err, size_t cap);

/* Flush, close and rename into place; -1 with err naming the file and the
 * reason (errno) when anything written was lost, and then nothing is left
 * under either name. */
int an_out_commit(an_out_file *o, char *err, size_t cap);

/* Give up: close and remove the temporary file. */
void an_out_abort(an_out_file *o);

#endif
