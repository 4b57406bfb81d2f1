/*
 * pipeline.c - the proposal pipeline shared by pulley-ngrams and
 * pulley-report: normalise, liveness, mining, the greedy choice (propose.c)
 * and the operand facts (facts.c) of the chosen ops and the hottest
 * n-grams, collected in one pass over the executed blocks.
 */
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>

#include "blocks.h"
#include "liveness.h"

/* Liveness is only read for executed blocks (operand facts). */
static int liveness_of_ran(an_profile *p)
{
    for (size_t r = 0; r < p->nruns; r++)
        for (size_t f = 0; f < p->runs[r].nfuncs; f++) {
            an_func *fn = &p->runs[r].funcs[f];
            int ran = 0;
            for (uint32_t b = 0; b < fn->nblocks && !ran; b++)
                ran = fn->blocks[b].weight > 0;
            if (ran && an_liveness(fn) != 0)
                return -1;
        }
    return 0;
}

static int by_weight(const void *a, const void *b)
{
    const an_gram *x = *(an_gram *const *)a, *y = *(an_gram *const *)b;
    if (x->weight != y->weight)
        return x->weight < y->weight ? 1 : -1;
    if (x->n != y->n)
        return x->n - y->n;
    return memcmp(x->ops, y->ops, x->n * sizeof x->ops[0]);
}

/* The m hottest n-grams into r->top, r->ntop. */
static int hottest(an_proposals *r, size_t m)
{
    an_grams *t = &r->grams;
    if (m == 0)
        return 0;
    if (!(r->top = malloc((t->len + 1) * sizeof *r->top)))
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].n && t->slots[i].weight > 0)
            r->top[k++] = &t->slots[i];
    qsort(r->top, k, sizeof *r->top, by_weight);
    r->ntop = k < m ? k : m;
    return 0;
}

/* Facts of the proposals and of the hottest n-grams, in one pass; a gram
 * both proposed and listed is collected once and copied after. */
static int collect_facts(an_profile *p, an_proposals *r)
{
    an_gram **want = malloc((r->n + r->ntop + 1) * sizeof *want);
    size_t *slot = malloc((r->ntop + 1) * sizeof *slot);
    an_facts *all = calloc(r->n + r->ntop + 1, sizeof *all);
    r->top_facts = malloc((r->ntop + 1) * sizeof *r->top_facts);
    r->facts = malloc((r->n + 1) * sizeof *r->facts);
    int rc = -1;
    if (!want || !slot || !all || !r->top_facts || !r->facts)
        goto out;
    for (size_t k = 0; k < r->n; k++)
        want[k] = (an_gram *)r->props[k].gram;
    size_t nwant = r->n;
    for (size_t i = 0; i < r->ntop; i++) {
        size_t k = 0;
        while (k < r->n && want[k] != r->top[i])
            k++;
        if (k == r->n)
            want[k = nwant++] = r->top[i];
        slot[i] = k;
    }
    if (an_facts_collect(p, &r->grams, want, nwant, all) != 0)
        goto out;
    memcpy(r->facts, all, r->n * sizeof *all);
    for (size_t i = 0; i < r->ntop; i++)
        r->top_facts[i] = all[slot[i]];
    rc = 0;
out:
    free(want);
    free(slot);
    free(all);
    return rc;
}

int an_proposals_compute(an_profile *p, const an_proposals_opts *o, an_proposals *out)
{
    memset(out, 0, sizeof *out);
    if (an_normalise(p) != 0)
        return -1;
    out->total = an_total_weight(p);
    size_t adaptive_ops;
    double adaptive_share;
    if (liveness_of_ran(p) != 0 || an_mine(p, o->max_n, o->include_adaptive, &out->grams) != 0 ||
        an_adaptive_ran(p, &adaptive_ops, &adaptive_share) != 0)
        goto fail;
    if (o->mined)
        o->mined(o->arg, out->grams.len);
    if (!(out->props = calloc(o->top + 1, sizeof *out->props)))
        goto fail;
    out->choice = (an_choice){.k = o->top, .pool = o->pool ? o->pool : o->top * 4 > 64 ? o->top * 4 : 64,
                              .min_saving = o->min_saving, .objective = o->objective,
                              .include_adaptive = o->include_adaptive,
                              .adaptive_ops = adaptive_ops, .adaptive_share = adaptive_share};
    int n = an_propose(p, &out->grams, &out->choice, out->props);
    if (n < 0)
        goto fail;
    out->n = (size_t)n;
    if (hottest(out, o->ngrams) == 0 && collect_facts(p, out) == 0)
        return 0;
fail:
    an_proposals_free(out);
    return -1;
}

void an_proposals_free(an_proposals *r)
{
    an_grams_free(&r->grams);
    free(r->props);
    free(r->facts);
    free(r->top);
    free(r->top_facts);
    memset(r, 0, sizeof *r);
}
