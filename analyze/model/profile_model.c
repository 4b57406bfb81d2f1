/*
 * profile_model.c - the profile model's name tables (opcodes, register
 * kinds and benchmarks merged over runs) and freeing it.
 */
#include "profile_model.h"
#include "run_pool.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int intern(char ***names, size_t *n, const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*names)[i], name) == 0)
            return (int)i;
    char **grown = realloc(*names, (*n + 1) * sizeof *grown);
    if (!grown)
        return -1;
    *names = grown;
    if (!(grown[*n] = strdup(name)))
        return -1;
    return (int)(*n)++;
}

int an_profile_intern_op(an_profile *p, const char *name, unsigned flags)
{
    /* Room for one more first, so that the three arrays never disagree. */
    uint8_t *f = realloc(p->opflags, p->nops + 1);
    if (f)
        p->opflags = f;
    an_opdef **d = realloc(p->opdefs, (p->nops + 1) * sizeof *d);
    if (d)
        p->opdefs = d;
    uint16_t *w = realloc(p->opwide, (p->nops + 1) * sizeof *w);
    if (w)
        p->opwide = w;
    if (!f || !d || !w)
        return -1;
    size_t before = p->nops;
    int i = intern(&p->opnames, &p->nops, name);
    if (i >= AN_MAX_OPS) { /* opcode numbers above are the cover's "none" */
        free(p->opnames[--p->nops]);
        return -1;
    }
    if (i >= 0 && p->nops != before) {
        p->opflags[i] = (uint8_t)flags;
        p->opdefs[i] = NULL;
        p->opwide[i] = (uint16_t)i;
    }
    return i;
}

int an_profile_define_op(an_profile *p, uint16_t op, const an_opdef *def)
{
    if (op >= p->nops || p->opdefs[op])
        return 0;
    if (!(p->opdefs[op] = malloc(sizeof *def)))
        return -1;
    *p->opdefs[op] = *def;
    return 0;
}

int an_profile_intern_kind(an_profile *p, const char *name)
{
    for (size_t i = 0; i < p->nkinds; i++)
        if (strcmp(p->kinds[i], name) == 0)
            return (int)i;
    return p->nkinds < AN_MAX_KINDS ? intern(&p->kinds, &p->nkinds, name) : -1;
}

int an_profile_intern_bench(an_profile *p, const char *name)
{
    return intern(&p->benches, &p->nbenches, name ? name : "?");
}

size_t an_profile_nread(const an_profile *p)
{
    return p->nmembers ? p->nmembers : p->nruns;
}

an_member an_profile_member(const an_profile *p, size_t i)
{
    if (p->nmembers)
        return p->members[i];
    const an_run *run = &p->runs[i];
    return (an_member){run->db, run->id, run->label, run->benchmark, run->exact, run->unanalysed};
}

const char *an_func_db(const an_run *run, const an_func *f)
{
    return f->db ? f->db : run->db;
}

int64_t an_func_run(const an_run *run, const an_func *f)
{
    return f->db ? f->run_id : run->id;
}

size_t an_profile_ninsns(const an_profile *p)
{
    size_t n = 0;
    for (size_t r = 0; r < p->nruns; r++)
        for (size_t f = 0; f < p->runs[r].nfuncs; f++)
            n += p->runs[r].funcs[f].ninsns;
    return n;
}

int an_profile_skip(an_profile *p, const char *db, int64_t id, const char *why)
{
    an_skip *s = realloc(p->skipped, (p->nskipped + 1) * sizeof *s);
    if (!s)
        return -1;
    p->skipped = s;
    an_skip k = {strdup(db), id, strdup(why)};
    if (!k.db || !k.why) {
        free(k.db);
        free(k.why);
        return -1;
    }
    p->skipped[p->nskipped++] = k;
    return 0;
}

an_shares an_profile_shares(const an_profile *p)
{
    int sampled = 0, exact = 0;
    for (size_t r = 0; r < p->nruns; r++)
        *(p->runs[r].exact ? &exact : &sampled) = 1;
    return sampled && exact ? AN_SHARES_MIXED
           : sampled        ? AN_SHARES_SAMPLED
           : exact          ? AN_SHARES_EXACT
                            : AN_SHARES_NONE;
}

const char *an_shares_word(an_shares s)
{
    switch (s) {
    case AN_SHARES_SAMPLED: return "sampled";
    case AN_SHARES_EXACT: return "exact";
    case AN_SHARES_MIXED: return "mixed";
    default: return "none";
    }
}

void an_shares_note(const an_profile *p, char *buf, size_t cap)
{
    const char *each = p->nbenches > 1 ? ", every benchmark weighing the same" : "";
    double n = an_profile_effective_samples(p);
    switch (an_profile_shares(p)) {
    case AN_SHARES_SAMPLED:
        snprintf(buf, cap, "Shares are of sampled time (%.0f effective samples: a 10%% share is known "
                           "to +-%.2f points, 95%%)%s.", n, 100 * an_share_halfwidth(0.1, n), each);
        break;
    case AN_SHARES_EXACT:
        snprintf(buf, cap, "Shares are of executed instructions (exact counts)%s.", each);
        break;
    case AN_SHARES_MIXED:
        snprintf(buf, cap, "Shares mix sampled time and exact executions, so they are neither%s.", each);
        break;
    default:
        snprintf(buf, cap, "No run holds data.");
    }
}

double an_profile_effective_samples(const an_profile *p)
{
    if (an_profile_shares(p) != AN_SHARES_SAMPLED || p->nbenches == 0)
        return 0;
    double *n = calloc(p->nbenches, sizeof *n), inv = 0;
    if (!n)
        return 0;
    for (size_t r = 0; r < p->nruns; r++)
        for (size_t f = 0; f < p->runs[r].nfuncs; f++)
            for (uint32_t i = 0; i < p->runs[r].funcs[f].ninsns; i++)
                n[p->runs[r].bench] += p->runs[r].funcs[f].insns[i].count;
    for (size_t b = 0; b < p->nbenches && inv >= 0; b++)
        inv = n[b] > 0 ? inv + 1 / n[b] : -1;
    free(n);
    return inv > 0 ? (double)p->nbenches * (double)p->nbenches / inv : 0;
}

double an_share_halfwidth(double p, double n)
{
    return n > 0 && p >= 0 && p <= 1 ? 1.96 * sqrt(p * (1 - p) / n) : 0;
}

void an_run_free(an_run *run)
{
    for (size_t f = 0; f < run->nfuncs; f++) {
        free(run->funcs[f].name);
        free(run->funcs[f].insns);
        free(run->funcs[f].blocks);
        free(run->funcs[f].edges);
        free(run->funcs[f].regs);
        free(run->funcs[f].implicit);
    }
    free(run->funcs);
    free(run->db);
    free(run->label);
    free(run->benchmark);
    free(run->isa);
    free(run->opcost);
    free(run->index);
    memset(run, 0, sizeof *run);
}

void an_profile_free(an_profile *p)
{
    for (size_t r = 0; r < p->nruns; r++)
        an_run_free(&p->runs[r]);
    free(p->runs);
    for (size_t i = 0; i < p->nmembers; i++) {
        free(p->members[i].db);
        free(p->members[i].label);
        free(p->members[i].benchmark);
    }
    free(p->members);
    an_pool_free_codes(p);
    for (size_t i = 0; i < p->nskipped; i++) {
        free(p->skipped[i].db);
        free(p->skipped[i].why);
    }
    free(p->skipped);
    for (size_t i = 0; i < p->nops; i++) {
        free(p->opnames[i]);
        free(p->opdefs ? p->opdefs[i] : NULL);
    }
    free(p->opnames);
    free(p->opflags);
    free(p->opdefs);
    free(p->opwide);
    for (size_t i = 0; i < p->nbenches; i++)
        free(p->benches[i]);
    free(p->benches);
    for (size_t i = 0; i < p->nkinds; i++)
        free(p->kinds[i]);
    free(p->kinds);
    memset(p, 0, sizeof *p);
}
