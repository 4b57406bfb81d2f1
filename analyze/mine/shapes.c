/*
 * shapes.c - unified operands of candidate macro ops from the register
 * layouts of their occurrences, and the macro op each one is.
 *
 * A layout is, per register operand of the n-gram (in order), the first
 * operand holding the same register.  Each candidate keeps the weights of
 * its AN_SIGS most common layouts; the unified operands are those equal
 * in every layout of the smallest most-common-first group that makes up
 * AN_UNIFY of the weight (their meet).
 */
#include "shapes.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"

#define AN_SIGS 16

typedef struct layouts {
    uint8_t npos;
    uint8_t sig[AN_SIGS][AN_SHAPE_POS];
    double w[AN_SIGS];
    unsigned n;
    double other, total; /* weight of layouts past the table, of all */
} layouts;

void an_insn_key(const an_insn *in, fu_insn *out)
{
    out->op = in->opaque ? AN_OPAQUE_OPCODE : in->mop;
    out->nregs = in->nregs < FU_MAX_REGS ? in->nregs : FU_MAX_REGS;
    memcpy(out->reg, in->reg, out->nregs);
}

/* The layout of in[0..n) into sig; returns the number of positions. */
static unsigned layout_of(const an_insn *in, unsigned n, uint8_t *sig)
{
    uint8_t key[AN_SHAPE_POS];
    unsigned np = 0;
    for (unsigned e = 0; e < n; e++)
        for (unsigned j = 0; j < in[e].nregs && np < AN_SHAPE_POS; j++) {
            key[np] = in[e].reg[j];
            unsigned q = 0;
            while (key[q] != key[np])
                q++;
            sig[np] = (uint8_t)q;
            np++;
        }
    return np;
}

static void add_layout(layouts *l, const uint8_t *sig, unsigned np, double w)
{
    l->npos = (uint8_t)np;
    l->total += w;
    for (unsigned i = 0; i < l->n; i++)
        if (memcmp(l->sig[i], sig, np) == 0) {
            l->w[i] += w;
            return;
        }
    if (l->n < AN_SIGS) {
        memcpy(l->sig[l->n], sig, np);
        l->w[l->n++] = w;
    } else {
        l->other += w;
    }
}

/* The meet of two layouts: operands equal in both. */
static void meet(uint8_t *a, const uint8_t *b, unsigned np)
{
    uint8_t m[AN_SHAPE_POS];
    for (unsigned p = 0; p < np; p++) {
        unsigned q = 0;
        while (!(a[q] == a[p] && b[q] == b[p]))
            q++;
        m[p] = (uint8_t)q;
    }
    memcpy(a, m, np);
}

/* Does layout s hold every equality of u? */
static int refines(const uint8_t *s, const uint8_t *u, unsigned np)
{
    for (unsigned p = 0; p < np; p++)
        if (s[u[p]] != s[p])
            return 0;
    return 1;
}

/* The unified layout of l into u, and the share of the weight it matches. */
static double unify(const layouts *l, uint8_t *u)
{
    for (unsigned p = 0; p < l->npos; p++)
        u[p] = (uint8_t)p;
    if (l->total <= 0)
        return 1;
    unsigned order[AN_SIGS] = {0};
    for (unsigned i = 0; i < l->n; i++) {
        unsigned k = i;
        while (k > 0 && l->w[order[k - 1]] < l->w[i]) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = i;
    }
    double acc = 0;
    unsigned used = 0;
    while (used < l->n && acc < AN_UNIFY * l->total)
        acc += l->w[order[used++]];
    if (acc < AN_UNIFY * l->total)
        return 1; /* the layouts past the table would be needed: no unification */
    memcpy(u, l->sig[order[0]], l->npos);
    for (unsigned i = 1; i < used; i++)
        meet(u, l->sig[order[i]], l->npos);
    double matched = 0;
    for (unsigned i = 0; i < l->n; i++)
        if (refines(l->sig[i], u, l->npos))
            matched += l->w[i];
    return matched / l->total;
}

/* Part list builder: macro registers numbered by first use. */
typedef struct builder {
    an_shape *s;
    const an_profile *p;
    uint8_t slot_of[AN_MAX_N * AN_MAX_REGS]; /* per position of the n-gram: its macro register + 1 */
    const uint8_t *u;
    unsigned npos;
} builder;

/* The macro register of n-gram operand `pos` (of register kind `kind`). */
static int slot(builder *b, unsigned pos, uint8_t kind)
{
    unsigned rep = pos < b->npos ? b->u[pos] : pos;
    fu_macro *m = &b->s->macro;
    if (!b->slot_of[rep]) {
        if (m->nregs == FU_MAX_REGS || !fu_kind_ok(b->p->kinds[kind]))
            return -1;
        strcpy(m->kind[m->nregs], b->p->kinds[kind]);
        b->slot_of[rep] = (uint8_t)++m->nregs;
    }
    return b->slot_of[rep] - 1;
}

/* Append a part: opcode `op`, its register operands the n-gram's
 * positions pos[0..nregs) of register kinds kind[]. */
static int add_part(builder *b, const an_profile *p, uint16_t op, const unsigned *pos,
                    const uint8_t *kind, unsigned nregs, unsigned nimms)
{
    fu_macro *m = &b->s->macro;
    if (m->nparts == FU_MAX_PARTS || strlen(p->opnames[op]) >= FU_MAX_NAME ||
        m->nimms + nimms > FU_MAX_IMMS)
        return -1;
    fu_part *pt = &m->part[m->nparts++];
    memset(pt, 0, sizeof *pt);
    strcpy(pt->op, p->opnames[op]);
    for (unsigned j = 0; j < nregs; j++) {
        int r = slot(b, pos[j], kind[j]);
        if (r < 0)
            return -1;
        pt->reg[pt->nregs++] = (uint8_t)r;
    }
    pt->nimms = (uint8_t)nimms;
    m->nimms += nimms;
    return 0;
}

/* Shape of the n-gram in[0..n) of function f (one occurrence: its ops,
 * operand kinds and counts) with the unified layout u (np positions). */
static void build(const an_profile *p, const an_func *f, const an_insn *in, unsigned n,
                  const uint8_t *u, unsigned np, double matched, an_shape *s)
{
    memset(s, 0, sizeof *s);
    s->matched = matched;
    s->macro.predicted = -1;
    builder b = {.s = s, .p = p, .u = u, .npos = np};
    int ok = 1;
    unsigned base = 0; /* the element's first position */
    for (unsigned e = 0; e < n && ok; e++) {
        const an_opdef *def = p->opdefs[in[e].op];
        uint8_t kind[AN_MAX_REGS];
        for (unsigned j = 0; j < in[e].nregs; j++)
            kind[j] = f->regs[in[e].reg[j]].kind;
        ok = !in[e].opaque; /* its operands are not known */
        if (!def && ok) {
            unsigned pos[AN_MAX_REGS];
            for (unsigned j = 0; j < in[e].nregs; j++)
                pos[j] = base + j;
            ok = add_part(&b, p, in[e].mop, pos, kind, in[e].nregs, in[e].nimms) == 0;
        }
        for (unsigned k = 0; def && k < def->nparts && ok; k++) {
            unsigned pos[AN_MAX_REGS];
            uint8_t pkind[AN_MAX_REGS];
            for (unsigned j = 0; j < def->nregs[k]; j++) {
                pos[j] = base + def->reg[k][j];
                pkind[j] = kind[def->reg[k][j]];
            }
            ok = add_part(&b, p, p->opwide[def->part[k]], pos, pkind, def->nregs[k],
                          def->nimms[k]) == 0;
        }
        base += in[e].nregs;
    }
    s->buildable = ok && s->macro.nparts >= 2;
    if (fu_default_name(&s->macro, s->macro.name, sizeof s->macro.name) != 0) {
        uint64_t h = BASE_FNV1A64_INIT; /* a long name: a hash of it */
        for (unsigned k = 0; k < s->macro.nparts; k++)
            h = base_fnv1a64_str(h, s->macro.part[k].op);
        snprintf(s->macro.name, sizeof s->macro.name, "macro_%016llx", (unsigned long long)h);
    }
    /* The pattern: the n-gram's ops, equal registers where u unifies. */
    fu_pattern *pt = &s->pattern;
    pt->n = (uint8_t)n;
    unsigned pos = 0;
    for (unsigned e = 0; e < n; e++) {
        pt->op[e] = in[e].mop;
        for (unsigned j = 0; j < in[e].nregs; j++, pos++)
            if (pos < np && u[pos] != pos && j < FU_MAX_REGS) {
                unsigned q = u[pos], qe = 0, qj = q;
                while (qj >= in[qe].nregs)
                    qj -= in[qe++].nregs;
                pt->eq[pt->neq][0] = (uint8_t)(qe * FU_MAX_REGS + qj);
                pt->eq[pt->neq][1] = (uint8_t)(e * FU_MAX_REGS + j);
                pt->neq++;
            }
    }
}

/* The walk's state: each candidate's layouts and one occurrence of it. */
typedef struct shapes_walk {
    an_gram **grams;
    layouts *l;
    const an_insn **example;
    const an_func **example_f; /* the function of each example */
} shapes_walk;

static int shapes_occurrence(void *ctx, int32_t gram, const an_func *f, uint32_t b, uint32_t at)
{
    shapes_walk *w = ctx;
    const an_insn *in = &f->insns[f->blocks[b].first + at];
    uint8_t sig[AN_SHAPE_POS];
    unsigned np = layout_of(in, w->grams[gram]->n, sig);
    add_layout(&w->l[gram], sig, np, f->blocks[b].weight);
    if (!w->example[gram]) {
        w->example[gram] = in;
        w->example_f[gram] = f;
    }
    return 0;
}

int an_shapes_collect(const an_profile *p, an_grams *table, an_gram **grams, size_t n,
                      an_shape *shapes)
{
    shapes_walk w = {grams, calloc(n + 1, sizeof *w.l), calloc(n + 1, sizeof *w.example),
                     calloc(n + 1, sizeof *w.example_f)};
    if (!w.l || !w.example || !w.example_f) {
        free(w.l);
        free(w.example);
        free(w.example_f);
        return -1;
    }
    an_occurrence_walk walk = {NULL, shapes_occurrence, &w};
    an_grams_occurrences(p, table, grams, n, &walk);
    for (size_t i = 0; i < n; i++) {
        uint8_t u[AN_SHAPE_POS];
        double matched = unify(&w.l[i], u);
        if (w.example[i])
            build(p, w.example_f[i], w.example[i], grams[i]->n, u, w.l[i].npos, matched,
                  &shapes[i]);
        else
            memset(&shapes[i], 0, sizeof shapes[i]); /* never ran: not buildable */
    }
    free(w.l);
    free(w.example);
    free(w.example_f);
    return 0;
}

int an_opcode_by_name(void *ctx, const char *mnemonic)
{
    const an_profile *p = ctx;
    for (size_t i = 0; i < p->nops; i++)
        if (strcmp(p->opnames[i], mnemonic) == 0)
            return (int)i;
    return -1;
}

void an_pattern_remap(const fu_pattern *pattern, const an_profile *from, const an_profile *to,
                      fu_pattern *out)
{
    *out = *pattern;
    for (unsigned k = 0; k < pattern->n; k++) {
        int op = an_opcode_by_name((void *)to, from->opnames[pattern->op[k]]);
        out->op[k] = op < 0 ? AN_NO_OPCODE : (uint16_t)op;
    }
}
