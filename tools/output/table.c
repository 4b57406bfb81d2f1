/*
 * table.c - aligned text, markdown and CSV rendering of a text table.
 */
#include "table.h"

#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

void an_table_init(an_table *t, size_t ncols, const char *const *heads, const char *align)
{
    memset(t, 0, sizeof *t);
    t->ncols = ncols;
    t->heads = heads;
    t->align = align;
}

void an_table_row(an_table *t, const char *const *cells)
{
    void *grown = t->cells; /* rows of ncols cells */
    if (base_grow(&grown, &t->cap, t->nrows + 1, t->ncols * sizeof *t->cells, 16) != 0) {
        t->failed = 1;
        return;
    }
    t->cells = grown;
    char **row = t->cells + t->nrows * t->ncols;
    for (size_t c = 0; c < t->ncols; c++)
        if (!(row[c] = strdup(cells[c] ? cells[c] : ""))) {
            while (c-- > 0)
                free(row[c]);
            t->failed = 1;
            return;
        }
    t->nrows++;
}

static void csv_cell(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void print_row(FILE *out, const an_table *t, const char *const *cells, const size_t *w,
                      an_format fmt)
{
    for (size_t c = 0; c < t->ncols; c++) {
        if (fmt == AN_CSV) {
            if (c)
                fputc(',', out);
            csv_cell(out, cells[c]);
            continue;
        }
        int width = (int)w[c];
        const char *sep = fmt == AN_MARKDOWN ? (c ? " | " : "| ") : (c ? "  " : "");
        fputs(sep, out);
        if (t->align[c] == 'r')
            fprintf(out, "%*s", width, cells[c]);
        else if (c + 1 < t->ncols || fmt == AN_MARKDOWN)
            fprintf(out, "%-*s", width, cells[c]);
        else
            fputs(cells[c], out);
    }
    fputs(fmt == AN_MARKDOWN ? " |\n" : "\n", out);
}

void an_table_print(FILE *out, const an_table *t, an_format fmt)
{
    size_t w[16] = {0};
    for (size_t c = 0; c < t->ncols && c < 16; c++) {
        w[c] = strlen(t->heads[c]);
        for (size_t r = 0; r < t->nrows; r++) {
            size_t n = strlen(t->cells[r * t->ncols + c]);
            w[c] = n > w[c] ? n : w[c];
        }
    }
    print_row(out, t, t->heads, w, fmt);
    if (fmt == AN_MARKDOWN) {
        for (size_t c = 0; c < t->ncols; c++) {
            fputs(c ? "|" : "|", out);
            fputs(t->align[c] == 'r' ? "-" : ":", out);
            for (size_t k = 0; k < w[c]; k++)
                fputc('-', out);
            fputs(t->align[c] == 'r' ? ":" : "-", out);
        }
        fputs("|\n", out);
    }
    for (size_t r = 0; r < t->nrows; r++)
        print_row(out, t, (const char *const *)t->cells + r * t->ncols, w, fmt);
}

void an_table_free(an_table *t)
{
    for (size_t i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
    memset(t, 0, sizeof *t);
}
