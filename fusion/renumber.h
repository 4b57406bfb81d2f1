/*
 * renumber.h - registers of any number as the cover's 8-bit ones.  The
 * cover (cover.h) only ever asks whether two operands of one match hold
 * the same register, and a match spans at most FU_MAX_PARTS consecutive
 * instructions of FU_MAX_REGS registers each.  So a block may name any
 * number of distinct registers (uint32 numbers, as an outside interpreter
 * numbers them) if each gets an 8-bit id such that, inside every window
 * of FU_MAX_PARTS consecutive instructions, two operands have the same id
 * exactly when they name the same register:
 *
 *   - a register seen in the window before (the FU_MAX_PARTS - 1
 *     instructions before this one, or this one) keeps its id;
 *   - any other gets the next id, in a round robin, that no operand of the
 *     window holds (at most FU_MAX_PARTS * FU_MAX_REGS = 128 do, of 256).
 *
 * An id is then handed to another register only after FU_MAX_PARTS
 * instructions without its holder, so no window sees two holders, and a
 * register keeps its id across any window it is used in (a register
 * that comes back after a longer absence may come back with another).
 */
#ifndef FU_RENUMBER_H
#define FU_RENUMBER_H

#include <stdint.h>

#include "cover.h"

/* The state of one block being numbered: the last FU_MAX_PARTS
 * instructions' registers and ids (a ring), and how many operands of
 * those hold each id. */
typedef struct fu_renumber {
    uint32_t reg[FU_MAX_PARTS][FU_MAX_REGS];
    uint8_t id[FU_MAX_PARTS][FU_MAX_REGS];
    uint8_t nregs[FU_MAX_PARTS];
    uint8_t holders[256];
    uint32_t at;     /* instructions numbered so far */
    unsigned cursor; /* the next id to try */
} fu_renumber;

/* Start a block. */
void fu_renumber_start(fu_renumber *s);

/* The next instruction of the block names registers reg[0 .. nregs)
 * (nregs <= FU_MAX_REGS): their ids into out->reg, nregs into out->nregs
 * (out->op is left to the caller). */
void fu_renumber_next(fu_renumber *s, const uint32_t *reg, unsigned nregs, fu_insn *out);

#endif
