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
 *   - a register named in the window before (the FU_MAX_PARTS - 1
 *     instructions before this one, or this one) keeps its id;
 *   - any other gets the next id, in a round robin, that no operand of the
 *     window holds (at most FU_MAX_PARTS * FU_MAX_REGS = 128 do, of 256).
 *
 * An id is then handed to another register only after FU_MAX_PARTS
 * instructions without its holder, so no window sees two holders, and a
 * register keeps its id across any window it is used in (a register
 * that comes back after a longer absence may come back with another).
 * Each register's id and last use are found in a hash table of fixed
 * size, emptied of the registers no longer in the window when it fills.
 */
#ifndef FU_RENUMBER_H
#define FU_RENUMBER_H

#include <stdint.h>

#include "cover.h"

#define FU_RENUMBER_SLOTS 1024 /* a power of two, over 2 * FU_MAX_PARTS * FU_MAX_REGS */

/* The state of one block being numbered.  Positions are stored plus one
 * (0: never). */
typedef struct fu_renumber {
    struct {
        uint32_t reg;
        uint32_t seen; /* the instruction that last named reg, plus one; 0: empty slot */
        uint8_t id;
    } slot[FU_RENUMBER_SLOTS];
    uint32_t used;          /* slots not empty */
    uint32_t held[256];     /* per id: the instruction that last named it, plus one */
    uint32_t at;            /* instructions numbered so far */
    unsigned cursor;        /* the next id to try */
} fu_renumber;

/* Start a block. */
void fu_renumber_start(fu_renumber *s);

/* Start another block of n instructions after those numbered so far,
 * without emptying the table: the blocks are numbered as one stream with
 * a gap of FU_MAX_PARTS instructions between them, so no window of the
 * new block holds a register of an earlier one.  O(1), where
 * fu_renumber_start clears the whole state (13 KB); it starts afresh
 * only when the stream's positions would run out. */
void fu_renumber_gap(fu_renumber *s, uint32_t n);

/* The next instruction of the block names registers reg[0 .. nregs)
 * (nregs <= FU_MAX_REGS): their ids into out->reg, nregs into out->nregs
 * (out->op is left to the caller).  Blocks of fewer than 2^32 - 1
 * instructions. */
void fu_renumber_next(fu_renumber *s, const uint32_t *reg, unsigned nregs, fu_insn *out);

#endif
