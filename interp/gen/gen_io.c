/*
 * gen_io.c - pulley-macrogen's errors, and its files read and written
 * (gen_io.h).
 */
#include "gen_io.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void mg_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "pulley-macrogen: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

char *mg_read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        mg_die("%s: %s", path, strerror(errno));
    if (fseek(f, 0, SEEK_END) != 0)
        mg_die("%s: cannot seek", path);
    long size = ftell(f);
    if (size < 0 || fseek(f, 0, SEEK_SET) != 0)
        mg_die("%s: cannot tell its size", path);
    char *text = malloc((size_t)size + 1);
    if (!text)
        mg_die("out of memory");
    if (fread(text, 1, (size_t)size, f) != (size_t)size)
        mg_die("%s: read error", path);
    fclose(f);
    text[size] = '\0';
    return text;
}

FILE *mg_text_open(mg_text *t)
{
    t->data = NULL;
    t->len = 0;
    if (!(t->f = open_memstream(&t->data, &t->len)))
        mg_die("out of memory");
    return t->f;
}

void mg_text_save(mg_text *t, const char *dir, const char *name, const char *header)
{
    if (fclose(t->f) != 0)
        mg_die("out of memory");
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= sizeof path)
        mg_die("%s/%s: path too long", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        mg_die("%s: %s", path, strerror(errno));
    fputs(header, f);
    fwrite(t->data, 1, t->len, f);
    int failed = fflush(f) != 0 || ferror(f);
    if (fclose(f) != 0 || failed)
        mg_die("%s: write error", path);
    free(t->data);
    t->data = NULL;
}
