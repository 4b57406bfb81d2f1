/*
 * gen_io.h - what every part of pulley-macrogen shares about files and
 * errors: an error is one line on stderr ("pulley-macrogen: ...") and exit
 * status 1; a file is read whole; a generated file is made in memory
 * first, so that an error while making it leaves no file half written,
 * then saved into the output directory.
 */
#ifndef MG_GEN_IO_H
#define MG_GEN_IO_H

#include <stddef.h>
#include <stdio.h>

/* Say what is wrong and exit 1. */
void mg_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* The whole file at path, NUL-terminated (the caller frees it). */
char *mg_read_text(const char *path);

/* A generated file's text, being written to f. */
typedef struct mg_text {
    FILE *f;
    char *data;
    size_t len;
} mg_text;

/* Start a text: write it to the FILE returned (t->f). */
FILE *mg_text_open(mg_text *t);

/* Save t as dir/name, `header` before it, and free it. */
void mg_text_save(mg_text *t, const char *dir, const char *name, const char *header);

#endif
