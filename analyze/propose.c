/*
 * propose.c - greedy selection of macro ops by marginal saving of the set,
 * each candidate evaluated with the optimal cover (cover.c) of the hot
 * blocks it occurs in.
 *
 * The cover of a block by the set plus a candidate only changes when an
 * op chosen since it was computed occurs in that block, so each
 * candidate keeps its cover costs from the round before and recomputes
 * just those blocks: the same integers, far fewer covers.
 */
#include "propose.h"

#include <stdlib.h>
#include <string.h>

#include "cover.h"

typedef struct hot_block {
    uint32_t at, n;    /* ops in the arena */
    uint32_t run, func, block, bench;
    double w;
} hot_block;

typedef struct index_list {
    uint32_t *v;
    size_t len, cap;
} index_list;

typedef struct state {
    const an_profile *p;
    hot_block *hot;
    size_t nhot;
    uint16_t *ops;
    uint32_t maxlen;
    an_gram **pool;
    size_t npool;
    index_list *occ; /* hot blocks each pool entry occurs in */
    uint32_t *cost;  /* current cover cost of each hot block */
    /* Per pool entry, aligned with occ: the cover cost of each of its
     * blocks by the set plus the entry, computed when the set held
     * cached_at ops (NOT_CACHED: never). */
    uint32_t **cand_cost;
    uint32_t *cached_at;
    uint32_t *changed; /* per hot block: set size when an op in it joined */
} state;

#define NOT_CACHED UINT32_MAX

static int push(index_list *l, uint32_t v)
{
    if (l->len && l->v[l->len - 1] == v)
        return 0;
    if (l->len == l->cap) {
        size_t n = l->cap ? 2 * l->cap : 8;
        uint32_t *g = realloc(l->v, n * sizeof *g);
        if (!g)
            return -1;
        l->v = g;
        l->cap = n;
    }
    l->v[l->len++] = v;
    return 0;
}

static int collect_hot(state *s)
{
    size_t nops = 0, cap = 0, opcap = 0;
    for (size_t r = 0; r < s->p->nruns; r++) {
        const an_run *run = &s->p->runs[r];
        for (size_t f = 0; f < run->nfuncs; f++)
            for (uint32_t b = 0; b < run->funcs[f].nblocks; b++) {
                const an_block *bl = &run->funcs[f].blocks[b];
                if (bl->weight <= 0 || bl->n < 2)
                    continue;
                if (s->nhot == cap) {
                    cap = cap ? 2 * cap : 256;
                    hot_block *g = realloc(s->hot, cap * sizeof *g);
                    if (!g)
                        return -1;
                    s->hot = g;
                }
                if (nops + bl->n > opcap) {
                    opcap = 2 * (nops + bl->n);
                    uint16_t *g = realloc(s->ops, opcap * sizeof *g);
                    if (!g)
                        return -1;
                    s->ops = g;
                }
                for (uint32_t i = 0; i < bl->n; i++)
                    s->ops[nops + i] = run->funcs[f].insns[bl->first + i].op;
                s->hot[s->nhot++] = (hot_block){(uint32_t)nops, bl->n, (uint32_t)r, (uint32_t)f,
                                                b, run->bench, bl->weight};
                nops += bl->n;
                if (bl->n > s->maxlen)
                    s->maxlen = bl->n;
            }
    }
    return 0;
}

static double rank(const an_gram *g)
{
    return g->weight * (g->n - 1);
}

static int by_rank(const void *a, const void *b)
{
    const an_gram *x = *(an_gram *const *)a, *y = *(an_gram *const *)b;
    double rx = rank(x), ry = rank(y);
    if (rx != ry)
        return rx < ry ? 1 : -1;
    if (x->n != y->n)
        return x->n - y->n;
    return memcmp(x->ops, y->ops, x->n * sizeof x->ops[0]);
}

static int build_pool(state *s, an_grams *grams, size_t want)
{
    size_t n = 0;
    for (size_t i = 0; i < grams->cap; i++)
        if (grams->slots[i].n && grams->slots[i].weight > 0)
            n++;
    if (!(s->pool = malloc((n ? n : 1) * sizeof *s->pool)))
        return -1;
    for (size_t i = 0; i < grams->cap; i++) {
        grams->slots[i].tag = -1;
        if (grams->slots[i].n && grams->slots[i].weight > 0)
            s->pool[s->npool++] = &grams->slots[i];
    }
    qsort(s->pool, s->npool, sizeof *s->pool, by_rank);
    if (s->npool > want)
        s->npool = want;
    for (size_t i = 0; i < s->npool; i++)
        s->pool[i]->tag = (int32_t)i;
    if (!(s->occ = calloc(s->npool ? s->npool : 1, sizeof *s->occ)))
        return -1;
    for (uint32_t h = 0; h < s->nhot; h++) {
        const uint16_t *ops = s->ops + s->hot[h].at;
        for (uint32_t i = 0; i < s->hot[h].n; i++)
            for (unsigned k = 2; k <= AN_MAX_N && i + k <= s->hot[h].n; k++) {
                const an_gram *g = an_grams_find(grams, ops + i, k);
                if (!g)
                    break; /* no longer n-gram starts with it either */
                if (g->tag >= 0 && push(&s->occ[g->tag], h) != 0)
                    return -1;
            }
    }
    return 0;
}

/* Saving of adding pool entry c to set[0..nset) (set[nset] is scratch);
 * leaves the cover costs with it in s->cand_cost[c]. */
static double gain(state *s, an_macro *set, size_t nset, size_t c, uint32_t *scratch)
{
    set[nset] = (an_macro){s->pool[c]->ops, s->pool[c]->n};
    uint32_t *newcost = s->cand_cost[c], valid = s->cached_at[c];
    double g = 0;
    for (size_t i = 0; i < s->occ[c].len; i++) {
        uint32_t b = s->occ[c].v[i];
        const hot_block *h = &s->hot[b];
        if (valid == NOT_CACHED || s->changed[b] > valid)
            newcost[i] = an_cover(s->ops + h->at, h->n, set, nset + 1, scratch, NULL);
        g += h->w * ((double)s->cost[b] - newcost[i]);
    }
    s->cached_at[c] = (uint32_t)nset;
    return g;
}

static int alloc_cache(state *s)
{
    s->cand_cost = calloc(s->npool + 1, sizeof *s->cand_cost);
    s->cached_at = malloc((s->npool + 1) * sizeof *s->cached_at);
    s->changed = calloc(s->nhot + 1, sizeof *s->changed);
    if (!s->cand_cost || !s->cached_at || !s->changed)
        return -1;
    for (size_t c = 0; c < s->npool; c++) {
        s->cached_at[c] = NOT_CACHED;
        if (!(s->cand_cost[c] = malloc((s->occ[c].len + 1) * sizeof *s->cand_cost[c])))
            return -1;
    }
    return 0;
}

/* Where proposal k is used in the optimal cover by the ops chosen up to
 * and including it (so the places match its marginal saving). */
static void locate(state *s, const an_macro *set, size_t k, size_t pick, an_proposal *pr,
                   uint32_t *scratch, int32_t *choice)
{
    const index_list *occ = &s->occ[pick];
    for (size_t o = 0; o < occ->len; o++) {
        const hot_block *hb = &s->hot[occ->v[o]];
        an_cover(s->ops + hb->at, hb->n, set, k + 1, scratch, choice);
        const an_func *f = &s->p->runs[hb->run].funcs[hb->func];
        for (uint32_t i = 0; i < hb->n; i++) {
            if (choice[i] != (int32_t)k)
                continue;
            an_where w = {hb->run, hb->func, f->insns[f->blocks[hb->block].first + i + 1 - set[k].n].off,
                          hb->w};
            for (int j = 0; j < AN_WHERE; j++)
                if (w.weight > pr->where[j].weight) {
                    an_where t = pr->where[j];
                    pr->where[j] = w;
                    w = t;
                }
        }
    }
}

int an_propose(const an_profile *p, an_grams *grams, size_t k, size_t pool, an_proposal *out)
{
    state s = {.p = p};
    int chosen = -1;
    an_macro *set = malloc((k + 1) * sizeof *set);
    uint32_t *scratch = NULL;
    int32_t *choice = NULL;
    uint8_t *taken = NULL, *seen = NULL;
    if (!set || collect_hot(&s) != 0 || build_pool(&s, grams, pool) != 0 || alloc_cache(&s) != 0)
        goto done;
    scratch = malloc((s.maxlen + 1) * sizeof *scratch);
    choice = malloc((s.maxlen + 1) * sizeof *choice);
    s.cost = malloc((s.nhot + 1) * sizeof *s.cost);
    taken = calloc(s.npool + 1, 1);
    seen = calloc(p->nbenches + 1, 1);
    if (!scratch || !choice || !s.cost || !taken || !seen)
        goto done;
    for (size_t h = 0; h < s.nhot; h++)
        s.cost[h] = s.hot[h].n;
    double total = an_total_weight(p), cumulative = 0;
    size_t nset = 0;
    while (nset < k) {
        double best = 0;
        size_t pick = 0;
        for (size_t c = 0; c < s.npool; c++) {
            if (taken[c])
                continue;
            double g = gain(&s, set, nset, c, scratch);
            if (g > best * (1 + 1e-12) + 1e-15) {
                best = g;
                pick = c;
            }
        }
        if (best <= 0)
            break;
        taken[pick] = 1;
        gain(&s, set, nset, pick, scratch); /* puts the pick back in set[nset] */
        const uint32_t *newcost = s.cand_cost[pick];
        an_proposal *pr = &out[nset];
        memset(pr, 0, sizeof *pr);
        memset(seen, 0, p->nbenches + 1);
        for (size_t i = 0; i < s.occ[pick].len; i++) {
            uint32_t h = s.occ[pick].v[i];
            if (newcost[i] < s.cost[h] && !seen[s.hot[h].bench]) {
                seen[s.hot[h].bench] = 1;
                pr->benches++;
            }
            s.cost[h] = newcost[i];
            s.changed[h] = (uint32_t)nset + 1;
        }
        cumulative += best;
        pr->gram = s.pool[pick];
        pr->saving = best;
        pr->cumulative = total > 0 ? cumulative / total : 0;
        locate(&s, set, nset, pick, pr, scratch, choice);
        nset++;
    }
    chosen = (int)nset;
done:
    for (size_t c = 0; s.occ && c < s.npool; c++)
        free(s.occ[c].v);
    for (size_t c = 0; s.cand_cost && c < s.npool; c++)
        free(s.cand_cost[c]);
    free(s.occ);
    free(s.cand_cost);
    free(s.cached_at);
    free(s.changed);
    free(s.pool);
    free(s.hot);
    free(s.ops);
    free(s.cost);
    free(set);
    free(scratch);
    free(choice);
    free(taken);
    free(seen);
    return chosen;
}
