/*
 * renumber.c - registers of any number as 8-bit ids that keep, inside
 * every window of FU_MAX_PARTS instructions, which operands name the same
 * register (renumber.h says why that is all the cover needs).
 */
#include "renumber.h"

#include <string.h>

/* Operands that hold an id at once: a window's.  Fewer than there are ids,
 * so a free one is always found; and the table keeps room for them. */
_Static_assert(FU_MAX_PARTS * FU_MAX_REGS < 256, "a window's registers must fit 8-bit ids");
_Static_assert((FU_RENUMBER_SLOTS & (FU_RENUMBER_SLOTS - 1)) == 0 &&
                   FU_RENUMBER_SLOTS >= 4 * FU_MAX_PARTS * FU_MAX_REGS,
               "the table is a power of two with room for a window's registers");

void fu_renumber_start(fu_renumber *s)
{
    memset(s, 0, sizeof *s);
}

void fu_renumber_gap(fu_renumber *s, uint32_t n)
{
    if (s->at > UINT32_MAX - 1 - FU_MAX_PARTS - (uint64_t)n)
        fu_renumber_start(s);
    else
        s->at += FU_MAX_PARTS;
}

/* Was position `seen` (plus one; 0: never) in the window of instruction
 * s->at: at most FU_MAX_PARTS - 1 instructions before it, or it? */
static int in_window(const fu_renumber *s, uint32_t seen)
{
    return seen && (uint64_t)seen + (FU_MAX_PARTS - 1) > s->at;
}

static uint32_t hash(uint32_t reg)
{
    return (reg * UINT32_C(0x9E3779B1)) >> 22 & (FU_RENUMBER_SLOTS - 1);
}

/* The slot of register reg: where it is, or the empty one it goes to. */
static unsigned find(const fu_renumber *s, uint32_t reg)
{
    unsigned h = hash(reg);
    while (s->slot[h].seen && s->slot[h].reg != reg)
        h = (h + 1) & (FU_RENUMBER_SLOTS - 1);
    return h;
}

/* Empty the table of the registers the window no longer names. */
static void rebuild(fu_renumber *s)
{
    uint32_t reg[FU_MAX_PARTS * FU_MAX_REGS], seen[FU_MAX_PARTS * FU_MAX_REGS];
    uint8_t id[FU_MAX_PARTS * FU_MAX_REGS];
    unsigned n = 0;
    for (unsigned h = 0; h < FU_RENUMBER_SLOTS; h++)
        if (in_window(s, s->slot[h].seen) && n < FU_MAX_PARTS * FU_MAX_REGS) {
            reg[n] = s->slot[h].reg, seen[n] = s->slot[h].seen, id[n] = s->slot[h].id;
            n++;
        }
    memset(s->slot, 0, sizeof s->slot);
    for (unsigned k = 0; k < n; k++) {
        unsigned h = find(s, reg[k]);
        s->slot[h].reg = reg[k], s->slot[h].seen = seen[k], s->slot[h].id = id[k];
    }
    s->used = n;
}

/* The next id no operand of the window holds, in a round robin. */
static unsigned free_id(fu_renumber *s)
{
    while (in_window(s, s->held[s->cursor]))
        s->cursor = (s->cursor + 1) % 256;
    unsigned id = s->cursor;
    s->cursor = (s->cursor + 1) % 256;
    return id;
}

void fu_renumber_next(fu_renumber *s, const uint32_t *reg, unsigned nregs, fu_insn *out)
{
    uint32_t now = s->at + 1;
    for (unsigned j = 0; j < nregs; j++) {
        unsigned h = find(s, reg[j]);
        if (!s->slot[h].seen && s->used >= FU_RENUMBER_SLOTS / 2) {
            rebuild(s);
            h = find(s, reg[j]);
        }
        if (!in_window(s, s->slot[h].seen)) { /* new to the window: a free id */
            s->used += !s->slot[h].seen;
            s->slot[h].reg = reg[j];
            s->slot[h].id = (uint8_t)free_id(s);
        }
        s->slot[h].seen = now;
        s->held[s->slot[h].id] = now;
        out->reg[j] = s->slot[h].id;
    }
    for (unsigned j = nregs; j < FU_MAX_REGS; j++)
        out->reg[j] = 0;
    out->nregs = (uint8_t)nregs;
    s->at++;
}
