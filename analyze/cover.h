/*
 * cover.h - the optimal cover of a basic block by single ops and a set of
 * macro ops (dynamic programming over the block, as Gforth selects
 * superinstructions): the fewest dispatches that execute the block.
 */
#ifndef AN_COVER_H
#define AN_COVER_H

#include <stddef.h>
#include <stdint.h>

typedef struct an_macro {
    const uint16_t *ops;
    unsigned n;
} an_macro;

/* Fewest dispatches covering ops[0..len), each position covered by one
 * single op or by one occurrence of a macro op of set[0..nset).  scratch
 * holds len + 1 entries.  When choice is not NULL, choice[i] is the macro
 * (index into set) ending at position i in one optimal cover, or -1. */
uint32_t an_cover(const uint16_t *ops, uint32_t len, const an_macro *set, size_t nset,
                  uint32_t *scratch, int32_t *choice);

#endif
