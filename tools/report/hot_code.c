/*
 * hot_code.c - shares of functions and instructions, the ranking of the
 * executed functions, back-edges and loop heads, and the heat scale.
 */
#include "hot_code.h"

#include <stdlib.h>
#include <string.h>

#include "blocks.h"

/* Every instruction's count times its run's scale is its share of all
 * executed instructions: a run's instructions sum to 1 / (runs of its
 * benchmark with data x benchmarks with data). */
static int run_scales(const an_profile *p, double *scale)
{
    size_t *runs_of = calloc(p->nbenches + 1, sizeof *runs_of);
    if (!runs_of)
        return -1;
    size_t benches = 0;
    for (size_t r = 0; r < p->nruns; r++) {
        const an_run *run = &p->runs[r];
        double total = 0;
        for (size_t f = 0; f < run->nfuncs; f++)
            for (uint32_t i = 0; i < run->funcs[f].ninsns; i++)
                total += run->funcs[f].insns[i].count;
        scale[r] = total;
        size_t n = run->members > 1 ? run->members_counted : total > 0;
        if (n && runs_of[run->bench] == 0)
            benches++;
        runs_of[run->bench] += n;
    }
    /* A pool of runs (run_pool.h): its instructions' norms sum their
     * shares of their own runs. */
    for (size_t r = 0; r < p->nruns; r++)
        scale[r] = scale[r] <= 0 ? 0
                   : p->runs[r].members > 1
                       ? 1.0 / ((double)runs_of[p->runs[r].bench] * (double)benches)
                       : 1.0 / (scale[r] * (double)runs_of[p->runs[r].bench] * (double)benches);
    free(runs_of);
    return 0;
}

static void mark_loops(hc_func *h)
{
    const an_func *f = h->f;
    uint32_t to[64];
    for (uint32_t i = 0; i < f->ninsns; i++) {
        size_t n = hc_targets(f, i, to, sizeof to / sizeof to[0]);
        for (size_t t = 0; t < n && t < sizeof to / sizeof to[0]; t++) {
            if (to[t] > f->insns[i].off)
                continue;
            h->marks[i] |= HC_BACK_EDGE;
            h->marks[an_insn_at(f, to[t])] |= HC_LOOP_HEAD;
            h->nloops++;
        }
    }
}

static int fill_func(hc_func *h, const an_profile *p, uint32_t r, uint32_t fi, double scale)
{
    const an_func *f = &p->runs[r].funcs[fi];
    memset(h, 0, sizeof *h);
    h->run = r;
    h->func = fi;
    h->f = f;
    h->insn_share = calloc(f->ninsns + 1, sizeof *h->insn_share);
    h->marks = calloc(f->ninsns + 1, 1);
    if (!h->insn_share || !h->marks)
        return -1;
    for (uint32_t i = 0; i < f->ninsns; i++) {
        h->count += f->insns[i].count;
        h->insn_share[i] = (p->runs[r].members > 1 ? f->insns[i].norm : f->insns[i].count) * scale;
        h->share += h->insn_share[i];
        if (h->insn_share[i] > h->insn_share[h->hottest])
            h->hottest = i;
    }
    mark_loops(h);
    return 0;
}

static int by_share(const void *a, const void *b)
{
    const hc_func *x = a, *y = b;
    if (x->share != y->share)
        return x->share < y->share ? 1 : -1;
    if (x->run != y->run)
        return x->run < y->run ? -1 : 1;
    return (x->func > y->func) - (x->func < y->func);
}

int hc_build(const an_profile *p, hc_view *v)
{
    memset(v, 0, sizeof *v);
    double *scale = calloc(p->nruns + 1, sizeof *scale);
    if (!scale || run_scales(p, scale) != 0) {
        free(scale);
        return -1;
    }
    size_t executed = 0;
    for (size_t r = 0; r < p->nruns; r++) {
        v->nall += p->runs[r].nfuncs;
        for (size_t f = 0; f < p->runs[r].nfuncs && scale[r] > 0; f++)
            for (uint32_t i = 0; i < p->runs[r].funcs[f].ninsns; i++)
                if (p->runs[r].funcs[f].insns[i].count > 0) {
                    executed++;
                    break;
                }
    }
    v->funcs = calloc(executed + 1, sizeof *v->funcs);
    int rc = v->funcs ? 0 : -1;
    for (size_t r = 0; r < p->nruns && rc == 0; r++) {
        if (scale[r] > 0)
            *(p->runs[r].exact ? &v->any_exact : &v->any_sampled) = 1;
        for (size_t f = 0; f < p->runs[r].nfuncs && rc == 0 && scale[r] > 0; f++) {
            const an_func *fn = &p->runs[r].funcs[f];
            uint32_t i = 0;
            while (i < fn->ninsns && fn->insns[i].count <= 0)
                i++;
            if (i == fn->ninsns)
                continue;
            rc = fill_func(&v->funcs[v->nfuncs++], p, (uint32_t)r, (uint32_t)f, scale[r]);
        }
    }
    free(scale);
    if (rc != 0) {
        hc_free(v);
        return -1;
    }
    qsort(v->funcs, v->nfuncs, sizeof *v->funcs, by_share);
    for (size_t k = 0; k < v->nfuncs; k++)
        if (v->funcs[k].insn_share[v->funcs[k].hottest] > v->max_insn_share)
            v->max_insn_share = v->funcs[k].insn_share[v->funcs[k].hottest];
    return 0;
}

void hc_free(hc_view *v)
{
    for (size_t k = 0; k < v->nfuncs; k++) {
        hc_func *h = &v->funcs[k];
        if (h->text)
            for (uint32_t i = 0; i < h->f->ninsns; i++)
                free(h->text[i]);
        free(h->text);
        free(h->insn_share);
        free(h->marks);
    }
    free(v->funcs);
    memset(v, 0, sizeof *v);
}

size_t hc_targets(const an_func *f, uint32_t i, uint32_t *to, size_t cap)
{
    /* Edges are stored in instruction order (profile_read.c decodes
     * front to back), so the edges of i are found by bisection. */
    uint32_t lo = 0, hi = f->nedges;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (f->edges[mid].from < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t n = 0;
    for (uint32_t e = lo; e < f->nedges && f->edges[e].from == i; e++) {
        uint32_t t = f->edges[e].to;
        size_t k = 0;
        while (k < n && k < cap && to[k] != t)
            k++;
        if ((k < n && k < cap) || an_insn_at(f, t) < 0)
            continue; /* listed already (a jump table), or not an instruction */
        if (n < cap)
            to[n] = t;
        n++;
    }
    return n;
}

const char *hc_count_name(const hc_view *v)
{
    return v->any_exact ? (v->any_sampled ? "samples or executions" : "executions") : "samples";
}

int hc_heat(double share, double max)
{
    if (!(share > 0) || !(max > 0))
        return 0;
    int level = HC_LEVELS - 1;
    for (double floor = max / 2; share < floor && level > 1; floor /= 2)
        level--;
    return level;
}

double hc_heat_floor(int level, double max)
{
    if (level <= 1)
        return 0;
    double floor = max;
    for (int l = level; l < HC_LEVELS; l++)
        floor /= 2;
    return floor;
}
