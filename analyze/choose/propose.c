/*
 * propose.c - greedy selection of macro ops by marginal saving of the set,
 * each candidate evaluated with the optimal cover (cover.c) of the hot
 * blocks it occurs in.
 *
 * Savings of a set are not additive: an op chosen early can be made
 * useless by longer ones chosen later (they cover all its occurrences),
 * and an op that saves almost nothing alone can let a later one save
 * much.  So each op must remove a minimum share of dispatches when it
 * is chosen, after each choice an op the set no longer needs (without it
 * the set loses less than that minimum) is dropped for good and its
 * place refilled, and the savings reported are replayed in the order of
 * choice over the final set (an op that falls below the minimum there
 * leaves too, and the choice goes on).  A candidate that saves less than
 * the minimum is never picked, however the objective judges it, so k
 * ops are returned whenever k candidates save enough.
 *
 * What a candidate is judged by (an_objective): by default not the
 * dispatches it removes from the profiled programs alone, but the
 * geometric mean of that and of what it removes beside the one benchmark
 * it helps most.  An op that a single program needs ranks below one that
 * several programs share, which is what carries over to programs the
 * choice never saw (bench/closed_loop.sh measures it); among ops shared
 * alike, the larger saving wins.  Where no candidate is shared (one
 * benchmark), the saving decides.  The time objective judges the same
 * way the time each candidate is predicted to save (time_model.h), the
 * dispatches it removes weighed by how much of its benchmark's time a
 * dispatch there is.
 *
 * The cover of a block by the set plus a candidate only changes when an
 * op that occurs in that block joins or leaves the set, so each
 * candidate keeps its cover costs from the round before and recomputes
 * just those blocks: the same integers, far fewer covers.
 */
#include "propose.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "cover.h"
#include "shapes.h"

typedef struct hot_block {
    uint32_t at, n;    /* instructions in the arena */
    uint32_t run, func, block, bench;
    double w, tw;      /* a dispatch removed here: normalised dispatches, time */
} hot_block;

typedef struct index_list {
    uint32_t *v;
    size_t len, cap;
} index_list;

typedef struct state {
    const an_profile *p;
    hot_block *hot;
    size_t nhot;
    fu_insn *keys;     /* the hot blocks' instructions, as the cover matches them */
    uint32_t maxlen;
    an_gram **pool;
    an_shape *shapes;  /* per pool entry: its unified operands and pattern */
    size_t npool;
    index_list *occ; /* hot blocks each pool entry occurs in */
    uint32_t *cost;  /* current cover cost of each hot block */
    /* The set: pool entries in the order chosen, their ops (one more slot
     * for a candidate), and a copy without one of them. */
    size_t *chosen, nset;
    fu_pattern *set, *without;
    uint8_t *taken;  /* per pool entry: chosen, now or before */
    /* Changes of the set are numbered.  Per pool entry, aligned with occ:
     * the cover cost of each of its blocks by the set plus the entry, or
     * once chosen by the set without it, computed at change cached_at
     * (NOT_CACHED: never). */
    uint32_t version;
    uint32_t **cand_cost;
    uint32_t *cached_at;
    uint32_t *changed; /* per hot block: the last change of an op in it */
    double *loss;      /* per chosen entry: what the set loses without it */
    an_objective objective;
    double *per_bench; /* the last gain() per benchmark, in the objective's measure */
    double time_gain;  /* the last gain() in time */
    uint32_t *scratch;
    int32_t *choice;
} state;

#define NOT_CACHED UINT32_MAX

static int push(index_list *l, uint32_t v)
{
    if (l->len && l->v[l->len - 1] == v)
        return 0;
    if (BASE_GROW(l->v, l->cap, l->len + 1, 8) != 0)
        return -1;
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
                if (BASE_GROW(s->hot, cap, s->nhot + 1, 256) != 0 ||
                    BASE_GROW(s->keys, opcap, nops + bl->n, 0) != 0)
                    return -1;
                for (uint32_t i = 0; i < bl->n; i++)
                    an_insn_key(&run->funcs[f].insns[bl->first + i], &s->keys[nops + i]);
                s->hot[s->nhot++] = (hot_block){(uint32_t)nops, bl->n, (uint32_t)r, (uint32_t)f,
                                                b, run->bench, bl->weight, bl->tweight};
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

static int build_pool(state *s, an_grams *grams, size_t want, size_t *executed)
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
    *executed = s->npool;
    if (s->npool > want)
        s->npool = want;
    for (size_t i = 0; i < s->npool; i++)
        s->pool[i]->tag = (int32_t)i;
    if (!(s->occ = calloc(s->npool ? s->npool : 1, sizeof *s->occ)))
        return -1;
    for (uint32_t h = 0; h < s->nhot; h++) {
        const fu_insn *keys = s->keys + s->hot[h].at;
        uint16_t ops[AN_MAX_N];
        for (uint32_t i = 0; i < s->hot[h].n; i++)
            for (unsigned k = 2; k <= AN_MAX_N && i + k <= s->hot[h].n; k++) {
                for (unsigned e = 0; e < k; e++)
                    ops[e] = keys[i + e].op;
                const an_gram *g = an_grams_find(grams, ops, k);
                if (!g)
                    break; /* no longer n-gram starts with it either */
                if (g->tag >= 0 && push(&s->occ[g->tag], h) != 0)
                    return -1;
            }
    }
    return 0;
}

static fu_pattern macro_of(const state *s, size_t c)
{
    return s->shapes[c].pattern;
}

/* Saving of adding pool entry c to the set (s->set[s->nset] is scratch)
 * in dispatches, in time in s->time_gain, and per benchmark in
 * s->per_bench; leaves the cover costs with it in s->cand_cost[c]. */
static double gain(state *s, size_t c)
{
    s->set[s->nset] = macro_of(s, c);
    uint32_t *newcost = s->cand_cost[c], valid = s->cached_at[c];
    double g = 0, t = 0;
    memset(s->per_bench, 0, s->p->nbenches * sizeof *s->per_bench);
    for (size_t i = 0; i < s->occ[c].len; i++) {
        uint32_t b = s->occ[c].v[i];
        const hot_block *h = &s->hot[b];
        if (valid == NOT_CACHED || s->changed[b] > valid)
            newcost[i] = fu_cover(s->keys + h->at, h->n, s->set, s->nset + 1, s->scratch, NULL);
        double removed = (double)s->cost[b] - newcost[i];
        g += h->w * removed;
        t += h->tw * removed;
        s->per_bench[h->bench] += (s->objective == AN_OBJECTIVE_TIME ? h->tw : h->w) * removed;
    }
    s->cached_at[c] = s->version;
    s->time_gain = t;
    return g;
}

/* The last gain(), g in dispatches, in the objective's measure. */
static double measured(const state *s, double g)
{
    return s->objective == AN_OBJECTIVE_TIME ? s->time_gain : g;
}

/* The last gain() as the objective judges it (see the header). */
static double judged(const state *s, double g)
{
    g = measured(s, g);
    if (s->objective == AN_OBJECTIVE_TOTAL)
        return g;
    double most = 0;
    for (size_t b = 0; b < s->p->nbenches; b++)
        if (s->per_bench[b] > most)
            most = s->per_bench[b];
    return g > most ? sqrt(g * (g - most)) : 0;
}

/* Put pool entry c, whose gain g was just computed, into the set; its
 * cover costs become those without it. */
static void add(state *s, size_t c, double g)
{
    s->version++;
    uint32_t *cc = s->cand_cost[c];
    for (size_t i = 0; i < s->occ[c].len; i++) {
        uint32_t b = s->occ[c].v[i], without = s->cost[b];
        s->cost[b] = cc[i];
        cc[i] = without;
        s->changed[b] = s->version;
    }
    s->cached_at[c] = s->version;
    s->set[s->nset] = macro_of(s, c);
    s->chosen[s->nset++] = c;
    s->taken[c] = 1;
    s->loss[c] = g;
}

/* What the set loses without its j-th op (covers recomputed only for the
 * blocks where an op joined or left since). */
static double loss(state *s, size_t j)
{
    size_t c = s->chosen[j];
    const index_list *occ = &s->occ[c];
    uint32_t *without = s->cand_cost[c], valid = s->cached_at[c];
    int stale = 0;
    for (size_t i = 0; i < occ->len && !stale; i++)
        stale = s->changed[occ->v[i]] > valid;
    if (!stale)
        return s->loss[c];
    memcpy(s->without, s->set, j * sizeof *s->set);
    memcpy(s->without + j, s->set + j + 1, (s->nset - j - 1) * sizeof *s->set);
    double l = 0;
    for (size_t i = 0; i < occ->len; i++) {
        const hot_block *h = &s->hot[occ->v[i]];
        if (s->changed[occ->v[i]] > valid)
            without[i] = fu_cover(s->keys + h->at, h->n, s->without, s->nset - 1, s->scratch, NULL);
        l += h->w * ((double)without[i] - s->cost[occ->v[i]]);
    }
    s->loss[c] = l;
    s->cached_at[c] = s->version;
    return l;
}

/* Drop the j-th op from the set, its loss computed since the last change
 * (so its costs without it are current); it is never chosen again. */
static void drop(state *s, size_t j)
{
    size_t c = s->chosen[j];
    s->version++;
    for (size_t i = 0; i < s->occ[c].len; i++) {
        uint32_t b = s->occ[c].v[i];
        s->cost[b] = s->cand_cost[c][i];
        s->changed[b] = s->version;
    }
    memmove(s->set + j, s->set + j + 1, (s->nset - j - 1) * sizeof *s->set);
    memmove(s->chosen + j, s->chosen + j + 1, (s->nset - j - 1) * sizeof *s->chosen);
    s->nset--;
}

/* Drop, one at a time and least useful first, the ops without which the
 * set loses nothing or less than min. */
static void prune(state *s, double min)
{
    for (;;) {
        size_t worst = SIZE_MAX;
        double least = 0;
        for (size_t j = 0; j < s->nset; j++) {
            double l = loss(s, j);
            if ((l <= 0 || l < min) && (worst == SIZE_MAX || l < least)) {
                worst = j;
                least = l;
            }
        }
        if (worst == SIZE_MAX)
            return;
        drop(s, worst);
    }
}

static int alloc_state(state *s)
{
    size_t n = s->npool + 1;
    s->cand_cost = calloc(n, sizeof *s->cand_cost);
    s->cached_at = malloc(n * sizeof *s->cached_at);
    s->changed = calloc(s->nhot + 1, sizeof *s->changed);
    s->cost = malloc((s->nhot + 1) * sizeof *s->cost);
    s->chosen = malloc(n * sizeof *s->chosen);
    s->set = malloc(n * sizeof *s->set);
    s->without = malloc(n * sizeof *s->without);
    s->taken = calloc(n, 1);
    s->loss = malloc(n * sizeof *s->loss);
    s->scratch = malloc((s->maxlen + 1) * sizeof *s->scratch);
    s->choice = malloc((s->maxlen + 1) * sizeof *s->choice);
    s->per_bench = calloc(s->p->nbenches + 1, sizeof *s->per_bench);
    if (!s->cand_cost || !s->cached_at || !s->changed || !s->cost || !s->chosen || !s->set ||
        !s->without || !s->taken || !s->loss || !s->scratch || !s->choice || !s->per_bench)
        return -1;
    for (size_t c = 0; c < s->npool; c++) {
        s->cached_at[c] = NOT_CACHED;
        if (!(s->cand_cost[c] = malloc((s->occ[c].len + 1) * sizeof *s->cand_cost[c])))
            return -1;
    }
    for (size_t h = 0; h < s->nhot; h++)
        s->cost[h] = s->hot[h].n;
    return 0;
}

static void free_state(state *s)
{
    for (size_t c = 0; s->occ && c < s->npool; c++)
        free(s->occ[c].v);
    for (size_t c = 0; s->cand_cost && c < s->npool; c++)
        free(s->cand_cost[c]);
    free(s->occ);
    free(s->cand_cost);
    free(s->cached_at);
    free(s->changed);
    free(s->cost);
    free(s->chosen);
    free(s->set);
    free(s->without);
    free(s->taken);
    free(s->loss);
    free(s->scratch);
    free(s->choice);
    free(s->per_bench);
    free(s->pool);
    free(s->shapes);
    free(s->hot);
    free(s->keys);
}

/* Places a and b are one instruction of one benchmark's code. */
static int same_place(const an_profile *p, const an_where *a, const an_where *b)
{
    const an_run *ra = &p->runs[a->run], *rb = &p->runs[b->run];
    return a->off == b->off && ra->bench == rb->bench &&
           strcmp(ra->funcs[a->func].name, rb->funcs[b->func].name) == 0;
}

/* Where proposal k is used in the optimal cover by the ops chosen up to
 * and including it (so the places match its marginal saving). */
static void locate(state *s, size_t k, size_t pick, an_proposal *pr)
{
    const index_list *occ = &s->occ[pick];
    for (size_t o = 0; o < occ->len; o++) {
        const hot_block *hb = &s->hot[occ->v[o]];
        fu_cover(s->keys + hb->at, hb->n, s->set, k + 1, s->scratch, s->choice);
        const an_func *f = &s->p->runs[hb->run].funcs[hb->func];
        for (uint32_t i = 0; i < hb->n; i++) {
            if (s->choice[i] != (int32_t)k)
                continue;
            an_where w = {hb->run, hb->func,
                          f->insns[f->blocks[hb->block].first + i + 1 - s->set[k].n].off, hb->w};
            /* The same place in another run of the benchmark is one place. */
            for (int j = 0; j < AN_WHERE && pr->where[j].weight > 0; j++)
                if (same_place(s->p, &pr->where[j], &w)) {
                    w.weight += pr->where[j].weight;
                    memmove(&pr->where[j], &pr->where[j + 1], (AN_WHERE - 1 - j) * sizeof w);
                    pr->where[AN_WHERE - 1] = (an_where){0};
                    break;
                }
            for (int j = 0; j < AN_WHERE; j++)
                if (w.weight > pr->where[j].weight) {
                    an_where t = pr->where[j];
                    pr->where[j] = w;
                    w = t;
                }
        }
    }
}

/* All dispatches (the denominator of shares), and what the ops recorded
 * so far remove of them and of the time. */
typedef struct totals {
    double total, dispatches, time;
} totals;

/* out[k] = pool entry c, which removes g dispatches and t of the time
 * beside out[0..k) = s->set[0..k) (s->set[k] is c); newcost: its blocks'
 * cover costs with it. */
static void record(state *s, size_t k, size_t c, const uint32_t *newcost, double g, double t,
                   totals *sum, uint8_t *seen, an_proposal *out)
{
    an_proposal *pr = &out[k];
    memset(pr, 0, sizeof *pr);
    memset(seen, 0, s->p->nbenches + 1);
    for (size_t i = 0; i < s->occ[c].len; i++) {
        uint32_t h = s->occ[c].v[i];
        if (newcost[i] < s->cost[h] && !seen[s->hot[h].bench]) {
            seen[s->hot[h].bench] = 1;
            pr->benches++;
        }
    }
    sum->dispatches += g;
    sum->time += t;
    pr->gram = s->pool[c];
    pr->shape = s->shapes[c];
    pr->saving = g;
    pr->cumulative = sum->total > 0 ? sum->dispatches / sum->total : 0;
    pr->time_saving = t;
    pr->time_cumulative = sum->total > 0 ? sum->time / sum->total : 0;
    locate(s, k, c, pr);
}

/* The set in the order chosen, each op with its saving beside those
 * before it, recorded in out; an op that falls below min there (an op
 * chosen later took its occurrences, or it only paid beside an op since
 * dropped) leaves the set for good.  Afterwards s->cost holds the set's
 * covers and every cached cover is stale.  Returns the ops left. */
static size_t replay(state *s, double total, double min, uint8_t *seen, an_proposal *out)
{
    size_t k = 0;
    totals sum = {total, 0, 0};
    for (size_t h = 0; h < s->nhot; h++)
        s->cost[h] = s->hot[h].n;
    for (size_t j = 0; j < s->nset; j++) {
        size_t c = s->chosen[j];
        uint32_t *newcost = s->cand_cost[c];
        s->set[k] = macro_of(s, c);
        double g = 0, t = 0;
        for (size_t i = 0; i < s->occ[c].len; i++) {
            const hot_block *h = &s->hot[s->occ[c].v[i]];
            newcost[i] = fu_cover(s->keys + h->at, h->n, s->set, k + 1, s->scratch, NULL);
            double removed = (double)s->cost[s->occ[c].v[i]] - newcost[i];
            g += h->w * removed;
            t += h->tw * removed;
        }
        if (g <= 0 || g < min)
            continue;
        record(s, k, c, newcost, g, t, &sum, seen, out);
        s->chosen[k++] = c;
        for (size_t i = 0; i < s->occ[c].len; i++)
            s->cost[s->occ[c].v[i]] = newcost[i];
    }
    s->nset = k;
    s->version++;
    for (size_t h = 0; h < s->nhot; h++)
        s->changed[h] = s->version;
    return k;
}

/* The candidate that the objective judges best among those removing at
 * least min dispatches (and some) beside the set, the larger saving in
 * the objective's measure among equals; SIZE_MAX when none does.  A
 * candidate below min is never picked, however it is judged: it would end
 * the choice while others still save enough. */
static size_t best_candidate(state *s, double min)
{
    double best = 0, best_judged = 0;
    size_t pick = SIZE_MAX;
    for (size_t c = 0; c < s->npool; c++) {
        if (s->taken[c])
            continue;
        double g = gain(s, c);
        if (g <= 0 || g < min)
            continue;
        double j = judged(s, g), m = measured(s, g);
        if (pick == SIZE_MAX || j > best_judged * (1 + 1e-12) + 1e-15 ||
            (j >= best_judged * (1 - 1e-12) && m > best * (1 + 1e-12) + 1e-15)) {
            best = m;
            best_judged = j;
            pick = c;
        }
    }
    return pick;
}

static const char *const objective_names[] = {
    [AN_OBJECTIVE_SHARED] = "shared", [AN_OBJECTIVE_TOTAL] = "total", [AN_OBJECTIVE_TIME] = "time"};

const char *an_objective_name(an_objective o)
{
    return objective_names[o];
}

int an_objective_parse(const char *name, an_objective *o)
{
    for (size_t i = 0; i < sizeof objective_names / sizeof *objective_names; i++)
        if (strcmp(name, objective_names[i]) == 0) {
            *o = (an_objective)i;
            return 0;
        }
    return -1;
}

int an_propose(const an_profile *p, an_grams *grams, an_choice *ch, an_proposal *out)
{
    state s = {.p = p, .objective = ch->objective};
    int chosen = -1;
    uint8_t *seen = calloc(p->nbenches + 1, 1);
    ch->candidates = ch->executed = 0;
    if (!seen || collect_hot(&s) != 0 || build_pool(&s, grams, ch->pool, &ch->executed) != 0 ||
        !(s.shapes = calloc(s.npool + 1, sizeof *s.shapes)) ||
        an_shapes_collect(p, grams, s.pool, s.npool, s.shapes) != 0 || alloc_state(&s) != 0)
        goto done;
    for (size_t c = 0; c < s.npool; c++)
        s.taken[c] = !s.shapes[c].buildable; /* the VM could not have it */
    ch->candidates = s.npool;
    double total = an_total_weight(p), min = ch->min_saving * total;
    /* Choose until k ops are in the set or no candidate saves enough;
     * the replay may then drop ops that no longer do, and their places
     * are refilled. */
    for (;;) {
        size_t pick;
        while (s.nset < ch->k && (pick = best_candidate(&s, min)) != SIZE_MAX) {
            double g = gain(&s, pick); /* the pick's covers (cached), and s.set[s.nset] */
            add(&s, pick, g);
            prune(&s, min);
        }
        size_t before = s.nset;
        if (replay(&s, total, min, seen, out) == before || s.nset >= ch->k)
            break;
    }
    chosen = (int)s.nset;
done:
    free_state(&s);
    free(seen);
    return chosen;
}
