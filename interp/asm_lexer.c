/*
 * asm_lexer.c - splits .pasm text into tokens, converts literal tokens to
 * values, and writes names and string bytes the way the lexer reads them
 * (see asm_lexer.h for the token syntax).
 */
#include "asm_lexer.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module.h"

static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_alpha(int c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
static bool is_name_start(int c) { return is_alpha(c) || c == '_' || c == '.' || c == '$'; }
static bool is_name_char(int c) { return is_name_start(c) || is_digit(c); }
static bool is_number_char(int c) { return is_alpha(c) || is_digit(c) || c == '_' || c == '.'; }

static int hex_value(int c)
{
    if (is_digit(c))
        return c - '0';
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

void pasm_lexer_init(pasm_lexer *lx, const char *filename, const char *text,
                     size_t len, pvm_error *err)
{
    *lx = (pasm_lexer){.filename = filename, .p = text, .end = text + len,
                       .line_start = text, .line = 1, .err = err};
}

void pasm_lexer_free(pasm_lexer *lx) { pvm_buf_free(&lx->string); }

int pasm_verrorf(const pasm_lexer *lx, unsigned line, unsigned col,
                 const char *fmt, va_list ap)
{
    char msg[400];
    vsnprintf(msg, sizeof msg, fmt, ap);
    return pvm_errorf(lx->err, "%s:%u:%u: %s", lx->filename, line, col, msg);
}

int pasm_errorf(const pasm_lexer *lx, unsigned line, unsigned col,
                const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pasm_verrorf(lx, line, col, fmt, ap);
    va_end(ap);
    return -1;
}

/* Decode the string whose opening quote is at lx->p into lx->string. */
static int lex_string(pasm_lexer *lx, pasm_token *tok)
{
    lx->string.len = 0;
    const char *p = lx->p + 1;
    for (;;) {
        if (p == lx->end || *p == '\n')
            return pasm_errorf(lx, tok->line, tok->col, "unterminated string");
        unsigned char c = (unsigned char)*p++;
        if (c == '"')
            break;
        if (c == '\\') {
            unsigned col = (unsigned)(p - 1 - lx->line_start) + 1;
            int e = p < lx->end ? (unsigned char)*p++ : -1;
            switch (e) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case '0': c = 0; break;
            case '\\': case '"': case '\'': c = (unsigned char)e; break;
            case 'x': {
                int hi = p < lx->end ? hex_value(p[0]) : -1;
                int lo = p + 1 < lx->end && hi >= 0 ? hex_value(p[1]) : -1;
                if (lo < 0)
                    return pasm_errorf(lx, tok->line, col,
                                       "bad escape: \\x needs two hex digits");
                c = (unsigned char)(hi << 4 | lo);
                p += 2;
                break;
            }
            default:
                if (e > ' ' && e < 127)
                    return pasm_errorf(lx, tok->line, col, "bad escape '\\%c' in string", e);
                return pasm_errorf(lx, tok->line, col, "bad escape in string");
            }
        }
        pvm_buf_u8(&lx->string, c);
    }
    if (lx->string.failed)
        return pasm_errorf(lx, tok->line, tok->col, "out of memory");
    tok->kind = PASM_TOK_STRING;
    tok->text = (const char *)lx->string.data;
    tok->len = lx->string.len;
    lx->p = p;
    return 0;
}

/* The end of the NUMBER token starting at p (after any sign). */
static const char *number_end(const char *start, const char *p, const char *end)
{
    bool hex = end - p >= 2 && p[0] == '0' && (p[1] | 0x20) == 'x';
    while (p < end) {
        if (is_number_char(*p))
            p++;
        else if (!hex && (*p == '+' || *p == '-') && p > start && (p[-1] | 0x20) == 'e')
            p++;
        else
            break;
    }
    return p;
}

int pasm_next(pasm_lexer *lx, pasm_token *tok)
{
    const char *p = lx->p, *end = lx->end;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
        p++;
    if (p < end && *p == ';')
        while (p < end && *p != '\n')
            p++;
    lx->p = p;
    tok->text = p;
    tok->line = lx->line;
    tok->col = (unsigned)(p - lx->line_start) + 1;
    if (p == end) {
        tok->kind = PASM_TOK_EOF;
        tok->len = 0;
        return 0;
    }

    const char *start = p;
    char c = *p;
    static const char punct[] = ",:[]";
    static const pasm_tok_kind punct_kind[] = {PASM_TOK_COMMA, PASM_TOK_COLON,
                                               PASM_TOK_LBRACKET, PASM_TOK_RBRACKET};
    if (c == '\n') {
        tok->kind = PASM_TOK_NEWLINE;
        p++;
        lx->line++;
        lx->line_start = p;
    } else if (c != 0 && strchr(punct, c)) {
        tok->kind = punct_kind[strchr(punct, c) - punct];
        p++;
    } else if (c == '-' && p + 1 < end && p[1] == '>') {
        tok->kind = PASM_TOK_ARROW;
        p += 2;
    } else if (c == '"') {
        return lex_string(lx, tok);
    } else if (c == '#') {
        tok->kind = PASM_TOK_INDEX;
        p++;
        while (p < end && is_digit(*p))
            p++;
        if (p == start + 1)
            return pasm_errorf(lx, tok->line, tok->col, "expected a number after '#'");
        start++;
    } else if (is_name_start(c)) {
        tok->kind = PASM_TOK_NAME;
        while (p < end && is_name_char(*p))
            p++;
    } else if (is_digit(c) || ((c == '+' || c == '-') && p + 1 < end &&
                               (is_number_char(p[1])))) {
        tok->kind = PASM_TOK_NUMBER;
        p = number_end(start, p + (c == '+' || c == '-'), end);
    } else if ((unsigned char)c > ' ' && (unsigned char)c < 127) {
        return pasm_errorf(lx, tok->line, tok->col, "unexpected character '%c'", c);
    } else {
        return pasm_errorf(lx, tok->line, tok->col, "unexpected byte 0x%02x",
                           (unsigned char)c);
    }
    tok->text = start;
    tok->len = (size_t)(p - start);
    lx->p = p;
    return 0;
}

/* ---- literal values ------------------------------------------------------ */

int pasm_register(const char *text, size_t len, char prefix)
{
    if (len < 2 || len > 4 || text[0] != prefix)
        return -1;
    if (text[1] == '0' && len > 2)
        return -1; /* no leading zeros: x01 is not a register */
    int n = 0;
    for (size_t i = 1; i < len; i++) {
        if (!is_digit(text[i]))
            return -1;
        n = n * 10 + (text[i] - '0');
    }
    return n;
}

const char *pasm_integer(const char *text, size_t len, pasm_int *out)
{
    const char *p = text, *end = text + len;
    *out = (pasm_int){0};
    if (p < end && (*p == '+' || *p == '-')) {
        out->explicit_sign = true;
        out->negative = *p++ == '-';
    }
    unsigned base = 10;
    if (end - p > 2 && p[0] == '0' && (p[1] | 0x20) == 'x') {
        base = 16;
        p += 2;
    }
    if (p == end)
        return "not an integer";
    for (; p < end; p++) {
        int d = base == 16 ? hex_value(*p) : is_digit(*p) ? *p - '0' : -1;
        if (d < 0)
            return "not an integer";
        if (out->magnitude > (UINT64_MAX - (unsigned)d) / base)
            return "integer too large";
        out->magnitude = out->magnitude * base + (unsigned)d;
    }
    return NULL;
}

const char *pasm_float_bits(const char *text, size_t len, bool f64, uint64_t *bits)
{
    size_t digits = len > 0 && (text[0] == '+' || text[0] == '-');
    if (len - digits > 2 && text[digits] == '0' && (text[digits + 1] | 0x20) == 'x') {
        if (digits)
            return "raw float bits take no sign";
        pasm_int v;
        if (pasm_integer(text, len, &v))
            return "raw float bits must be hex digits";
        if (!f64 && v.magnitude > UINT32_MAX)
            return "raw bits do not fit an f32";
        *bits = v.magnitude;
        return NULL;
    }
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return "not a float";
    memcpy(buf, text, len);
    buf[len] = 0;
    char *stop;
    errno = 0;
    if (f64) {
        double v = strtod(buf, &stop);
        if (stop != buf + len)
            return "not a float";
        if (isinf(v) && errno == ERANGE)
            return "float out of range for f64";
        *bits = pvm_f64_bits(v);
    } else {
        float v = strtof(buf, &stop);
        if (stop != buf + len)
            return "not a float";
        if (isinf(v) && errno == ERANGE)
            return "float out of range for f32";
        *bits = pvm_f32_bits(v);
    }
    return NULL;
}

static const char type_letters[] = PVM_TYPE_LETTERS;
static const char *const type_names[] = {"i32", "i64", "f32", "f64", "funcref", "externref"};
_Static_assert(sizeof type_names / sizeof type_names[0] == sizeof type_letters - 1,
               "a name for every type letter");

char pasm_type_letter(const char *text, size_t len)
{
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
        if (strlen(type_names[i]) == len && memcmp(text, type_names[i], len) == 0)
            return type_letters[i];
    return 0;
}

const char *pasm_type_name(char letter)
{
    const char *p = letter ? strchr(type_letters, letter) : NULL;
    return p ? type_names[p - type_letters] : NULL;
}

/* ---- writing text the lexer reads back ----------------------------------- */

bool pasm_is_bare_name(const char *s, size_t len)
{
    if (len == 0 || !is_name_start(s[0]))
        return false;
    for (size_t i = 1; i < len; i++)
        if (!is_name_char(s[i]))
            return false;
    return true;
}

int pasm_escape_byte(char out[4], uint8_t c)
{
    static const char named[] = "\n\t\r\\\"";
    static const char letter[] = "ntr\\\"";
    const char *n = c ? strchr(named, c) : NULL;
    if (n) {
        out[0] = '\\';
        out[1] = letter[n - named];
        return 2;
    }
    if (c >= ' ' && c < 127) {
        out[0] = (char)c;
        return 1;
    }
    static const char hex[] = "0123456789abcdef";
    out[0] = '\\';
    out[1] = 'x';
    out[2] = hex[c >> 4];
    out[3] = hex[c & 15];
    return 4;
}
