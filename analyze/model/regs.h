/*
 * regs.h - the registers of one function as the analysis names them.
 * Each distinct register an instruction names - a kind the opcode table
 * declares ("x", "f", Lua's "r") and a number, as high as the interpreter
 * numbers them - gets a small id, the same for every operand naming it
 * (an_insn.reg; an_func.regs says which register an id is).  Operand
 * facts, shapes, the cover and liveness then work on ids, whatever the
 * instruction set.  A function naming more than AN_FUNC_REGS distinct
 * registers keeps ids for the first ones; an instruction naming another
 * is opaque (an_insn.opaque): taken to read every register, in no macro
 * op, counted in an_run.unanalysed.
 */
#ifndef AN_REGS_H
#define AN_REGS_H

#include <stdint.h>

#include "profile_model.h"

static inline void an_regset_add(an_regset *s, unsigned id)
{
    s->w[id / 64] |= (uint64_t)1 << (id % 64);
}

static inline int an_regset_has(const an_regset *s, unsigned id)
{
    return (int)(s->w[id / 64] >> (id % 64) & 1);
}

static inline void an_regset_fill(an_regset *s)
{
    for (unsigned k = 0; k < AN_FUNC_REGS / 64; k++)
        s->w[k] = ~(uint64_t)0;
}

/* *s = (*s minus defs) plus uses: the registers live before an
 * instruction, from those live after it. */
static inline void an_regset_step_back(an_regset *s, const an_regset *uses, const an_regset *defs)
{
    for (unsigned k = 0; k < AN_FUNC_REGS / 64; k++)
        s->w[k] = (s->w[k] & ~defs->w[k]) | uses->w[k];
}

static inline void an_regset_union(an_regset *s, const an_regset *t)
{
    for (unsigned k = 0; k < AN_FUNC_REGS / 64; k++)
        s->w[k] |= t->w[k];
}

static inline int an_regset_equal(const an_regset *s, const an_regset *t)
{
    for (unsigned k = 0; k < AN_FUNC_REGS / 64; k++)
        if (s->w[k] != t->w[k])
            return 0;
    return 1;
}

/* The ids of the function being built: a hash of its registers. */
typedef struct an_regmap {
    uint16_t slot[2 * AN_FUNC_REGS]; /* id + 1; 0: empty */
    uint32_t regs_cap;               /* allocated entries of f->regs */
} an_regmap;

/* Start the map of a function whose regs are empty. */
void an_regmap_reset(an_regmap *m);

/* The id of register `number` of `kind` in f, added to f->regs if it is
 * new.  -1 when f names AN_FUNC_REGS registers already (the register has
 * no id), -2 when out of memory. */
int an_regmap_id(an_regmap *m, an_func *f, uint8_t kind, uint32_t number);

#endif
