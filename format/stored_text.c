/*
 * stored_text.c - the stored text lists parsed and written (see
 * stored_text.h).
 */
#include "stored_text.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned fmt_count_words(const char *s)
{
    unsigned n = 0;
    for (const char *p = s ? s : ""; *p;) {
        size_t len = strcspn(p, " ");
        n += len > 0;
        p += len;
        while (*p == ' ')
            p++;
    }
    return n;
}

const char *fmt_parse_roles(const char *roles, unsigned nregs, uint16_t *reads, uint16_t *writes)
{
    unsigned i = 0;
    *reads = *writes = 0;
    for (const char *p = roles ? roles : ""; *p;) {
        size_t len = strcspn(p, " ");
        int rw = len == 2 && p[0] == 'r' && p[1] == 'w';
        int r = rw || (len == 1 && *p == 'r'), w = rw || (len == 1 && *p == 'w');
        if (len && i == nregs)
            return "more roles than register operands";
        if (len && !r && !w)
            return "a role is not r, w or rw";
        if (len && i < FMT_MAX_ROLES) {
            *reads |= (uint16_t)(r ? 1u << i : 0);
            *writes |= (uint16_t)(w ? 1u << i : 0);
        }
        i += len > 0;
        p += len;
        while (*p == ' ')
            p++;
    }
    if (i > FMT_MAX_ROLES) /* every word checked first */
        return "more than 16 register operands";
    return i == nregs ? NULL : "fewer roles than register operands";
}

int fmt_parse_indices(const char *text, uint8_t *v, unsigned max, unsigned limit)
{
    int n = 0;
    for (const char *p = text ? text : ""; *p;) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        char *end;
        long x = strtol(p, &end, 10);
        if (end == p || x < 0 || (unsigned long)x >= limit || (unsigned)n == max)
            return -1;
        v[n++] = (uint8_t)x;
        p = end;
    }
    return n;
}

int fmt_parse_ints(const char *text, int64_t *v, unsigned max)
{
    int n = 0;
    for (const char *p = text ? text : ""; *p;) {
        if (*p == ' ') {
            p++;
            continue;
        }
        char *end;
        errno = 0;
        long long x = strtoll(p, &end, 10);
        if (end == p || errno || (*end && *end != ' ') || (unsigned)n == max)
            return -1;
        v[n++] = x;
        p = end;
    }
    return n;
}

/* v in decimal into out (room for 21 bytes); its length.  The collector
 * writes a list per instruction: no snprintf. */
static size_t write_int(char *out, int64_t v)
{
    char digits[20];
    uint64_t m = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    size_t n = 0, len = 0;
    do
        digits[n++] = (char)('0' + m % 10);
    while ((m /= 10) != 0);
    if (v < 0)
        out[len++] = '-';
    while (n)
        out[len++] = digits[--n];
    return len;
}

const char *fmt_write_ints(char *buf, size_t cap, const int64_t *v, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        char one[22];
        size_t w = write_int(one, v[i]);
        if (len + (i > 0) + w >= cap)
            return NULL;
        if (i)
            buf[len++] = ' ';
        memcpy(buf + len, one, w);
        len += w;
        buf[len] = '\0';
    }
    return buf;
}

void fmt_flag_words(unsigned flags, char *out, size_t cap)
{
    static const char *const words[FMT_FLAG_WORDS] = {"branch", "term",   "traps",   "call",
                                                      "return", "macro", "adaptive"};
    size_t n = 0;
    out[0] = '\0';
    for (unsigned b = 0; b < FMT_FLAG_WORDS && n < cap; b++)
        if (flags >> b & 1)
            n += (size_t)snprintf(out + n, cap - n, "%s%s", n ? " " : "", words[b]);
}
