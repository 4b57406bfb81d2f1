/*
 * liveness.c - backward dataflow over basic blocks: live-out sets per
 * block, and live-after sets per instruction inside one block.
 */
#include "liveness.h"

#include <stdlib.h>
#include <string.h>

#include "blocks.h"
#include "regs.h"

/* The first of f's implicit windows that belongs to instruction i. */
static uint32_t first_window(const an_func *f, uint32_t i)
{
    uint32_t lo = 0, hi = f->nimplicit;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (f->implicit[mid].insn < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Add to s the registers of f that window w holds. */
static void add_window(const an_func *f, const an_implicit *w, an_regset *s)
{
    for (uint32_t r = 0; r < f->nregs; r++) {
        const an_reg *g = &f->regs[r];
        if (g->kind == w->kind && g->number >= w->first &&
            (w->count == AN_OPEN || g->number - w->first < w->count))
            an_regset_add(s, r);
    }
}

void an_insn_effect(const an_func *f, uint32_t i, an_regset *uses, an_regset *defs)
{
    const an_insn *in = &f->insns[i];
    memset(uses, 0, sizeof *uses);
    memset(defs, 0, sizeof *defs);
    if (in->opaque || (in->flags & (AN_CALL | AN_RETURN)))
        an_regset_fill(uses); /* arguments and results travel in registers */
    for (unsigned k = 0; k < in->nregs; k++) {
        if (in->uses >> k & 1)
            an_regset_add(uses, in->reg[k]);
        if (in->defs >> k & 1)
            an_regset_add(defs, in->reg[k]);
    }
    if (!in->implicit)
        return;
    for (uint32_t w = first_window(f, i); w < f->nimplicit && f->implicit[w].insn == i; w++) {
        const an_implicit *win = &f->implicit[w];
        if (win->access & AN_READS)
            add_window(f, win, uses);
        if ((win->access & AN_WRITES) && win->count != AN_OPEN)
            add_window(f, win, defs);
    }
}

int an_insn_writes(const an_func *f, uint32_t i, unsigned r)
{
    an_regset uses, defs;
    an_insn_effect(f, i, &uses, &defs);
    return an_regset_has(&defs, r);
}

static an_regset live_in(const an_func *f, uint32_t b, an_regset live)
{
    const an_block *bl = &f->blocks[b];
    for (uint32_t i = bl->n; i-- > 0;) {
        an_regset uses, defs;
        an_insn_effect(f, bl->first + i, &uses, &defs);
        an_regset_step_back(&live, &uses, &defs);
    }
    return live;
}

int an_liveness(an_func *f)
{
    if (f->nblocks == 0)
        return 0;
    an_regset *in = calloc(f->nblocks, sizeof *in);
    if (!in)
        return -1;
    for (uint32_t b = 0; b < f->nblocks; b++)
        memset(&f->blocks[b].live_out, 0, sizeof f->blocks[b].live_out);
    /* Edges sorted by source instruction come from decoding in order. */
    int changed = 1;
    while (changed) {
        changed = 0;
        uint32_t e = f->nedges;
        for (uint32_t b = f->nblocks; b-- > 0;) {
            an_block *bl = &f->blocks[b];
            const an_insn *last = &f->insns[bl->first + bl->n - 1];
            an_regset out = {{0}};
            if (!(last->flags & AN_TERM) && b + 1 < f->nblocks)
                an_regset_union(&out, &in[b + 1]);
            while (e > 0 && f->edges[e - 1].from >= bl->first) {
                e--;
                long t = an_insn_at(f, f->edges[e].to);
                if (t >= 0)
                    an_regset_union(&out, &in[f->insns[t].block]);
            }
            an_regset li = live_in(f, b, out);
            if (!an_regset_equal(&out, &bl->live_out) || !an_regset_equal(&li, &in[b])) {
                bl->live_out = out;
                in[b] = li;
                changed = 1;
            }
        }
    }
    free(in);
    return 0;
}

void an_block_live_after(const an_func *f, uint32_t b, an_regset *live)
{
    const an_block *bl = &f->blocks[b];
    an_regset l = bl->live_out;
    for (uint32_t i = bl->n; i-- > 0;) {
        live[i] = l;
        an_regset uses, defs;
        an_insn_effect(f, bl->first + i, &uses, &defs);
        an_regset_step_back(&l, &uses, &defs);
    }
}
