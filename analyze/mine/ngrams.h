/*
 * ngrams.h - mining opcode n-grams inside basic blocks.  An n-gram never
 * spans a block boundary (a branch target), and a branch, terminator or
 * call may only be its last element.
 */
#ifndef AN_NGRAMS_H
#define AN_NGRAMS_H

#include <stddef.h>
#include <stdint.h>

#include "profile_model.h"

typedef struct an_gram {
    uint16_t ops[AN_MAX_N];
    uint8_t n;
    double weight;     /* normalised dynamic count (each benchmark weighs 1) */
    double count;      /* estimated dynamic count, raw units summed over runs */
    uint64_t statics;  /* static occurrences */
    uint32_t funcs;    /* functions where it is hot */
    uint32_t benches;  /* benchmarks where it is hot */
    uint32_t last_func, last_bench; /* counting helpers (serial + 1) */
    int32_t tag;       /* free for the caller (-1 when mined) */
} an_gram;

typedef struct an_grams {
    an_gram *slots; /* open addressing; n == 0 is empty */
    size_t cap, len;
} an_grams;

/* The entry for ops[0..n), created (zeroed, tag -1) if absent; NULL when out
 * of memory. */
an_gram *an_grams_get(an_grams *t, const uint16_t *ops, unsigned n);
/* The entry or NULL. */
an_gram *an_grams_find(const an_grams *t, const uint16_t *ops, unsigned n);
void an_grams_free(an_grams *t);

/* May ops[k] (flags) stand before another element of an n-gram? */
static inline int an_may_continue(unsigned flags)
{
    return !(flags & (AN_BRANCH | AN_TERM | AN_CALL));
}

/* Count every n-gram, 2 <= n <= max_n, of every block of p; an adaptive
 * instruction (AN_ADAPTIVE) is in none unless include_adaptive.  Functions
 * must be visited grouped by run and runs by benchmark for the hot
 * counters; an_mine does that itself.  Returns 0 or -1. */
int an_mine(const an_profile *p, unsigned max_n, int include_adaptive, an_grams *out);

/* The adaptive opcodes that ran in p: how many, and their share of its
 * normalised dispatches (0..1).  Returns 0, or -1 when out of memory. */
int an_adaptive_ran(const an_profile *p, size_t *nops, double *share);

/* Every occurrence of grams[0..n) in the executed blocks of p (weight > 0,
 * two instructions or more), in order: first `block` for each block that
 * has one (may be NULL), then `occurrence` with the gram's index in grams,
 * the block and the occurrence's first instruction in it.  Sets the tag of
 * grams[i] to i and of every other gram of table to -1.  A callback
 * returning non-zero stops the walk, which returns that value. */
typedef struct an_occurrence_walk {
    int (*block)(void *ctx, const an_func *f, uint32_t block);
    int (*occurrence)(void *ctx, int32_t gram, const an_func *f, uint32_t block, uint32_t at);
    void *ctx;
} an_occurrence_walk;
int an_grams_occurrences(const an_profile *p, an_grams *table, an_gram **grams, size_t n,
                         const an_occurrence_walk *walk);

/* The gram's op names joined by " + " ("xlt64_s + br_if_not") into buf. */
void an_gram_text(const an_profile *p, const an_gram *g, char *buf, size_t cap);

/* Total normalised dynamic instructions (= benchmarks with samples). */
double an_total_weight(const an_profile *p);

#endif
