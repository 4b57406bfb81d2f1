/*
 * cover.c - dynamic programming cover of a block by macro ops.
 *
 *   cost[0] = 0
 *   cost[i] = min(cost[i-1] + 1,
 *                 cost[i-n] + 1 for each macro m of length n ending at i)
 */
#include "cover.h"

/* Do the n ops before ops + end spell macro m?  Compared from the last
 * op back: most positions differ there, and n is at most a few. */
static inline int ends_with(const uint16_t *ops, uint32_t end, const an_macro *m)
{
    for (unsigned k = m->n; k > 0; k--)
        if (ops[end - m->n + k - 1] != m->ops[k - 1])
            return 0;
    return 1;
}

uint32_t an_cover(const uint16_t *ops, uint32_t len, const an_macro *set, size_t nset,
                  uint32_t *cost, int32_t *choice)
{
    int32_t *from = choice; /* reused: macro ending at i in the best prefix cover */
    cost[0] = 0;
    for (uint32_t i = 1; i <= len; i++) {
        cost[i] = cost[i - 1] + 1;
        int32_t best = -1;
        for (size_t m = 0; m < nset; m++) {
            unsigned n = set[m].n;
            if (n > i || n == 0 || cost[i - n] + 1 >= cost[i])
                continue;
            if (ends_with(ops, i, &set[m])) {
                cost[i] = cost[i - n] + 1;
                best = (int32_t)m;
            }
        }
        if (from)
            from[i - 1] = best;
    }
    if (choice) {
        /* Keep only the macros on the optimal path, walking back from the end. */
        uint32_t i = len;
        while (i > 0) {
            int32_t m = from[i - 1];
            uint32_t step = m >= 0 ? set[m].n : 1;
            for (uint32_t k = 1; k < step; k++)
                choice[i - 1 - k] = -1;
            i -= step;
        }
    }
    return cost[len];
}
