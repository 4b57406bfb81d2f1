/*
 * facts.c - collecting and describing operand facts of chosen n-grams.
 */
#include "facts.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "liveness.h"
#include "regs.h"

static void add_value(an_facts *f, unsigned e, int64_t v, double w)
{
    double *vw = f->value_w[e];
    int64_t *val = f->value[e];
    for (int k = 0; k < AN_VALUES; k++)
        if (vw[k] > 0 && val[k] == v) {
            vw[k] += w;
            return;
        }
    double least = w;
    for (int k = 0; k < AN_VALUES; k++)
        if (vw[k] < least)
            least = vw[k];
    for (int k = 0; k < AN_VALUES; k++)
        if (vw[k] > 0)
            vw[k] -= least;
    w -= least;
    for (int k = 0; k < AN_VALUES && w > 0; k++)
        if (vw[k] <= 0) {
            val[k] = v;
            vw[k] = w;
            return;
        }
}

/* The occurrence of an n-gram of n instructions at instruction `at` of
 * fn, live_after[0 .. n) the registers live after each. */
static void add_occurrence(an_facts *f, const an_func *fn, uint32_t at, unsigned n,
                           const an_regset *live_after, double w)
{
    const an_insn *in = &fn->insns[at];
    f->w += w;
    for (unsigned k = 0; k + 1 < n; k++)
        for (unsigned d = 0; d < in[k].nregs && d < 4; d++) {
            if (!(in[k].defs >> d & 1))
                continue;
            unsigned r = in[k].reg[d];
            for (unsigned u = 0; u < in[k + 1].nregs && u < 4; u++) {
                if (!(in[k + 1].uses >> u & 1) || in[k + 1].reg[u] != r)
                    continue;
                int dead = !an_regset_has(&live_after[n - 1], r);
                for (unsigned j = k + 1; j < n && !dead; j++)
                    dead = an_insn_writes(fn, at + j, r);
                f->carry[k][d * 4 + u] += w;
                f->dead[k][d * 4 + u] += dead ? w : 0;
                break;
            }
        }
    for (unsigned e = 0; e < n; e++) {
        if (in[e].imm_kind != AN_IMM_SIGNED && in[e].imm_kind != AN_IMM_UNSIGNED)
            continue;
        int64_t v = in[e].imm;
        f->imm_w[e] += w;
        f->fits[e][AN_FIT_U8] += v >= 0 && v <= 255 ? w : 0;
        f->fits[e][AN_FIT_S8] += v >= -128 && v <= 127 ? w : 0;
        f->fits[e][AN_FIT_U16] += v >= 0 && v <= 65535 ? w : 0;
        f->fits[e][AN_FIT_S32] += v >= INT32_MIN && v <= INT32_MAX ? w : 0;
        add_value(f, e, v, w);
    }
}

/* The walk's state: the facts, and the liveness of the current block. */
typedef struct facts_walk {
    an_grams *table;
    an_gram **grams;
    an_facts *facts;
    an_regset *live;
    uint32_t cap;
} facts_walk;

static int facts_block(void *ctx, const an_func *f, uint32_t b)
{
    facts_walk *w = ctx;
    uint32_t n = f->blocks[b].n;
    if (n > w->cap) {
        free(w->live);
        w->cap = n;
        if (!(w->live = malloc(n * sizeof *w->live)))
            return -1;
    }
    an_block_live_after(f, b, w->live);
    return 0;
}

static int facts_occurrence(void *ctx, int32_t gram, const an_func *f, uint32_t b, uint32_t at)
{
    facts_walk *w = ctx;
    const an_block *bl = &f->blocks[b];
    add_occurrence(&w->facts[gram], f, bl->first + at, w->grams[gram]->n, w->live + at,
                   bl->weight);
    return 0;
}

int an_facts_collect(const an_profile *p, an_grams *table, an_gram **grams, size_t n,
                     an_facts *facts)
{
    memset(facts, 0, n * sizeof *facts);
    facts_walk w = {table, grams, facts, NULL, 0};
    an_occurrence_walk walk = {facts_block, facts_occurrence, &w};
    int rc = an_grams_occurrences(p, table, grams, n, &walk);
    free(w.live);
    return rc;
}

static const char *const fit_names[AN_FITS] = {"u8", "s8", "u16", "s32"};

const char *an_fit_name(int fit)
{
    return fit >= 0 && fit < AN_FITS ? fit_names[fit] : "";
}

void an_facts_list(const an_facts *f, unsigned n, an_fact_list *out)
{
    memset(out, 0, sizeof *out);
    for (unsigned k = 0; k + 1 < n && f->w > 0; k++) {
        int best = 0;
        for (int c = 1; c < 16; c++)
            if (f->carry[k][c] > f->carry[k][best])
                best = c;
        double cw = f->carry[k][best];
        if (cw < 0.5 * f->w)
            continue;
        out->carry[out->ncarries++] = (an_carry){
            (uint8_t)k, (uint8_t)(best / 4), (uint8_t)(k + 1), (uint8_t)(best % 4),
            cw / f->w, f->dead[k][best] / cw};
    }
    for (unsigned e = 0; e < n && f->w > 0; e++) {
        double iw = f->imm_w[e];
        if (iw < 0.5 * f->w)
            continue;
        an_imm_fact *im = &out->imm[out->nimms++];
        im->part = (uint8_t)e;
        im->fit = -1;
        for (int k = 0; k < AN_FITS && im->fit < 0; k++)
            if (f->fits[e][k] >= 0.99 * iw) {
                im->fit = (int8_t)k;
                im->share = f->fits[e][k] / iw;
            }
        for (int k = 0; k < AN_VALUES; k++)
            if (f->value_w[e][k] >= 0.5 * iw) {
                im->value[im->nvalues] = f->value[e][k];
                im->value_share[im->nvalues++] = f->value_w[e][k] / iw;
            }
    }
}

void an_facts_pattern(const an_facts *f, unsigned n, char *buf, size_t cap)
{
    an_fact_list l;
    an_facts_list(f, n, &l);
    size_t len = 0;
    buf[0] = '\0';
#define ADD(...)                                                                               \
    do {                                                                                       \
        if (len < cap)                                                                         \
            len += (size_t)snprintf(buf + len, cap - len, __VA_ARGS__);                        \
    } while (0)
    for (unsigned i = 0; i < l.ncarries; i++) {
        const an_carry *c = &l.carry[i];
        ADD("%s%u.%c>%u.%c", len ? ", " : "", c->from_part + 1, 'a' + c->from_operand,
            c->to_part + 1, 'a' + c->to_operand);
        if (c->dead >= 0.995)
            ADD(" dead");
        else if (c->dead > 0.005)
            ADD(" dead %.0f%%", 100 * c->dead);
        else
            ADD(" live");
    }
    for (unsigned i = 0; i < l.nimms; i++) {
        const an_imm_fact *im = &l.imm[i];
        if (im->fit >= 0)
            ADD("%s%u.imm:%s", len ? ", " : "", im->part + 1, fit_names[im->fit]);
        for (unsigned k = 0; k < im->nvalues; k++)
            ADD("%s%u.imm=%" PRId64, len ? ", " : "", im->part + 1, im->value[k]);
    }
#undef ADD
    if (len >= cap && cap > 0)
        buf[cap - 1] = '\0';
}
