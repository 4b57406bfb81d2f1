/*
 * table.h - a table of text cells printed as an aligned text table,
 * a markdown table or CSV.
 */
#ifndef AN_TABLE_H
#define AN_TABLE_H

#include <stddef.h>
#include <stdio.h>

typedef enum an_format { AN_TEXT, AN_MARKDOWN, AN_JSON, AN_CSV } an_format;

typedef struct an_table {
    size_t ncols;
    const char *const *heads;
    const char *align; /* per column: 'l' or 'r' */
    char **cells;      /* row-major, ncols per row */
    size_t nrows, cap;
    int failed;        /* out of memory: rows were lost */
} an_table;

void an_table_init(an_table *t, size_t ncols, const char *const *heads, const char *align);
/* Append a row of ncols cells (copied). */
void an_table_row(an_table *t, const char *const *cells);
void an_table_print(FILE *out, const an_table *t, an_format fmt);
void an_table_free(an_table *t);

#endif
