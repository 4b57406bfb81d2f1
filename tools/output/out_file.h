/*
 * out_file.h - an output file that appears under its final name only when
 * it was written whole: it is written to NAME.tmp.PID beside it and
 * renamed at the end, so that a full disk or a file size limit never
 * leaves a truncated report behind, nor destroys the previous one.  "-"
 * is the standard output: opening it ignores SIGPIPE, so that a reader
 * that stops early (`| head`) is an EPIPE the tool sees rather than a
 * signal that kills it before it has written its files or said anything,
 * and committing it takes such a reader's leaving as a clean end.
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
 * under either name.  The standard output whose reader has gone (a closed
 * pipe) is not an error: 0, and the tool says no more on it. */
int an_out_commit(an_out_file *o, char *err, size_t cap);

/* Did the standard output's reader go away (EPIPE, or a pipe or socket
 * with no reader)?  Then what was written is as much as anybody wanted. */
int an_out_reader_gone(int saved_errno);

/* Give up: close and remove the temporary file. */
void an_out_abort(an_out_file *o);

#endif
