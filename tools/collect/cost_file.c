/*
 * cost_file.c - reading a file of opcode costs into an opcode table (see
 * cost_file.h).
 */
#include "cost_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_LINE = 512, MAX_COLUMNS = 16 };

/* Split line at tabs (in place) into at most MAX_COLUMNS fields. */
static int split(char *line, char **field)
{
    int n = 0;
    line[strcspn(line, "\r\n")] = '\0';
    for (char *p = line; n < MAX_COLUMNS;) {
        field[n++] = p;
        char *tab = strchr(p, '\t');
        if (!tab)
            break;
        *tab = '\0';
        p = tab + 1;
    }
    return n;
}

static int column(char **field, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(field[i], name) == 0)
            return i;
    return -1;
}

static int parse_cost(const char *s, double *cost)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > 1e9)
        return -1;
    *cost = v;
    return 0;
}

static pulleyprof_opcode *row_named(pulleyprof_opcode *rows, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (rows[i].name && strcmp(rows[i].name, name) == 0)
            return &rows[i];
    return NULL;
}

int cost_file_apply(const char *path, pulleyprof_opcode *rows, size_t n, double *dispatch_cost,
                    char *err, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, cap, "%s: %s", path, strerror(errno));
        return -1;
    }
    char line[MAX_LINE], *field[MAX_COLUMNS];
    int name_col = -1, cost_col = -1, lineno = 0, rc = -1;
    const char *bad = NULL;
    double dispatch = 0;
    while (!bad && fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            bad = "a line longer than 511 bytes";
            break;
        }
        if (line[0] == '#')
            continue;
        int nf = split(line, field);
        if (name_col < 0) {
            name_col = column(field, nf, "opcode");
            cost_col = column(field, nf, "per_execution");
            if (name_col < 0 || cost_col < 0)
                bad = "the header names no 'opcode' and 'per_execution' columns";
            continue;
        }
        double cost;
        pulleyprof_opcode *row;
        if (nf <= name_col || nf <= cost_col)
            bad = "fewer columns than the header";
        else if (!(row = row_named(rows, n, field[name_col])))
            bad = "an opcode of no row of this build's opcode table";
        else if (parse_cost(field[cost_col], &cost) != 0)
            bad = "a cost that is no positive number";
        else {
            row->cost = cost;
            if (strcmp(row->name, "nop") == 0)
                dispatch = cost;
        }
    }
    if (bad)
        snprintf(err, cap, "%s: line %d: %s", path, lineno, bad);
    else if (ferror(f))
        snprintf(err, cap, "%s: %s", path, strerror(errno));
    else if (name_col < 0)
        snprintf(err, cap, "%s: no header line", path);
    else if (dispatch <= 0)
        snprintf(err, cap, "%s: no cost for nop (its handler is one dispatch: the dispatch cost)",
                 path);
    else {
        *dispatch_cost = dispatch;
        rc = 0;
    }
    fclose(f);
    return rc;
}
