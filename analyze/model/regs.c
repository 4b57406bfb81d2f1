/*
 * regs.c - register ids of a function (regs.h): an open-addressing hash of
 * (kind, number) to id (Fibonacci hashing, linear probing), rebuilt per
 * function while its instructions are read.
 */
#include "regs.h"

#include <string.h>

#include "base/grow.h"

void an_regmap_reset(an_regmap *m)
{
    memset(m, 0, sizeof *m);
}

int an_regmap_id(an_regmap *m, an_func *f, uint8_t kind, uint32_t number)
{
    const uint32_t mask = 2 * AN_FUNC_REGS - 1;
    uint64_t key = (uint64_t)kind << 32 | number;
    uint32_t h = (uint32_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> 40) & mask;
    for (;; h = (h + 1) & mask) { /* never full: at most half the slots are used */
        unsigned id = m->slot[h];
        if (id == 0)
            break;
        const an_reg *r = &f->regs[id - 1];
        if (r->number == number && r->kind == kind)
            return (int)id - 1;
    }
    if (f->nregs == AN_FUNC_REGS)
        return -1;
    size_t cap = m->regs_cap;
    if (BASE_GROW(f->regs, cap, f->nregs + 1, 16) != 0)
        return -2;
    m->regs_cap = (uint32_t)cap;
    f->regs[f->nregs] = (an_reg){number, kind};
    m->slot[h] = (uint16_t)(++f->nregs);
    return (int)f->nregs - 1;
}
