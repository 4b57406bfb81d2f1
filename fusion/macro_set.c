/*
 * macro_set.c - reading, checking and writing .macros files.
 */
#include "macro_set.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

typedef struct parser {
    const char *name;
    unsigned line;
    char *err;
    size_t cap;
} parser;

static int fail(const parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(const parser *ps, const char *fmt, ...)
{
    int n = snprintf(ps->err, ps->cap, "%s:%u: ", ps->name, ps->line);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < ps->cap)
        vsnprintf(ps->err + n, ps->cap - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* Letters, digits and _, not starting with a digit (of any length: the
 * length is checked apart, to say so). */
static int is_identifier(const char *s, size_t len)
{
    if (len == 0 || !(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
        return 0;
    for (size_t i = 1; i < len; i++)
        if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9')))
            return 0;
    return 1;
}

/* The words of one line (at most max), split at blanks; a '#' starts a
 * comment.  Returns how many, or -1 if there are more. */
static int split(char *line, char **words, int max)
{
    int n = 0;
    for (char *p = line; *p;) {
        while (*p == ' ' || *p == '\t' || *p == '\r')
            p++;
        if (!*p || *p == '#')
            break;
        if (n == max)
            return -1;
        words[n++] = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '#')
            p++;
        if (*p == '#') {
            *p = '\0';
            break;
        }
        if (*p)
            *p++ = '\0';
    }
    return n;
}

static int is_letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

int fu_kind_ok(const char *kind)
{
    size_t k = 0;
    while (k < FU_MAX_KIND && is_letter(kind[k]))
        k++;
    return k > 0 && k < FU_MAX_KIND && kind[k] == '\0' && strcmp(kind, "imm") != 0;
}

/* A macro register operand "x3", "f0", "r12": its kind (the letters
 * before the number, copied into kind) and its number; or -1, failed
 * saying what is wrong with it. */
static int parse_reg(const parser *ps, const char *w, char kind[FU_MAX_KIND])
{
    size_t k = 0, digits = 0;
    while (is_letter(w[k]))
        k++;
    while (w[k + digits] >= '0' && w[k + digits] <= '9')
        digits++;
    if (k == 0 || digits == 0 || w[k + digits])
        return fail(ps, "operand '%s' is neither a macro register (a kind and a number: x0,"
                        " f1, r2 ...) nor imm", w);
    if (k >= FU_MAX_KIND)
        return fail(ps, "operand '%s': its register kind is %zu letters, at most %d", w, k,
                    FU_MAX_KIND - 1);
    memcpy(kind, w, k);
    kind[k] = '\0';
    if (!fu_kind_ok(kind))
        return fail(ps, "operand '%s': imm is no register kind (an immediate is 'imm', without"
                        " a number)", w);
    if (w[k] == '0' && digits > 1)
        return fail(ps, "operand '%s': a register number has no leading zero", w);
    if (digits > 6) /* no number of so many digits is one of a macro op's registers */
        return fail(ps, "operand '%s': a macro op has at most %d register operands (%s0 to %s%d)",
                    w, FU_MAX_REGS, kind, kind, FU_MAX_REGS - 1);
    unsigned long n = 0;
    for (size_t i = 0; i < digits; i++)
        n = n * 10 + (unsigned long)(w[k + i] - '0');
    if (n >= FU_MAX_REGS)
        return fail(ps, "operand '%s' is register operand %lu: a macro op has at most %d register"
                        " operands (%s0 to %s%d)", w, n + 1, FU_MAX_REGS, kind, kind,
                    FU_MAX_REGS - 1);
    return (int)n;
}

/* Fail unless name (what it is: "macro op name", "opcode name") fits a
 * fu_macro. */
static int check_length(const parser *ps, const char *what, const char *name)
{
    size_t len = strlen(name);
    if (len < FU_MAX_NAME)
        return 0;
    return fail(ps, "%s %.16s... is %zu characters, at most %d", what, name, len, FU_MAX_NAME - 1);
}

/* One "part OP OPERAND..." line into the macro being read. */
static int parse_part(const parser *ps, fu_macro *m, char **w, int n)
{
    if (n < 2)
        return fail(ps, "'part' needs an opcode");
    if (m->nparts == FU_MAX_PARTS)
        return fail(ps, "macro op %s has more than %d parts", m->name, FU_MAX_PARTS);
    if (!is_identifier(w[1], strlen(w[1])))
        return fail(ps, "'%s' is not an opcode name", w[1]);
    if (check_length(ps, "opcode name", w[1]) != 0)
        return -1;
    fu_part *pt = &m->part[m->nparts];
    memset(pt, 0, sizeof *pt);
    snprintf(pt->op, sizeof pt->op, "%s", w[1]);
    pt->line = ps->line;
    for (int i = 2; i < n; i++) {
        if (strcmp(w[i], "imm") == 0) {
            if (m->nimms == FU_MAX_IMMS)
                return fail(ps, "macro op %s has more than %d immediates", m->name, FU_MAX_IMMS);
            pt->nimms++;
            m->nimms++;
            continue;
        }
        char kind[FU_MAX_KIND];
        int r = parse_reg(ps, w[i], kind);
        if (r < 0)
            return -1;
        if (pt->nimms)
            return fail(ps, "register operand %s follows an immediate", w[i]);
        if (pt->nregs == FU_MAX_REGS)
            return fail(ps, "part %s has more than %d register operands", pt->op, FU_MAX_REGS);
        if ((unsigned)r > m->nregs)
            return fail(ps, "macro register %s is used before %s%u (number them in order of first use)",
                        w[i], kind, m->nregs);
        if ((unsigned)r == m->nregs)
            memcpy(m->kind[m->nregs++], kind, FU_MAX_KIND);
        else if (strcmp(m->kind[r], kind) != 0)
            return fail(ps, "macro register %d is %s%d here and %s%d before", r, kind, r,
                        m->kind[r], r);
        pt->reg[pt->nregs++] = (uint8_t)r;
    }
    m->nparts++;
    return 0;
}

/* Is m complete: at least two parts, a name no other op of s has? */
static int check_macro(const fu_set *s, const fu_macro *m, char *err, size_t cap)
{
    if (m->nparts < 2) {
        snprintf(err, cap, "macro op %s has %u part%s: a macro op does the work of two or more",
                 m->name, m->nparts, m->nparts == 1 ? "" : "s");
        return -1;
    }
    if (fu_set_find(s, m->name) >= 0) {
        snprintf(err, cap, "macro op %s is defined twice", m->name);
        return -1;
    }
    for (unsigned r = 0; r < m->nregs && r < FU_MAX_REGS; r++)
        if (!fu_kind_ok(m->kind[r])) {
            snprintf(err, cap, "macro op %s: register %u has kind '%.*s', which is not a word of"
                               " 1 to %d letters (nor imm)",
                     m->name, r, FU_MAX_KIND, m->kind[r], FU_MAX_KIND - 1);
            return -1;
        }
    return 0;
}

int fu_set_add(fu_set *s, const fu_macro *m, char *err, size_t cap)
{
    if (!memchr(m->name, '\0', sizeof m->name)) {
        snprintf(err, cap, "macro op name %.16s... is longer than %d characters", m->name,
                 FU_MAX_NAME - 1);
        return -1;
    }
    if (!is_identifier(m->name, strlen(m->name))) {
        snprintf(err, cap, "'%s' is not a macro op name", m->name);
        return -1;
    }
    if (check_macro(s, m, err, cap) != 0)
        return -1;
    if (BASE_GROW(s->macros, s->cap, s->n + 1, 16) != 0) {
        snprintf(err, cap, "out of memory");
        return -1;
    }
    s->macros[s->n++] = *m;
    return 0;
}

/* One line of the file; *m is the macro op being read (open: inside one). */
static int parse_line(const parser *ps, fu_set *s, fu_macro *m, int *open, int *header,
                      char *line)
{
    char *w[2 + FU_MAX_REGS + FU_MAX_IMMS];
    int n = split(line, w, (int)(sizeof w / sizeof w[0]));
    if (n < 0)
        return fail(ps, "too many words");
    if (n == 0)
        return 0;
    if (!*header) {
        if (n != 2 || strcmp(w[0], "pulley-macros") != 0)
            return fail(ps, "not a .macros file: the first line must be 'pulley-macros %d'",
                        FU_FORMAT_VERSION);
        if (strcmp(w[1], "1") != 0)
            return fail(ps, "format version %s: this reader knows version %d", w[1],
                        FU_FORMAT_VERSION);
        *header = 1;
        return 0;
    }
    if (strcmp(w[0], "macro") == 0) {
        if (*open)
            return fail(ps, "macro op %s has no 'end'", m->name);
        if (n != 2 || !is_identifier(w[1], strlen(w[1])))
            return fail(ps, "'macro' takes a name (letters, digits, _)");
        if (check_length(ps, "macro op name", w[1]) != 0)
            return -1;
        memset(m, 0, sizeof *m);
        snprintf(m->name, sizeof m->name, "%s", w[1]);
        m->predicted = -1;
        m->line = ps->line;
        *open = 1;
        return 0;
    }
    if (!*open)
        return fail(ps, "'%s' outside a macro op", w[0]);
    if (strcmp(w[0], "part") == 0)
        return parse_part(ps, m, w, n);
    if (strcmp(w[0], "predicted") == 0) {
        char *end;
        double v = n == 2 ? strtod(w[1], &end) : -1;
        if (n != 2 || *end || !(v >= 0 && v <= 100))
            return fail(ps, "'predicted' takes a percentage (0 to 100)");
        m->predicted = v;
        return 0;
    }
    if (strcmp(w[0], "end") == 0) {
        if (n != 1)
            return fail(ps, "'end' takes nothing");
        char why[256];
        if (fu_set_add(s, m, why, sizeof why) != 0)
            return fail(ps, "%s", why);
        *open = 0;
        return 0;
    }
    return fail(ps, "unknown keyword '%s' (macro, part, predicted, end)", w[0]);
}

int fu_set_parse(fu_set *out, const char *text, size_t len, const char *name, char *err,
                 size_t cap)
{
    memset(out, 0, sizeof *out);
    parser ps = {name, 0, err, cap};
    fu_macro m;
    int open = 0, header = 0;
    char line[1024];
    for (size_t at = 0; at < len;) {
        size_t end = at;
        while (end < len && text[end] != '\n')
            end++;
        ps.line++;
        if (end - at >= sizeof line || memchr(text + at, '\0', end - at)) {
            fail(&ps, end - at >= sizeof line ? "line too long" : "a NUL byte");
            goto failed;
        }
        memcpy(line, text + at, end - at);
        line[end - at] = '\0';
        if (parse_line(&ps, out, &m, &open, &header, line) != 0)
            goto failed;
        at = end + 1;
    }
    ps.line++;
    if (!header) {
        fail(&ps, "empty: not a .macros file");
        goto failed;
    }
    if (open) {
        fail(&ps, "macro op %s has no 'end'", m.name);
        goto failed;
    }
    return 0;
failed:
    fu_set_free(out);
    return -1;
}

int fu_set_read(fu_set *out, const char *path, char *err, size_t cap)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, cap, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *text = NULL;
    size_t len = 0, room = 0;
    int rc = 0;
    for (;;) {
        if (len == room && (room >= (64u << 20) || BASE_GROW(text, room, len + 1, 4096) != 0)) {
            snprintf(err, cap, "%s: %s", path, room >= (64u << 20) ? "too large" : "out of memory");
            rc = -1;
            break;
        }
        size_t got = fread(text + len, 1, room - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f)) {
                snprintf(err, cap, "%s: read error", path);
                rc = -1;
            }
            break;
        }
    }
    fclose(f);
    if (rc == 0)
        rc = fu_set_parse(out, text ? text : "", len, path, err, cap);
    free(text);
    return rc;
}

int fu_set_write(FILE *out, const fu_set *s, const char *comment)
{
    for (const char *p = comment; p && *p;) {
        size_t n = strcspn(p, "\n");
        fprintf(out, "# %.*s\n", (int)n, p);
        p += n + (p[n] == '\n');
    }
    fprintf(out, "pulley-macros %d\n", FU_FORMAT_VERSION);
    for (size_t i = 0; i < s->n; i++) {
        const fu_macro *m = &s->macros[i];
        fprintf(out, "\nmacro %s\n", m->name);
        if (m->predicted >= 0)
            fprintf(out, "  predicted %.4f\n", m->predicted);
        for (unsigned k = 0; k < m->nparts; k++) {
            const fu_part *pt = &m->part[k];
            fprintf(out, "  part %s", pt->op);
            for (unsigned r = 0; r < pt->nregs; r++)
                fprintf(out, " %s%u", m->kind[pt->reg[r]], pt->reg[r]);
            for (unsigned i2 = 0; i2 < pt->nimms; i2++)
                fputs(" imm", out);
            fputc('\n', out);
        }
        fputs("end\n", out);
    }
    return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

long fu_set_find(const fu_set *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->macros[i].name, name) == 0)
            return (long)i;
    return -1;
}

void fu_set_free(fu_set *s)
{
    free(s->macros);
    memset(s, 0, sizeof *s);
}

int fu_default_name(const fu_macro *m, char *buf, size_t cap)
{
    size_t len = 0;
    for (unsigned k = 0; k < m->nparts; k++) {
        int n = snprintf(buf + len, cap - len, "%s%s", k ? "__" : "", m->part[k].op);
        if (n < 0 || (size_t)n >= cap - len)
            return -1;
        len += (size_t)n;
    }
    return len < FU_MAX_NAME ? 0 : -1;
}
