/*
 * ngrams.c - the n-gram hash table and the miner that fills it.
 */
#include "ngrams.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"

static uint64_t hash(const uint16_t *ops, unsigned n)
{
    uint64_t h = BASE_FNV1A64_INIT ^ n;
    for (unsigned i = 0; i < n; i++)
        h = base_fnv1a64_step(h, ops[i]);
    return h ^ (h >> 29);
}

static an_gram *probe(const an_gram *slots, size_t cap, const uint16_t *ops, unsigned n)
{
    size_t i = (size_t)hash(ops, n) & (cap - 1);
    for (;;) {
        const an_gram *g = &slots[i];
        if (g->n == 0 || (g->n == n && memcmp(g->ops, ops, n * sizeof *ops) == 0))
            return (an_gram *)g;
        i = (i + 1) & (cap - 1);
    }
}

an_gram *an_grams_find(const an_grams *t, const uint16_t *ops, unsigned n)
{
    if (t->cap == 0)
        return NULL;
    an_gram *g = probe(t->slots, t->cap, ops, n);
    return g->n ? g : NULL;
}

static int grow(an_grams *t)
{
    size_t cap = t->cap ? 2 * t->cap : 1024;
    an_gram *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].n)
            *probe(slots, cap, t->slots[i].ops, t->slots[i].n) = t->slots[i];
    free(t->slots);
    t->slots = slots;
    t->cap = cap;
    return 0;
}

an_gram *an_grams_get(an_grams *t, const uint16_t *ops, unsigned n)
{
    if (n == 0 || n > AN_MAX_N)
        return NULL;
    if (2 * (t->len + 1) > t->cap && grow(t) != 0)
        return NULL;
    an_gram *g = probe(t->slots, t->cap, ops, n);
    if (g->n == 0) {
        memcpy(g->ops, ops, n * sizeof *ops);
        g->n = (uint8_t)n;
        g->tag = -1;
        t->len++;
    }
    return g;
}

void an_grams_free(an_grams *t)
{
    free(t->slots);
    memset(t, 0, sizeof *t);
}

int an_grams_occurrences(const an_profile *p, an_grams *table, an_gram **grams, size_t n,
                         const an_occurrence_walk *walk)
{
    for (size_t i = 0; i < table->cap; i++)
        table->slots[i].tag = -1;
    for (size_t i = 0; i < n; i++)
        grams[i]->tag = (int32_t)i;
    for (size_t r = 0; r < p->nruns; r++)
        for (size_t fi = 0; fi < p->runs[r].nfuncs; fi++) {
            const an_func *f = &p->runs[r].funcs[fi];
            for (uint32_t b = 0; b < f->nblocks; b++) {
                const an_block *bl = &f->blocks[b];
                if (bl->weight <= 0 || bl->n < 2)
                    continue;
                int rc = walk->block ? walk->block(walk->ctx, f, b) : 0;
                uint16_t ops[AN_MAX_N];
                for (uint32_t i = 0; rc == 0 && i < bl->n; i++)
                    for (unsigned k = 1; rc == 0 && k <= AN_MAX_N && i + k <= bl->n; k++) {
                        ops[k - 1] = f->insns[bl->first + i + k - 1].mop;
                        if (k < 2)
                            continue;
                        const an_gram *g = an_grams_find(table, ops, k);
                        if (!g)
                            break; /* no longer n-gram starts with it either */
                        if (g->tag >= 0)
                            rc = walk->occurrence(walk->ctx, g->tag, f, b, i);
                    }
                if (rc != 0)
                    return rc;
            }
        }
    return 0;
}

double an_total_weight(const an_profile *p)
{
    double w = 0;
    for (size_t r = 0; r < p->nruns; r++)
        for (size_t f = 0; f < p->runs[r].nfuncs; f++)
            for (uint32_t b = 0; b < p->runs[r].funcs[f].nblocks; b++)
                w += p->runs[r].funcs[f].blocks[b].weight * p->runs[r].funcs[f].blocks[b].n;
    return w;
}

static int mine_block(const an_func *f, const an_block *bl, const an_run *run, unsigned max_n,
                      int include_adaptive, an_grams *out)
{
    uint16_t ops[AN_MAX_N];
    for (uint32_t i = 0; i < bl->n; i++) {
        for (unsigned n = 1; n <= max_n && i + n <= bl->n; n++) {
            const an_insn *in = &f->insns[bl->first + i + n - 1];
            if ((in->flags & AN_ADAPTIVE) && !include_adaptive)
                break;
            ops[n - 1] = in->mop;
            if (n >= 2) {
                an_gram *g = an_grams_get(out, ops, n);
                if (!g)
                    return -1;
                g->statics++;
                g->weight += bl->weight;
                g->count += bl->freq;
                if (bl->freq > 0 && g->last_func != f->serial + 1) {
                    g->last_func = f->serial + 1;
                    g->funcs++;
                }
                if (bl->freq > 0 && g->last_bench != run->bench + 1) {
                    g->last_bench = run->bench + 1;
                    g->benches++;
                }
            }
            if (!an_may_continue(in->flags))
                break;
        }
    }
    return 0;
}

int an_mine(const an_profile *p, unsigned max_n, int include_adaptive, an_grams *out)
{
    if (max_n > AN_MAX_N)
        max_n = AN_MAX_N;
    for (size_t bench = 0; bench < p->nbenches; bench++)
        for (size_t r = 0; r < p->nruns; r++) {
            const an_run *run = &p->runs[r];
            if (run->bench != bench)
                continue;
            for (size_t f = 0; f < run->nfuncs; f++)
                for (uint32_t b = 0; b < run->funcs[f].nblocks; b++)
                    if (mine_block(&run->funcs[f], &run->funcs[f].blocks[b], run, max_n,
                                   include_adaptive, out) != 0)
                        return -1;
        }
    return 0;
}

int an_adaptive_ran(const an_profile *p, size_t *nops, double *share)
{
    uint8_t *ran = calloc(p->nops + 1, 1);
    if (!ran)
        return -1;
    double w = 0, total = an_total_weight(p);
    for (size_t r = 0; r < p->nruns; r++)
        for (size_t f = 0; f < p->runs[r].nfuncs; f++) {
            const an_func *fn = &p->runs[r].funcs[f];
            for (uint32_t i = 0; i < fn->ninsns; i++) {
                double bw = fn->blocks[fn->insns[i].block].weight;
                if ((fn->insns[i].flags & AN_ADAPTIVE) && bw > 0) {
                    w += bw;
                    ran[fn->insns[i].op] = 1;
                }
            }
        }
    *nops = 0;
    for (size_t op = 0; op < p->nops; op++)
        *nops += ran[op];
    *share = total > 0 ? w / total : 0;
    free(ran);
    return 0;
}

void an_gram_text(const an_profile *p, const an_gram *g, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < g->n && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? " + " : "", p->opnames[g->ops[i]]);
}
