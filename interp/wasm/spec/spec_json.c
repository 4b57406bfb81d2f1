/*
 * spec_json.c - the JSON reader (see spec_json.h): a recursive-descent
 * parser over a byte range, RFC 8259 grammar, with a depth limit.
 */
#include "spec_json.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

typedef struct parser {
    const char *start, *p, *end;
    char *err;
    size_t errcap;
    bool failed;
} parser;

static bool fail(parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(parser *ps, const char *fmt, ...)
{
    if (ps->failed)
        return false;
    ps->failed = true;
    if (ps->errcap) {
        int n = snprintf(ps->err, ps->errcap, "at byte %zu: ", (size_t)(ps->p - ps->start));
        if (n >= 0 && (size_t)n < ps->errcap) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(ps->err + n, ps->errcap - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return false;
}

static void skip_ws(parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static bool eat(parser *ps, char c)
{
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == c) {
        ps->p++;
        return true;
    }
    return false;
}

/* ---- strings ------------------------------------------------------------- */

static int hex4(const char *p)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9' ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/* A \uXXXX escape (p after the 'u'), with a following low surrogate if it
 * is a high one; the code point into *cp. */
static bool unicode_escape(parser *ps, uint32_t *cp)
{
    if (ps->end - ps->p < 4 || hex4(ps->p) < 0)
        return fail(ps, "bad \\u escape");
    uint32_t hi = (uint32_t)hex4(ps->p);
    ps->p += 4;
    if (hi >= 0xDC00 && hi <= 0xDFFF)
        return fail(ps, "unpaired low surrogate");
    if (hi < 0xD800 || hi > 0xDBFF) {
        *cp = hi;
        return true;
    }
    if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u' || hex4(ps->p + 2) < 0)
        return fail(ps, "unpaired high surrogate");
    uint32_t lo = (uint32_t)hex4(ps->p + 2);
    if (lo < 0xDC00 || lo > 0xDFFF)
        return fail(ps, "unpaired high surrogate");
    ps->p += 6;
    *cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
    return true;
}

static size_t put_utf8(char *out, uint32_t cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* A string (at its opening quote) into a new buffer.  A decoded string is
 * never longer than its text, so one allocation of that size suffices. */
static bool parse_string(parser *ps, char **out, size_t *len)
{
    if (!eat(ps, '"'))
        return fail(ps, "expected a string");
    const char *q = ps->p;
    while (q < ps->end && *q != '"')
        q += *q == '\\' && q + 1 < ps->end ? 2 : 1;
    if (q >= ps->end)
        return fail(ps, "unterminated string");
    char *buf = malloc((size_t)(q - ps->p) + 1);
    if (!buf)
        return fail(ps, "out of memory");
    size_t n = 0;
    while (*ps->p != '"') {
        unsigned char c = (unsigned char)*ps->p++;
        if (c < 0x20) {
            ps->p--;
            free(buf);
            return fail(ps, "control character in a string");
        }
        if (c != '\\') {
            buf[n++] = (char)c;
            continue;
        }
        char e = *ps->p++;
        uint32_t cp = 0;
        switch (e) {
        case '"': case '\\': case '/': buf[n++] = e; break;
        case 'b': buf[n++] = '\b'; break;
        case 'f': buf[n++] = '\f'; break;
        case 'n': buf[n++] = '\n'; break;
        case 'r': buf[n++] = '\r'; break;
        case 't': buf[n++] = '\t'; break;
        case 'u':
            if (!unicode_escape(ps, &cp)) {
                free(buf);
                return false;
            }
            n += put_utf8(buf + n, cp); /* at most as long as the escape */
            break;
        default:
            ps->p -= 2;
            free(buf);
            return fail(ps, "bad escape");
        }
    }
    ps->p++;
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return true;
}

/* ---- values -------------------------------------------------------------- */

static bool parse_value(parser *ps, spec_json *v, int depth);

static void free_contents(spec_json *v)
{
    free(v->str);
    free(v->key);
    for (size_t i = 0; i < v->count; i++)
        free_contents(&v->items[i]);
    free(v->items);
}

static bool parse_number(parser *ps, spec_json *v)
{
    const char *s = ps->p, *p = s;
    if (p < ps->end && *p == '-')
        p++;
    const char *digits = p;
    while (p < ps->end && *p >= '0' && *p <= '9')
        p++;
    if (p == digits || (*digits == '0' && p - digits > 1))
        return fail(ps, "bad number");
    if (p < ps->end && *p == '.') {
        const char *f = ++p;
        while (p < ps->end && *p >= '0' && *p <= '9')
            p++;
        if (p == f)
            return fail(ps, "bad number");
    }
    if (p < ps->end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < ps->end && (*p == '+' || *p == '-'))
            p++;
        const char *x = p;
        while (p < ps->end && *p >= '0' && *p <= '9')
            p++;
        if (p == x)
            return fail(ps, "bad number");
    }
    v->kind = SPEC_JSON_NUMBER;
    v->len = (size_t)(p - s);
    if (!(v->str = malloc(v->len + 1)))
        return fail(ps, "out of memory");
    memcpy(v->str, s, v->len);
    v->str[v->len] = '\0';
    ps->p = p;
    return true;
}

static bool parse_word(parser *ps, spec_json *v, const char *word, spec_json_kind kind)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
        return fail(ps, "unexpected character");
    ps->p += n;
    v->kind = kind;
    return true;
}

/* Elements of an array or members of an object, after the opening bracket. */
static bool parse_items(parser *ps, spec_json *v, bool object, int depth)
{
    char close = object ? '}' : ']';
    size_t cap = 0;
    if (eat(ps, close))
        return true;
    do {
        if (BASE_GROW(v->items, cap, v->count + 1, 4) != 0)
            return fail(ps, "out of memory");
        spec_json *item = &v->items[v->count];
        memset(item, 0, sizeof *item);
        v->count++; /* freed with v from here on */
        skip_ws(ps);
        if (object && (!parse_string(ps, &item->key, &item->key_len) || !eat(ps, ':')))
            return fail(ps, "expected \"key\": in an object");
        if (!parse_value(ps, item, depth + 1))
            return false;
    } while (eat(ps, ','));
    if (!eat(ps, close))
        return fail(ps, object ? "expected , or } in an object" : "expected , or ] in an array");
    return true;
}

static bool parse_value(parser *ps, spec_json *v, int depth)
{
    skip_ws(ps);
    if (ps->p >= ps->end)
        return fail(ps, "unexpected end of text");
    if (depth >= SPEC_JSON_MAX_DEPTH)
        return fail(ps, "nested more than %d deep", SPEC_JSON_MAX_DEPTH);
    switch (*ps->p) {
    case '{':
    case '[':
        v->kind = *ps->p == '{' ? SPEC_JSON_OBJECT : SPEC_JSON_ARRAY;
        ps->p++;
        return parse_items(ps, v, v->kind == SPEC_JSON_OBJECT, depth);
    case '"':
        v->kind = SPEC_JSON_STRING;
        return parse_string(ps, &v->str, &v->len);
    case 't': return parse_word(ps, v, "true", SPEC_JSON_TRUE);
    case 'f': return parse_word(ps, v, "false", SPEC_JSON_FALSE);
    case 'n': return parse_word(ps, v, "null", SPEC_JSON_NULL);
    default: return parse_number(ps, v);
    }
}

spec_json *spec_json_parse(const char *text, size_t size, char *err, size_t errcap)
{
    parser ps = {text, text, text + size, err, errcap, false};
    if (errcap)
        err[0] = '\0';
    spec_json *root = calloc(1, sizeof *root);
    if (!root) {
        fail(&ps, "out of memory");
        return NULL;
    }
    if (parse_value(&ps, root, 0)) {
        skip_ws(&ps);
        if (ps.p == ps.end)
            return root;
        fail(&ps, "text after the value");
    }
    spec_json_free(root);
    return NULL;
}

void spec_json_free(spec_json *v)
{
    if (!v)
        return;
    free_contents(v);
    free(v);
}

/* ---- lookups ------------------------------------------------------------- */

const spec_json *spec_json_get(const spec_json *v, const char *key)
{
    if (!v || v->kind != SPEC_JSON_OBJECT)
        return NULL;
    size_t n = strlen(key);
    for (size_t i = 0; i < v->count; i++)
        if (v->items[i].key_len == n && memcmp(v->items[i].key, key, n) == 0)
            return &v->items[i];
    return NULL;
}

const char *spec_json_str(const spec_json *v, const char *key)
{
    const spec_json *m = spec_json_get(v, key);
    return m && m->kind == SPEC_JSON_STRING ? m->str : NULL;
}

const spec_json *spec_json_array(const spec_json *v, const char *key)
{
    const spec_json *m = spec_json_get(v, key);
    return m && m->kind == SPEC_JSON_ARRAY ? m : NULL;
}

bool spec_json_long(const spec_json *v, const char *key, long *out)
{
    const spec_json *m = spec_json_get(v, key);
    if (!m || m->kind != SPEC_JSON_NUMBER || strpbrk(m->str, ".eE"))
        return false;
    errno = 0;
    char *end;
    long n = strtol(m->str, &end, 10);
    if (errno || *end)
        return false;
    *out = n;
    return true;
}
