/*
 * text_buf.c - the growing text buffer of text_buf.h.
 */
#include "text_buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

/* Make room for `more` characters and the NUL; 0, or -1 (failed is set). */
static int reserve(sx_text *t, size_t more)
{
    if (t->failed)
        return -1;
    if (more < t->cap - t->len)
        return 0;
    if (more > ((size_t)-1) / 2 - t->len - 1) {
        t->failed = 1;
        return -1;
    }
    size_t need = t->len + more + 1;
    if (BASE_GROW(t->data, t->cap, need, 64) != 0) {
        t->failed = 1;
        return -1;
    }
    return 0;
}

void sx_text_append(sx_text *t, const char *s, size_t len)
{
    if (reserve(t, len) != 0)
        return;
    memcpy(t->data + t->len, s, len);
    t->len += len;
    t->data[t->len] = '\0';
}

void sx_text_printf(sx_text *t, const char *fmt, ...)
{
    char small[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        t->failed = 1;
        return;
    }
    if ((size_t)n < sizeof small) {
        sx_text_append(t, small, (size_t)n);
        return;
    }
    if (reserve(t, (size_t)n) != 0)
        return;
    va_start(ap, fmt);
    vsnprintf(t->data + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

void sx_text_free(sx_text *t)
{
    free(t->data);
    *t = (sx_text){0};
}
