/*
 * options.c - command-line values shared by pulley-ngrams and
 * pulley-report (options.h).
 */
#include "options.h"

#include <stdlib.h>
#include <string.h>

int an_parse_count(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int an_parse_percent(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || (*end && strcmp(end, "%") != 0) || !(v >= 0 && v <= 100))
        return -1;
    *out = v / 100;
    return 0;
}
