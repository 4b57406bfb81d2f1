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

static int same_key(const an_code_key *a, const an_code_key *b);

/* Whether f and g are the same code under the same name, as decoded. */
static int same_func(const an_func *f, const an_func *g)
{
    /* Equal keys and names build equal functions (a copy, most often). */
    if (f->hash == g->hash && same_key(&f->key, &g->key) && f->name && g->name &&
        strcmp(f->name, g->name) == 0)
        return 1;
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

/* The pools' functions by an_code_key: open addressing, at most half full. */
typedef struct code_slot {
    an_code_key key;
    uint32_t pool, func; /* p->runs[pool].funcs[func] */
} code_slot;

struct an_code_cache {
    code_slot *slots; /* key.known 0: empty */
    size_t cap, len;
};

void an_code_key_set(an_code_key *k, const uint8_t *code, size_t size, uint64_t isa,
                     int has_checksum, int64_t checksum, int rows)
{
    memset(k, 0, sizeof *k);
    if ((rows && !has_checksum) || size > UINT32_MAX)
        return;
    uint64_t a = 0xcbf29ce484222325ull, b = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < size; i++) {
        a = (a ^ code[i]) * 0x100000001b3ull;
        b = (b ^ code[i]) * 0xff51afd7ed558ccdull;
        b ^= b >> 29;
    }
    *k = (an_code_key){{a, b}, isa, has_checksum ? checksum : 0, (uint32_t)size, 1, (uint8_t)(rows != 0)};
}

static int same_key(const an_code_key *a, const an_code_key *b)
{
    return a->known && b->known && a->code[0] == b->code[0] && a->code[1] == b->code[1] &&
           a->isa == b->isa && a->checksum == b->checksum && a->size == b->size && a->rows == b->rows;
}

static size_t key_slot(const an_code_key *k, size_t cap)
{
    return (size_t)(k->code[0] ^ k->isa ^ (uint64_t)k->checksum) & (cap - 1);
}

static const an_func *slot_func(const an_profile *p, const code_slot *s)
{
    return &p->runs[s->pool].funcs[s->func];
}

const an_func *an_pool_find_code(const an_profile *p, const an_code_key *k, const char *name)
{
    const struct an_code_cache *c = p->codes;
    if (!c || !k->known || !name)
        return NULL;
    for (size_t s = key_slot(k, c->cap); c->slots[s].key.known; s = (s + 1) & (c->cap - 1)) {
        const an_func *f = slot_func(p, &c->slots[s]);
        if (same_key(&c->slots[s].key, k) && f->name && strcmp(f->name, name) == 0)
            return f;
    }
    return NULL;
}

static void code_put(struct an_code_cache *c, const code_slot *e)
{
    size_t s = key_slot(&e->key, c->cap);
    while (c->slots[s].key.known)
        s = (s + 1) & (c->cap - 1);
    c->slots[s] = *e;
    c->len++;
}

/* Remember that function fi of pool r is built from key k (unless one
 * with that key and name is already).  0 or -1. */
static int code_add(an_profile *p, uint32_t r, uint32_t fi)
{
    const an_func *f = &p->runs[r].funcs[fi];
    if (!f->key.known || an_pool_find_code(p, &f->key, f->name))
        return 0;
    if (!p->codes && !(p->codes = calloc(1, sizeof *p->codes)))
        return -1;
    struct an_code_cache *c = p->codes;
    if (2 * (c->len + 1) > c->cap) {
        struct an_code_cache g = {calloc(c->cap ? 2 * c->cap : 256, sizeof *g.slots),
                                  c->cap ? 2 * c->cap : 256, 0};
        if (!g.slots)
            return -1;
        for (size_t s = 0; s < c->cap; s++)
            if (c->slots[s].key.known)
                code_put(&g, &c->slots[s]);
        free(c->slots);
        *c = g;
    }
    code_put(c, &(code_slot){f->key, r, fi});
    return 0;
}

void an_pool_free_codes(an_profile *p)
{
    if (p->codes)
        free(p->codes->slots);
    free(p->codes);
    p->codes = NULL;
}

/* A copy of n elements of size `size` at src (NULL for none); *failed set
 * when out of memory. */
static void *dup_array(const void *src, size_t n, size_t size, int *failed)
{
    if (!src || n == 0)
        return NULL;
    void *d = malloc(n * size);
    if (!d) {
        *failed = 1;
        return NULL;
    }
    return memcpy(d, src, n * size);
}

int an_func_copy_built(an_func *f, const an_func *src, uint64_t *opaque)
{
    int failed = 0;
    f->insns = dup_array(src->insns, src->ninsns, sizeof *src->insns, &failed);
    f->blocks = dup_array(src->blocks, src->nblocks, sizeof *src->blocks, &failed);
    f->edges = dup_array(src->edges, src->nedges, sizeof *src->edges, &failed);
    f->regs = dup_array(src->regs, src->nregs, sizeof *src->regs, &failed);
    f->implicit = dup_array(src->implicit, src->nimplicit, sizeof *src->implicit, &failed);
    if (failed)
        return -1;
    f->ninsns = src->ninsns;
    f->nblocks = src->nblocks;
    f->nedges = src->nedges;
    f->nregs = src->nregs;
    f->nimplicit = src->nimplicit;
    for (uint32_t i = 0; i < f->ninsns; i++) {
        f->insns[i].count = f->insns[i].norm = 0;
        *opaque += f->insns[i].opaque;
    }
    for (uint32_t b = 0; b < f->nblocks; b++)
        f->blocks[b].freq = f->blocks[b].norm = f->blocks[b].weight = f->blocks[b].tweight = 0;
    f->hash = src->hash;
    f->copied = 1;
    return 0;
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

/* Fold run's functions into pool r of p; run keeps none of them.  0 or -1. */
static int fold(an_profile *p, uint32_t r, an_run *run)
{
    an_run *pool = &p->runs[r];
    int rc = 0;
    for (size_t fi = 0; fi < run->nfuncs; fi++) {
        an_func *f = &run->funcs[fi];
        an_func *g = rc == 0 ? index_find(pool, f) : NULL;
        if (g || rc != 0) {
            if (g) {
                add_counts(g, f);
                /* g also stands for f's key (another checksum, say) */
                if (f->key.known && !an_pool_find_code(p, &f->key, f->name)) {
                    an_code_key k = g->key;
                    g->key = f->key;
                    rc = code_add(p, r, (uint32_t)(g - pool->funcs));
                    g->key = k;
                }
            }
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
        if (rc == 0)
            rc = code_add(p, r, (uint32_t)(pool->nfuncs - 1));
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
        if (!run->funcs[f].copied) /* a copy has its original's */
            run->funcs[f].hash = func_hash(&run->funcs[f]);
    }
    size_t r = 0;
    while (r < p->nruns && !same_kind(&p->runs[r], run))
        r++;
    if (r == p->nruns) {
        run->members = 1;
        run->members_ran = (size_t)ran;
        run->members_counted = (size_t)counted;
        p->nruns++;
        for (uint32_t f = 0; f < run->nfuncs; f++)
            if (index_add(run, f) != 0 || code_add(p, (uint32_t)r, f) != 0)
                return -1; /* the pool is the profile's, freed with it */
        return 0;
    }
    an_run *pool = &p->runs[r];
    int rc = fold(p, (uint32_t)r, run);
    pool->members++;
    pool->members_ran += (size_t)ran;
    pool->members_counted += (size_t)counted;
    pool->total += run->total;
    pool->unanalysed += run->unanalysed;
    an_run_free(run);
    return rc;
}
