/*
 * run_pool.c - fold each run read into the pool of runs it cannot be told
 * apart from, identical functions kept once (see run_pool.h).
 */
#include "run_pool.h"

#include <stdlib.h>
#include <string.h>

#include "blocks.h"

static uint64_t mix(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        h ^= (v >> (8 * i)) & 0xff;
        h *= 0x100000001b3ull;
    }
    return h;
}

/* A hash of what the analysis reads of f but its counts. */
static uint64_t func_hash(const an_func *f)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *s = f->name; s && *s; s++)
        h = mix(h, (unsigned char)*s);
    h = mix(h, ((uint64_t)f->ninsns << 32) | f->nedges);
    for (uint32_t i = 0; i < f->ninsns; i++) {
        const an_insn *x = &f->insns[i];
        h = mix(h, ((uint64_t)x->off << 32) | x->len);
        h = mix(h, ((uint64_t)x->op << 48) | ((uint64_t)x->mop << 32) | ((uint64_t)x->flags << 24) |
                       ((uint64_t)x->nregs << 16) | x->uses);
        h = mix(h, (uint64_t)x->imm);
    }
    return h;
}

static int same_insn(const an_insn *a, const an_insn *b)
{
    return a->off == b->off && a->len == b->len && a->block == b->block && a->op == b->op &&
           a->mop == b->mop && a->flags == b->flags && a->nregs == b->nregs &&
           memcmp(a->reg, b->reg, a->nregs) == 0 && a->opaque == b->opaque &&
           a->implicit == b->implicit && a->uses == b->uses && a->defs == b->defs &&
           a->nimms == b->nimms && a->imm_kind == b->imm_kind && a->leader == b->leader &&
           a->imm == b->imm;
}

/* Whether f and g are the same code under the same name, as decoded. */
static int same_func(const an_func *f, const an_func *g)
{
    if (f->hash != g->hash || f->ninsns != g->ninsns || f->nblocks != g->nblocks ||
        f->nedges != g->nedges || f->nregs != g->nregs || f->nimplicit != g->nimplicit ||
        (f->name == NULL) != (g->name == NULL) || (f->name && strcmp(f->name, g->name) != 0))
        return 0;
    for (uint32_t i = 0; i < f->ninsns; i++)
        if (!same_insn(&f->insns[i], &g->insns[i]))
            return 0;
    for (uint32_t e = 0; e < f->nedges; e++)
        if (f->edges[e].from != g->edges[e].from || f->edges[e].to != g->edges[e].to)
            return 0;
    for (uint32_t r = 0; r < f->nregs; r++)
        if (f->regs[r].number != g->regs[r].number || f->regs[r].kind != g->regs[r].kind)
            return 0;
    for (uint32_t k = 0; k < f->nimplicit; k++) {
        const an_implicit *a = &f->implicit[k], *b = &g->implicit[k];
        if (a->insn != b->insn || a->first != b->first || a->count != b->count ||
            a->kind != b->kind || a->access != b->access)
            return 0;
    }
    return 1;
}

/* Put function fi of pool into its index (which has room); grows it when
 * half full.  0 or -1. */
static int index_add(an_run *pool, uint32_t fi)
{
    if (2 * (pool->nfuncs + 1) > pool->index_cap) {
        size_t cap = pool->index_cap ? 2 * pool->index_cap : 64;
        while (cap < 2 * (pool->nfuncs + 1))
            cap *= 2;
        uint32_t *t = calloc(cap, sizeof *t);
        if (!t)
            return -1;
        free(pool->index);
        pool->index = t;
        pool->index_cap = cap;
        for (uint32_t k = 0; k < fi; k++) {
            size_t s = pool->funcs[k].hash & (cap - 1);
            while (t[s])
                s = (s + 1) & (cap - 1);
            t[s] = k + 1;
        }
    }
    size_t s = pool->funcs[fi].hash & (pool->index_cap - 1);
    while (pool->index[s])
        s = (s + 1) & (pool->index_cap - 1);
    pool->index[s] = fi + 1;
    return 0;
}

static an_func *index_find(const an_run *pool, const an_func *f)
{
    if (!pool->index_cap)
        return NULL;
    size_t s = f->hash & (pool->index_cap - 1);
    for (; pool->index[s]; s = (s + 1) & (pool->index_cap - 1))
        if (same_func(&pool->funcs[pool->index[s] - 1], f))
            return &pool->funcs[pool->index[s] - 1];
    return NULL;
}

static int same_str(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Whether runs a and b are analysed alike, but for their code and counts. */
static int same_kind(const an_run *a, const an_run *b)
{
    if (a->bench != b->bench || a->exact != b->exact || !same_str(a->label, b->label) ||
        !same_str(a->isa, b->isa) || !same_str(a->benchmark, b->benchmark) ||
        a->dispatch_cost != b->dispatch_cost)
        return 0;
    size_t n = a->nopcost > b->nopcost ? a->nopcost : b->nopcost;
    for (size_t op = 0; op < n; op++)
        if ((op < a->nopcost ? a->opcost[op] : 0) != (op < b->nopcost ? b->opcost[op] : 0))
            return 0;
    return 1;
}

static void free_func(an_func *f)
{
    free(f->name);
    free(f->insns);
    free(f->blocks);
    free(f->edges);
    free(f->regs);
    free(f->implicit);
}

/* Estimate run's frequencies and set its norms; *ran and *counted: it
 * has a total of executions, and counts or samples. */
static int estimate(an_profile *p, an_run *run, int *ran, int *counted)
{
    if (!run->exact && an_sampled_freq(run, p->nops) != 0)
        return -1;
    for (size_t f = 0; run->exact && f < run->nfuncs; f++)
        an_counted_freq(&run->funcs[f]);
    run->estimated = 1;
    double total = 0, counts = 0;
    for (size_t f = 0; f < run->nfuncs; f++)
        for (uint32_t b = 0; b < run->funcs[f].nblocks; b++)
            total += run->funcs[f].blocks[b].freq * run->funcs[f].blocks[b].n;
    for (size_t f = 0; f < run->nfuncs; f++)
        for (uint32_t i = 0; i < run->funcs[f].ninsns; i++)
            counts += run->funcs[f].insns[i].count;
    double tscale = total > 0 ? 1.0 / total : 0, cscale = counts > 0 ? 1.0 / counts : 0;
    for (size_t f = 0; f < run->nfuncs; f++) {
        an_func *fn = &run->funcs[f];
        for (uint32_t b = 0; b < fn->nblocks; b++)
            fn->blocks[b].norm = fn->blocks[b].freq * tscale;
        for (uint32_t i = 0; i < fn->ninsns; i++)
            fn->insns[i].norm = fn->insns[i].count * cscale;
    }
    run->total = total;
    *ran = total > 0;
    *counted = counts > 0;
    return 0;
}

static int add_member(an_profile *p, const an_run *run)
{
    an_member *m = realloc(p->members, (p->nmembers + 1) * sizeof *m);
    if (!m)
        return -1;
    p->members = m;
    an_member *k = &m[p->nmembers];
    *k = (an_member){strdup(run->db), run->id, run->label ? strdup(run->label) : NULL,
                     run->benchmark ? strdup(run->benchmark) : NULL, run->exact, run->unanalysed};
    if (!k->db || (run->label && !k->label) || (run->benchmark && !k->benchmark)) {
        free(k->db);
        free(k->label);
        free(k->benchmark);
        return -1;
    }
    p->nmembers++;
    return 0;
}

/* Add f's counts and frequencies to g, the same code. */
static void add_counts(an_func *g, const an_func *f)
{
    for (uint32_t b = 0; b < g->nblocks; b++) {
        g->blocks[b].freq += f->blocks[b].freq;
        g->blocks[b].norm += f->blocks[b].norm;
    }
    for (uint32_t i = 0; i < g->ninsns; i++) {
        g->insns[i].count += f->insns[i].count;
        g->insns[i].norm += f->insns[i].norm;
    }
}

/* Fold run's functions into pool; run keeps none of them.  0 or -1. */
static int fold(an_run *pool, an_run *run)
{
    int rc = 0;
    for (size_t fi = 0; fi < run->nfuncs; fi++) {
        an_func *f = &run->funcs[fi];
        an_func *g = rc == 0 ? index_find(pool, f) : NULL;
        if (g || rc != 0) {
            if (g)
                add_counts(g, f);
            free_func(f);
            continue;
        }
        an_func *grown = realloc(pool->funcs, (pool->nfuncs + 1) * sizeof *grown);
        if (!grown) {
            free_func(f);
            rc = -1;
            continue;
        }
        pool->funcs = grown;
        pool->funcs[pool->nfuncs] = *f;
        if (index_add(pool, (uint32_t)pool->nfuncs) != 0)
            rc = -1;
        pool->nfuncs++;
    }
    run->nfuncs = 0;
    return rc;
}

int an_pool_run(an_profile *p, an_run *run)
{
    int ran = 0, counted = 0;
    if (estimate(p, run, &ran, &counted) != 0 || add_member(p, run) != 0) {
        an_run_free(run);
        return -1;
    }
    const char *db = p->members[p->nmembers - 1].db;
    for (size_t f = 0; f < run->nfuncs; f++) {
        run->funcs[f].db = db;
        run->funcs[f].run_id = run->id;
        run->funcs[f].hash = func_hash(&run->funcs[f]);
    }
    an_run *pool = NULL;
    for (size_t r = 0; r < p->nruns && !pool; r++)
        if (same_kind(&p->runs[r], run))
            pool = &p->runs[r];
    if (!pool) {
        run->members = 1;
        run->members_ran = (size_t)ran;
        run->members_counted = (size_t)counted;
        for (uint32_t f = 0; f < run->nfuncs; f++)
            if (index_add(run, f) != 0) {
                an_run_free(run);
                return -1;
            }
        p->nruns++;
        return 0;
    }
    int rc = fold(pool, run);
    pool->members++;
    pool->members_ran += (size_t)ran;
    pool->members_counted += (size_t)counted;
    pool->total += run->total;
    pool->unanalysed += run->unanalysed;
    an_run_free(run);
    return rc;
}
