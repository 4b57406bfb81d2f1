/*
 * fuse_set.c - a set of macro ops through the public API
 * (include/pulley/fusion.h): read, parsed, described and freed, as
 * fusion/macro_set.c reads it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuse_set.h"

_Static_assert(PULLEYFUSE_MAX_PARTS == FU_MAX_PARTS && PULLEYFUSE_MAX_REGS == FU_MAX_REGS &&
                   PULLEYFUSE_MAX_IMMS == FU_MAX_IMMS,
               "the public limits are fusion/'s");

static void say(char *err, size_t cap, const char *what)
{
    if (err && cap)
        snprintf(err, cap, "%s", what);
}

/* A set holding *read (which it takes), read from file `name`, or NULL. */
static pulleyfuse_set *wrap(fu_set *read, const char *name, char *err, size_t cap)
{
    pulleyfuse_set *s = calloc(1, sizeof *s);
    if (s)
        s->name = strdup(name);
    if (!s || !s->name) {
        free(s);
        fu_set_free(read);
        say(err, cap, "out of memory");
        return NULL;
    }
    s->set = *read;
    return s;
}

pulleyfuse_set *pulleyfuse_read(const char *path, char *err, size_t errcap)
{
    fu_set read;
    if (!path) {
        say(err, errcap, "no .macros file named");
        return NULL;
    }
    return fu_set_read(&read, path, err, errcap) == 0 ? wrap(&read, path, err, errcap) : NULL;
}

pulleyfuse_set *pulleyfuse_parse(const char *text, size_t len, const char *name, char *err,
                                 size_t errcap)
{
    fu_set read;
    if (!text && len) {
        say(err, errcap, "no text to parse");
        return NULL;
    }
    name = name ? name : "(text)";
    if (fu_set_parse(&read, text ? text : "", len, name, err, errcap) != 0)
        return NULL;
    return wrap(&read, name, err, errcap);
}

void pulleyfuse_free(pulleyfuse_set *set)
{
    if (!set)
        return;
    pp__fuse_unbind(set);
    fu_set_free(&set->set);
    free(set->name);
    free(set);
}

size_t pulleyfuse_count(const pulleyfuse_set *set)
{
    return set ? set->set.n : 0;
}

int pulleyfuse_macro_at(const pulleyfuse_set *set, size_t i, pulleyfuse_macro *out)
{
    if (!set || !out || i >= set->set.n)
        return -1;
    const fu_macro *m = &set->set.macros[i];
    memset(out, 0, sizeof *out);
    out->name = m->name;
    out->nparts = m->nparts;
    out->nregs = m->nregs;
    out->nimms = m->nimms;
    out->predicted = m->predicted;
    for (unsigned r = 0; r < m->nregs; r++)
        out->kinds[r] = m->kind[r];
    unsigned imm = 0;
    for (unsigned k = 0; k < m->nparts; k++) {
        const fu_part *pt = &m->part[k];
        pulleyfuse_part *o = &out->parts[k];
        o->mnemonic = pt->op;
        o->nregs = pt->nregs;
        for (unsigned j = 0; j < pt->nregs; j++)
            o->regs[j] = pt->reg[j];
        o->nimms = pt->nimms;
        for (unsigned j = 0; j < pt->nimms; j++)
            o->imms[j] = imm++;
    }
    return 0;
}

long pulleyfuse_find(const pulleyfuse_set *set, const char *name)
{
    return set && name ? fu_set_find(&set->set, name) : -1;
}
