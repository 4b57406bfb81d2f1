/*
 * blocks.h - basic blocks of a decoded function, their execution
 * frequencies, and per-benchmark normalisation of a whole profile.
 */
#ifndef AN_BLOCKS_H
#define AN_BLOCKS_H

#include "profile_model.h"

/* Split f into basic blocks.  Leaders: the entry, every branch and
 * jump-table target, and the instruction after a branch or terminator.
 * Returns 0 or -1 (out of memory). */
int an_split_blocks(an_func *f);

/* Each block's frequency from exact counts: the count of its first
 * instruction (every instruction of a block runs once per block
 * execution). */
void an_counted_freq(an_func *f);

/* The block frequencies of a sampled run whose instructions use global
 * opcodes below nops: samples weighed by each opcode's cost, estimated from
 * the run itself (blocks.c says how).  0, or -1 when out of memory. */
int an_sampled_freq(an_run *run, size_t nops);

/* Index of the instruction starting at byte `off`, or -1. */
long an_insn_at(const an_func *f, uint32_t off);
/* Index of the instruction whose bytes include byte `off`, or -1. */
long an_insn_containing(const an_func *f, uint32_t off);

/* The block frequencies of every run not yet estimated: from its exact
 * counts, or estimated from its samples (an_sampled_freq).  The reader
 * only reads; this is the first step of the model.  0, or -1 when out of
 * memory. */
int an_estimate_frequencies(an_profile *p);

/* Set run totals and block weights so that every benchmark weighs 1 (its
 * runs share it in proportion 1/runs), whatever its length, estimating
 * the block frequencies first where that is not done.  Returns 0, or -1
 * when out of memory. */
int an_normalise(an_profile *p);

#endif
