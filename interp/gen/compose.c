/*
 * compose.c - a macro op's handler from its parts' bodies (compose.h):
 * the locals its operands are read into, each part's body with those
 * written in for its operand words, and its end: a part but the last
 * goes on to the next (its final NEXT(); dropped, any other NEXT() a goto
 * to where the next part starts), the last part's NEXT() dispatches.
 */
#include "compose.h"

#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "gen_io.h"

enum { MAX_PARENS = 8 }; /* parentheses a style may close, nested */

struct mg_rewrite {
    const mg_part *p;
    const mg_style *st;
    FILE *out;
    int bol;             /* the output is at the beginning of a line */
    const char *text;    /* the body, */
    size_t len, at;      /* the part of it written, and where the writing is */
    unsigned depth;      /* parentheses open */
    unsigned nclose, close_depth[MAX_PARENS];
    char closer[MAX_PARENS][80]; /* written before the ')' at that depth */
    char label[FU_MAX_NAME + 32]; /* where a NEXT() before the body's end goes */
    int goto_used;
};

const mg_part *mg_rewrite_part(const mg_rewrite *rw)
{
    return rw->p;
}

/* Text written with four more spaces of indentation on every line. */
static void put_n(mg_rewrite *rw, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (rw->bol && s[i] != '\n')
            fputs("    ", rw->out);
        rw->bol = s[i] == '\n';
        fputc(s[i], rw->out);
    }
}

void mg_put(mg_rewrite *rw, const char *text)
{
    put_n(rw, text, strlen(text));
}

static void fail_at(const mg_part *p, unsigned line, const char *what) __attribute__((noreturn));
static void fail_at(const mg_part *p, unsigned line, const char *what)
{
    mg_die("%s:%u: macro op %s, part %u (%s): %s", p->bodies_path, line, p->m->name, p->k + 1,
           p->m->part[p->k].op, what);
}

void mg_fail(const mg_rewrite *rw, const char *fmt, ...)
{
    unsigned line = rw->p->body->line;
    for (size_t i = 0; i < rw->at && i < rw->len; i++)
        line += rw->text[i] == '\n';
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    fail_at(rw->p, line, what);
}

void mg_part_fail(const mg_part *p, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    fail_at(p, p->body ? p->body->line : 0, what);
}

/* Skip blanks, then expect c (the body says `word`) and step over it. */
static void expect(mg_rewrite *rw, char c, const char *word)
{
    while (rw->at < rw->len && (rw->text[rw->at] == ' ' || rw->text[rw->at] == '\t'))
        rw->at++;
    if (rw->at == rw->len || rw->text[rw->at] != c)
        mg_fail(rw, "%s without '%c'", word, c);
    rw->at++;
}

void mg_open_paren(mg_rewrite *rw, const char *word, const char *closer)
{
    expect(rw, '(', word);
    if (rw->nclose == MAX_PARENS)
        mg_fail(rw, "%s nested too deep", word);
    if (closer && strlen(closer) >= sizeof rw->closer[0])
        mg_fail(rw, "%s: '%s' is too long to write before its ')'", word, closer);
    rw->depth++;
    rw->close_depth[rw->nclose] = rw->depth;
    snprintf(rw->closer[rw->nclose++], sizeof rw->closer[0], "%s", closer ? closer : "");
}

static int is_ident_char(char c, int first)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (!first && c >= '0' && c <= '9');
}

/* Is id[0 .. n) one of the handler's locals (its registers' and
 * immediates' names)? */
static int is_local(const fu_macro *m, const char *id, size_t n)
{
    char name[MG_MAX_LOCAL];
    for (unsigned r = 0; r < m->nregs; r++) {
        int len = snprintf(name, sizeof name, "%s%u", m->kind[r], r);
        if ((size_t)len == n && memcmp(name, id, n) == 0)
            return 1;
    }
    for (unsigned i = 0; i < m->nimms; i++) {
        int len = snprintf(name, sizeof name, "imm%u", i);
        if ((size_t)len == n && memcmp(name, id, n) == 0)
            return 1;
    }
    return 0;
}

/* The identifier text[at .. at + n), written as the part means it. */
static void put_ident(mg_rewrite *rw, size_t n)
{
    const mg_part *p = rw->p;
    const fu_part *pt = &p->m->part[p->k];
    const char *id = rw->text + rw->at;
    rw->at += n;
    if (n == 1 && id[0] >= 'A' && id[0] < 'A' + (int)rw->st->reg_letters) {
        unsigned j = (unsigned)(id[0] - 'A');
        if (j >= pt->nregs)
            mg_fail(rw, "its body reads operand %c, and the part has %u register operand%s", id[0],
                    pt->nregs, pt->nregs == 1 ? "" : "s");
        mg_put(rw, p->reg[j]);
        return;
    }
    if (rw->st->word && rw->st->word(rw, id, n))
        return;
    if (n == 4 && memcmp(id, "NEXT", 4) == 0 && p->k + 1 < p->m->nparts) {
        expect(rw, '(', "NEXT"); /* before the body's end: on to the next part */
        expect(rw, ')', "NEXT(");
        mg_put(rw, "goto ");
        mg_put(rw, rw->label);
        rw->goto_used = 1;
        return;
    }
    if (is_local(p->m, id, n))
        mg_fail(rw, "its body names %.*s, the name of one of the macro op's operands", (int)n, id);
    put_n(rw, id, n);
}

/* The length of the token at text[at] that is not an identifier: a
 * comment, a string or character literal, a number, or one character. */
static size_t token_length(const mg_rewrite *rw)
{
    const char *t = rw->text;
    size_t i = rw->at, len = rw->len, n = 1;
    char c = t[i], d = i + 1 < len ? t[i + 1] : '\0';
    if (c == '/' && d == '*') {
        const char *end = strstr(t + i + 2, "*/");
        n = end && (size_t)(end - t) + 2 <= len ? (size_t)(end - t) + 2 - i : len - i;
    } else if (c == '/' && d == '/') {
        n = strcspn(t + i, "\n");
    } else if (c == '"' || c == '\'') {
        while (i + n < len && t[i + n] != c && t[i + n] != '\n')
            n += t[i + n] == '\\' && i + n + 1 < len ? 2 : 1;
        n += i + n < len && t[i + n] == c;
    } else if ((c >= '0' && c <= '9') || (c == '.' && d >= '0' && d <= '9')) {
        while (i + n < len &&
               (is_ident_char(t[i + n], 0) || t[i + n] == '.' ||
                ((t[i + n] == '+' || t[i + n] == '-') && strchr("eEpP", t[i + n - 1]))))
            n++; /* 0x1F, 1u, 1e-3: no identifier in it */
    }
    return n;
}

/* Write the part's body text[0 .. len) with its operands written in. */
static void put_body(mg_rewrite *rw)
{
    while (rw->at < rw->len) {
        char c = rw->text[rw->at];
        if (is_ident_char(c, 1)) {
            size_t n = 1;
            while (rw->at + n < rw->len && is_ident_char(rw->text[rw->at + n], 0))
                n++;
            put_ident(rw, n);
            continue;
        }
        size_t n = token_length(rw);
        if (c == '(') {
            rw->depth++;
        } else if (c == ')') {
            if (rw->nclose && rw->close_depth[rw->nclose - 1] == rw->depth)
                mg_put(rw, rw->closer[--rw->nclose]);
            rw->depth--;
        }
        put_n(rw, rw->text + rw->at, n);
        rw->at += n;
    }
    if (rw->nclose)
        mg_fail(rw, "a '(' without its ')'");
}

/* The length of body text without its last line when that is NEXT(); at
 * the body's own indentation (its first non-blank line's): the part then
 * ends where the next begins.  Every body of vm_ops.h that goes on to the
 * next instruction ends so. */
static size_t without_last_next(const char *text)
{
    size_t len = strlen(text);
    while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
        len--;
    size_t start = len;
    while (start && text[start - 1] != '\n')
        start--;
    const char *first = text + strspn(text, "\n");
    size_t indent = strspn(text + start, " \t");
    static const char next[] = "NEXT();";
    if (len - start - indent == sizeof next - 1 &&
        memcmp(text + start + indent, next, sizeof next - 1) == 0 &&
        strspn(first, " \t") == indent && memcmp(first, text + start, indent) == 0)
        return start;
    return strlen(text);
}

/* ---- the handler ------------------------------------------------------ */

/* Declarations of locals, consecutive ones of one type in one line:
 * "    const unsigned x0 = MACRO_REG_(0), x1 = MACRO_REG_(1);". */
typedef struct decls {
    FILE *out;
    char type[128];
    int open;
} decls;

static void declare(decls *d, const char *type, const char *name, const char *init)
{
    if (d->open && strcmp(type, d->type) == 0) {
        fprintf(d->out, ", %s = %s", name, init);
        return;
    }
    if (d->open)
        fputs(";\n", d->out);
    fprintf(d->out, "    const %s %s = %s", type, name, init);
    snprintf(d->type, sizeof d->type, "%s", type);
    d->open = 1;
}

static void end_decls(decls *d)
{
    if (d->open)
        fputs(";\n", d->out);
    d->open = 0;
}

/* The locals of part p's operands: its registers (those it is the first
 * to use - bit r of *declared: macro register r has its local - read
 * where it starts: fewer values live at once than if all were read at
 * the top, and a value a part wrote still reaches the next in a machine
 * register, its register number being the same local), then its
 * immediates. */
static void declare_operands(FILE *out, mg_part *p, uint32_t *declared, const mg_style *st)
{
    const fu_part *pt = &p->m->part[p->k];
    char type[128], init[256], name[MG_MAX_LOCAL];
    decls d = {.out = out};
    for (unsigned j = 0; j < pt->nregs; j++) {
        unsigned r = pt->reg[j];
        snprintf(p->reg[j], sizeof p->reg[j], "%s%u", p->m->kind[r], r);
        if (*declared >> r & 1)
            continue;
        *declared |= UINT32_C(1) << r;
        st->reg_local(p, r, type, sizeof type, init, sizeof init);
        declare(&d, type, p->reg[j], init);
    }
    end_decls(&d);
    for (unsigned j = 0; j < pt->nimms; j++) {
        snprintf(name, sizeof name, "imm%u", p->first_imm + j);
        st->imm_local(p, j, type, sizeof type, init, sizeof init);
        declare(&d, type, name, init);
    }
    end_decls(&d);
}

/* "    / * part 2: xadd64 x2, x3, imm0 * / {" (without the blanks). */
static void part_comment(FILE *out, const mg_part *p)
{
    const fu_part *pt = &p->m->part[p->k];
    fprintf(out, "    /* part %u: %s", p->k + 1, pt->op);
    for (unsigned j = 0; j < pt->nregs; j++)
        fprintf(out, "%s%s", j ? ", " : " ", p->reg[j]);
    for (unsigned j = 0; j < pt->nimms; j++)
        fprintf(out, "%simm%u", pt->nregs || j ? ", " : " ", p->first_imm + j);
    fputs(" */ {\n", out);
}

void mg_write_handler(FILE *out, const fu_macro *m, const void *row, const mg_bodies *b,
                      const mg_style *st)
{
    fprintf(out, "\nOPCODE(%s%s)\n", st->name_prefix ? st->name_prefix : "", m->name);
    uint32_t declared = 0;
    unsigned imm = 0;
    for (unsigned k = 0; k < m->nparts; k++) {
        mg_part p = {.m = m, .row = row, .k = k, .first_imm = imm, .bodies_path = b->path};
        if (!(p.body = mg_body_of(b, m->part[k].op)))
            mg_die("%s: no body for %s (macro op %s, part %u)", b->path, m->part[k].op, m->name,
                   k + 1);
        if (st->check_part)
            st->check_part(&p);
        declare_operands(out, &p, &declared, st);
        part_comment(out, &p);
        int last = k + 1 == m->nparts;
        size_t len = strlen(p.body->text);
        if (!last && (len = without_last_next(p.body->text)) == strlen(p.body->text))
            mg_part_fail(&p, "its body does not end with NEXT(); (it may not go on to the next"
                             " instruction): only a macro op's last part may end otherwise");
        mg_rewrite rw = {
            .p = &p, .st = st, .out = out, .bol = 1, .text = p.body->text, .len = len};
        snprintf(rw.label, sizeof rw.label, "macro_%s_part%u_", m->name, k + 2);
        put_body(&rw);
        fputs("    }\n", out);
        if (rw.goto_used)
            fprintf(out, "%s:;\n", rw.label);
        imm += m->part[k].nimms;
    }
    fputs("END_OPCODE\n", out);
}
