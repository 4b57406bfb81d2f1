/*
 * renumber.c - registers of any number as 8-bit ids that keep, inside
 * every window of FU_MAX_PARTS instructions, which operands name the same
 * register (renumber.h says why that is all the cover needs).
 */
#include "renumber.h"

#include <string.h>

/* Operands that hold an id at once: a window's.  Fewer than there are ids,
 * so a free one is always found. */
_Static_assert(FU_MAX_PARTS * FU_MAX_REGS < 256, "a window's registers must fit 8-bit ids");

void fu_renumber_start(fu_renumber *s)
{
    memset(s, 0, sizeof *s);
}

/* The id register r holds in the window: operands 0 .. j - 1 of the
 * instruction in ring slot `slot`, then the instructions before it, the
 * nearest first; -1 if none names r. */
static int held_id(const fu_renumber *s, unsigned slot, unsigned j, uint32_t r)
{
    for (unsigned q = 0; q < j; q++)
        if (s->reg[slot][q] == r)
            return s->id[slot][q];
    unsigned back = s->at < FU_MAX_PARTS - 1 ? s->at : FU_MAX_PARTS - 1;
    for (unsigned d = 1; d <= back; d++) {
        unsigned p = (slot + FU_MAX_PARTS - d) % FU_MAX_PARTS;
        for (unsigned q = 0; q < s->nregs[p]; q++)
            if (s->reg[p][q] == r)
                return s->id[p][q];
    }
    return -1;
}

/* The next id no operand of the window holds, in a round robin. */
static unsigned free_id(fu_renumber *s)
{
    while (s->holders[s->cursor])
        s->cursor = (s->cursor + 1) % 256;
    unsigned id = s->cursor;
    s->cursor = (s->cursor + 1) % 256;
    return id;
}

void fu_renumber_next(fu_renumber *s, const uint32_t *reg, unsigned nregs, fu_insn *out)
{
    unsigned slot = s->at % FU_MAX_PARTS;
    if (s->at >= FU_MAX_PARTS) /* the instruction FU_MAX_PARTS back leaves the window */
        for (unsigned q = 0; q < s->nregs[slot]; q++)
            s->holders[s->id[slot][q]]--;
    s->nregs[slot] = 0;
    for (unsigned j = 0; j < nregs; j++) {
        int held = held_id(s, slot, j, reg[j]);
        unsigned id = held >= 0 ? (unsigned)held : free_id(s);
        s->reg[slot][j] = reg[j];
        s->id[slot][j] = (uint8_t)id;
        s->nregs[slot] = (uint8_t)(j + 1);
        s->holders[id]++;
        out->reg[j] = (uint8_t)id;
    }
    for (unsigned j = nregs; j < FU_MAX_REGS; j++)
        out->reg[j] = 0;
    out->nregs = (uint8_t)nregs;
    s->at++;
}
