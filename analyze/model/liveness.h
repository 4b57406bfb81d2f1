/*
 * liveness.h - register liveness over a function's control-flow graph, so
 * that operand facts can say whether a value passed between the parts of
 * an n-gram is dead afterwards.  Registers are bits: x0..x31 then f0..f31.
 */
#ifndef AN_LIVENESS_H
#define AN_LIVENESS_H

#include <stdint.h>

#include "profile_model.h"

/* Registers instruction i reads and writes (its operands' stored roles).
 * Calls and returns (flags) are taken to read every register (the calling
 * convention is not in the database), so a value is only ever called dead
 * when it provably is. */
uint64_t an_insn_uses(const an_insn *in);
uint64_t an_insn_defs(const an_insn *in);

/* Fill every block's live_out (iterating to a fixed point). */
int an_liveness(an_func *f);

/* live[i] = registers live after instruction first + i of block b. */
void an_block_live_after(const an_func *f, uint32_t b, uint64_t *live);

#endif
