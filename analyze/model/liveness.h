/*
 * liveness.h - register liveness over a function's control-flow graph, so
 * that operand facts can say whether a value passed between the parts of
 * an n-gram is dead afterwards.  Registers are the function's ids
 * (regs.h).
 */
#ifndef AN_LIVENESS_H
#define AN_LIVENESS_H

#include <stdint.h>

#include "profile_model.h"

/* The registers instruction i of f reads and writes: its operands' stored
 * roles and the windows it reads or writes implicitly (an_func.implicit).
 * Calls, returns and opaque instructions are taken to read every register
 * (the calling convention is not in the database), and a window whose end
 * is open is read whole and written nowhere, so that a value is only ever
 * called dead when it provably is. */
void an_insn_effect(const an_func *f, uint32_t i, an_regset *uses, an_regset *defs);

/* Does instruction i of f write register id r? */
int an_insn_writes(const an_func *f, uint32_t i, unsigned r);

/* Fill every block's live_out (iterating to a fixed point). */
int an_liveness(an_func *f);

/* live[i] = registers live after instruction first + i of block b. */
void an_block_live_after(const an_func *f, uint32_t b, an_regset *live);

#endif
