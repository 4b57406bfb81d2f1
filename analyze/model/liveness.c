/*
 * liveness.c - backward dataflow over basic blocks: live-out sets per
 * block, and live-after sets per instruction inside one block.
 */
#include "liveness.h"

#include <stdlib.h>

#include "blocks.h"

static uint64_t reg_bit(const an_insn *in, unsigned i)
{
    return (uint64_t)1 << (in->reg[i] + ((in->regf >> i & 1) ? 32 : 0));
}

uint64_t an_insn_uses(const an_insn *in)
{
    if (in->flags & (AN_CALL | AN_RETURN))
        return ~(uint64_t)0; /* arguments and results travel in registers */
    uint64_t u = 0;
    for (unsigned i = 0; i < in->nregs; i++)
        if (in->uses >> i & 1)
            u |= reg_bit(in, i);
    return u;
}

uint64_t an_insn_defs(const an_insn *in)
{
    uint64_t d = 0;
    for (unsigned i = 0; i < in->nregs; i++)
        if (in->defs >> i & 1)
            d |= reg_bit(in, i);
    return d;
}

static uint64_t live_in(const an_func *f, uint32_t b, uint64_t out)
{
    const an_block *bl = &f->blocks[b];
    for (uint32_t i = bl->n; i-- > 0;) {
        const an_insn *in = &f->insns[bl->first + i];
        out = (out & ~an_insn_defs(in)) | an_insn_uses(in);
    }
    return out;
}

int an_liveness(an_func *f)
{
    if (f->nblocks == 0)
        return 0;
    uint64_t *in = calloc(f->nblocks, sizeof *in);
    if (!in)
        return -1;
    for (uint32_t b = 0; b < f->nblocks; b++)
        f->blocks[b].live_out = 0;
    /* Edges sorted by source instruction come from decoding in order. */
    int changed = 1;
    while (changed) {
        changed = 0;
        uint32_t e = f->nedges;
        for (uint32_t b = f->nblocks; b-- > 0;) {
            an_block *bl = &f->blocks[b];
            const an_insn *last = &f->insns[bl->first + bl->n - 1];
            uint64_t out = 0;
            if (!(last->flags & AN_TERM) && b + 1 < f->nblocks)
                out |= in[b + 1];
            while (e > 0 && f->edges[e - 1].from >= bl->first) {
                e--;
                long t = an_insn_at(f, f->edges[e].to);
                out |= t >= 0 ? in[f->insns[t].block] : 0;
            }
            uint64_t li = live_in(f, b, out);
            if (out != bl->live_out || li != in[b]) {
                bl->live_out = out;
                in[b] = li;
                changed = 1;
            }
        }
    }
    free(in);
    return 0;
}

void an_block_live_after(const an_func *f, uint32_t b, uint64_t *live)
{
    const an_block *bl = &f->blocks[b];
    uint64_t l = bl->live_out;
    for (uint32_t i = bl->n; i-- > 0;) {
        live[i] = l;
        const an_insn *in = &f->insns[bl->first + i];
        l = (l & ~an_insn_defs(in)) | an_insn_uses(in);
    }
}
