/*
 * profile.c - the profile model's name tables (opcodes and benchmarks
 * merged over runs) and freeing it.
 */
#include "profile.h"

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
    if (!f || !d)
        return -1;
    size_t before = p->nops;
    int i = intern(&p->opnames, &p->nops, name);
    if (i >= 0 && p->nops != before) {
        p->opflags[i] = (uint8_t)flags;
        p->opdefs[i] = NULL;
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

int an_profile_intern_bench(an_profile *p, const char *name)
{
    return intern(&p->benches, &p->nbenches, name ? name : "?");
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

void an_run_free(an_run *run)
{
    for (size_t f = 0; f < run->nfuncs; f++) {
        free(run->funcs[f].name);
        free(run->funcs[f].insns);
        free(run->funcs[f].blocks);
        free(run->funcs[f].edges);
    }
    free(run->funcs);
    free(run->db);
    free(run->label);
    free(run->benchmark);
    memset(run, 0, sizeof *run);
}

void an_profile_free(an_profile *p)
{
    for (size_t r = 0; r < p->nruns; r++)
        an_run_free(&p->runs[r]);
    free(p->runs);
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
    for (size_t i = 0; i < p->nbenches; i++)
        free(p->benches[i]);
    free(p->benches);
    memset(p, 0, sizeof *p);
}
