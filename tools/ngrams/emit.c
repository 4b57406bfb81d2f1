/*
 * emit.c - the .macros file of a set of proposals (and of the profile's
 * own macro ops).
 */
#include "emit.h"

#include "out_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The stored macro op `op` as a .macros entry: its parts' mnemonics, their
 * register operands numbered by first use. */
static int macro_of_def(const an_profile *p, uint16_t op, fu_macro *m)
{
    const an_opdef *d = p->opdefs[op];
    memset(m, 0, sizeof *m);
    m->predicted = -1;
    if (strlen(p->opnames[op]) >= sizeof m->name || d->nparts > FU_MAX_PARTS)
        return -1;
    strcpy(m->name, p->opnames[op]);
    int slot[AN_MAX_REGS];
    for (unsigned r = 0; r < AN_MAX_REGS; r++)
        slot[r] = -1;
    m->nparts = d->nparts;
    for (unsigned k = 0; k < d->nparts; k++) {
        fu_part *pt = &m->part[k];
        if (strlen(p->opnames[d->part[k]]) >= sizeof pt->op)
            return -1;
        strcpy(pt->op, p->opnames[d->part[k]]);
        for (unsigned j = 0; j < d->nregs[k]; j++) {
            unsigned r = d->reg[k][j];
            if (slot[r] < 0) {
                if (!fu_kind_ok(p->kinds[d->kind[r]]))
                    return -1;
                strcpy(m->kind[m->nregs], p->kinds[d->kind[r]]);
                slot[r] = (int)m->nregs++;
            }
            pt->reg[pt->nregs++] = (uint8_t)slot[r];
        }
        pt->nimms = d->nimms[k];
        m->nimms += d->nimms[k];
    }
    return 0;
}

/* Do a and b do the same work with the same operands? */
static int same_op(const fu_macro *a, const fu_macro *b)
{
    if (a->nparts != b->nparts || a->nregs != b->nregs)
        return 0;
    for (unsigned k = 0; k < a->nparts; k++) {
        const fu_part *x = &a->part[k], *y = &b->part[k];
        if (strcmp(x->op, y->op) != 0 || x->nregs != y->nregs || x->nimms != y->nimms ||
            memcmp(x->reg, y->reg, x->nregs) != 0)
            return 0;
    }
    return 1;
}

/* Add m, renamed NAME_2, NAME_3 ... if its name is taken by another op. */
static int add_unique(fu_set *s, fu_macro m, char *err, size_t cap)
{
    char base[FU_MAX_NAME];
    strcpy(base, m.name);
    for (unsigned k = 2; fu_set_find(s, m.name) >= 0; k++) {
        const fu_macro *had = &s->macros[fu_set_find(s, m.name)];
        if (same_op(had, &m))
            return 0;
        if (snprintf(m.name, sizeof m.name, "%.*s_%u", FU_MAX_NAME - 12, base, k) >=
            (int)sizeof m.name)
            return -1;
    }
    return fu_set_add(s, &m, err, cap);
}

int an_macro_set(const an_profile *p, const an_proposal *props, size_t n, double total,
                 fu_set *out, char *err, size_t cap)
{
    memset(out, 0, sizeof *out);
    for (size_t op = 0; op < p->nops; op++) {
        fu_macro m;
        if (!p->opdefs[op])
            continue;
        if (macro_of_def(p, (uint16_t)op, &m) != 0) {
            snprintf(err, cap, "the stored macro op %s cannot be written as a .macros entry",
                     p->opnames[op]);
            goto fail;
        }
        if (add_unique(out, m, err, cap) != 0)
            goto fail;
    }
    for (size_t k = 0; k < n; k++) {
        fu_macro m = props[k].shape.macro;
        m.predicted = total > 0 ? 100 * props[k].saving / total : 0;
        if (!props[k].shape.buildable) {
            snprintf(err, cap, "proposal %zu (%s) is beyond what a VM can build", k + 1, m.name);
            goto fail;
        }
        if (add_unique(out, m, err, cap) != 0)
            goto fail;
    }
    return 0;
fail:
    fu_set_free(out);
    return -1;
}

int an_write_macro_set(const char *path, const fu_set *s, const char *comment, char *err,
                       size_t cap)
{
    an_out_file o;
    if (an_out_open(&o, path, err, cap) != 0)
        return -1;
    if (fu_set_write(o.f, s, comment) != 0) {
        snprintf(err, cap, "%s: %s", path, strerror(errno ? errno : EIO));
        an_out_abort(&o);
        return -1;
    }
    return an_out_commit(&o, err, cap);
}
