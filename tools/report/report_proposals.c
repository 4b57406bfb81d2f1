/*
 * report_proposals.c - proposals for pulley-report through the analysis
 * library (proposals.c), and their places from the optimal cover of every
 * executed block.
 */
#include "report_proposals.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "cover.h"
#include "shapes.h"

/* The chosen ops as a cover set, and scratch space for one block. */
typedef struct coverer {
    fu_pattern *set;
    size_t nset;
    fu_insn *keys;
    uint32_t *scratch;
    int32_t *choice;
    uint32_t cap;
} coverer;

static int coverer_init(coverer *c, const rp_proposals *r)
{
    memset(c, 0, sizeof *c);
    const an_proposals *s = &r->set;
    if (!(c->set = malloc((s->n + 1) * sizeof *c->set)))
        return -1;
    for (size_t k = 0; k < s->n; k++)
        c->set[k] = s->props[k].shape.pattern;
    c->nset = s->n;
    return 0;
}

static void coverer_free(coverer *c)
{
    free(c->set);
    free(c->keys);
    free(c->scratch);
    free(c->choice);
}

/* Cover block bl of f: c->choice[i] is the op ending at position i, or -1. */
static int cover_block(coverer *c, const an_func *f, const an_block *bl)
{
    if (bl->n > c->cap) {
        free(c->keys);
        free(c->scratch);
        free(c->choice);
        c->keys = malloc(bl->n * sizeof *c->keys);
        c->scratch = malloc((bl->n + 1) * sizeof *c->scratch);
        c->choice = malloc((bl->n + 1) * sizeof *c->choice);
        c->cap = bl->n;
        if (!c->keys || !c->scratch || !c->choice) {
            c->cap = 0;
            return -1;
        }
    }
    for (uint32_t i = 0; i < bl->n; i++)
        an_insn_key(&f->insns[bl->first + i], &c->keys[i]);
    fu_cover(c->keys, bl->n, c->set, c->nset, c->scratch, c->choice);
    return 0;
}

static int add_place(rp_proposals *r, size_t *cap, const rp_place *pl, size_t *n)
{
    if (BASE_GROW(r->places, *cap, *n + 1, 64) != 0)
        return -1;
    r->places[(*n)++] = *pl;
    return 0;
}

static int by_prop_saving(const void *a, const void *b)
{
    const rp_place *x = a, *y = b;
    if (x->prop != y->prop)
        return x->prop < y->prop ? -1 : 1;
    if (x->saving != y->saving)
        return x->saving < y->saving ? 1 : -1;
    if (x->run != y->run)
        return x->run < y->run ? -1 : 1;
    if (x->func != y->func)
        return x->func < y->func ? -1 : 1;
    return (x->insn > y->insn) - (x->insn < y->insn);
}

static int find_places(rp_proposals *r, const an_profile *p)
{
    coverer c;
    size_t n = 0, cap = 0;
    int rc = coverer_init(&c, r);
    for (size_t ri = 0; ri < p->nruns && rc == 0; ri++)
        for (size_t fi = 0; fi < p->runs[ri].nfuncs && rc == 0; fi++) {
            const an_func *f = &p->runs[ri].funcs[fi];
            for (uint32_t b = 0; b < f->nblocks && rc == 0; b++) {
                const an_block *bl = &f->blocks[b];
                if (bl->weight <= 0 || bl->n < 2)
                    continue;
                rc = cover_block(&c, f, bl);
                for (uint32_t i = 0; i < bl->n && rc == 0; i++) {
                    int32_t k = c.choice[i];
                    if (k < 0)
                        continue;
                    unsigned len = c.set[k].n;
                    rp_place pl = {(uint32_t)k, (uint32_t)ri, (uint32_t)fi, bl->first + i + 1 - len,
                                   bl->weight * (len - 1)};
                    rc = add_place(r, &cap, &pl, &n);
                }
            }
        }
    coverer_free(&c);
    if (rc != 0 || !(r->first = calloc(r->set.n + 1, sizeof *r->first)))
        return -1;
    if (n)
        qsort(r->places, n, sizeof *r->places, by_prop_saving);
    for (size_t k = 0, i = 0; k <= r->set.n; k++) {
        while (i < n && r->places[i].prop < k)
            i++;
        r->first[k] = i;
    }
    return 0;
}

int rp_proposals_compute(an_profile *p, unsigned max_n, size_t top, size_t pool, rp_proposals *out)
{
    memset(out, 0, sizeof *out);
    an_proposals_opts o = {.max_n = max_n, .top = top, .pool = pool, .min_saving = AN_MIN_SAVING};
    if (an_proposals_compute(p, &o, &out->set) != 0)
        return -1;
    if (find_places(out, p) == 0)
        return 0;
    rp_proposals_free(out);
    return -1;
}

void rp_proposals_free(rp_proposals *r)
{
    an_proposals_free(&r->set);
    free(r->places);
    free(r->first);
    memset(r, 0, sizeof *r);
}

int rp_cover_marks(const rp_proposals *r, const an_func *f, int32_t *macro, uint8_t *start)
{
    for (uint32_t i = 0; i < f->ninsns; i++) {
        macro[i] = -1;
        start[i] = 0;
    }
    if (r->set.n == 0)
        return 0;
    coverer c;
    int rc = coverer_init(&c, r);
    for (uint32_t b = 0; b < f->nblocks && rc == 0; b++) {
        const an_block *bl = &f->blocks[b];
        if (bl->weight <= 0 || bl->n < 2 || (rc = cover_block(&c, f, bl)) != 0)
            continue;
        for (uint32_t i = 0; i < bl->n; i++) {
            int32_t k = c.choice[i];
            if (k < 0)
                continue;
            uint32_t from = bl->first + i + 1 - c.set[k].n;
            start[from] = 1;
            for (uint32_t j = from; j <= bl->first + i; j++)
                macro[j] = k;
        }
    }
    coverer_free(&c);
    return rc;
}
