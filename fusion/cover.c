/*
 * cover.c - patterns from macro ops, and the dynamic programming cover:
 *
 *   cost[0] = 0
 *   cost[i] = min(cost[i-1] + 1,
 *                 cost[i-n] + 1 for each pattern of n parts matching at i-n)
 */
#include "cover.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fu_pattern_of_parts(const fu_insn *parts, unsigned n, fu_pattern *out)
{
    memset(out, 0, sizeof *out);
    if (n > FU_MAX_PARTS)
        return -1;
    int first[256]; /* position of each register's first operand */
    for (unsigned r = 0; r < 256; r++)
        first[r] = -1;
    out->n = (uint8_t)n;
    for (unsigned k = 0; k < n; k++) {
        const fu_insn *pt = &parts[k];
        if (pt->nregs > FU_MAX_REGS) {
            memset(out, 0, sizeof *out);
            return -1;
        }
        out->op[k] = pt->op;
        for (unsigned j = 0; j < pt->nregs; j++) {
            int pos = (int)(k * FU_MAX_REGS + j);
            if (first[pt->reg[j]] < 0) {
                first[pt->reg[j]] = pos;
                continue;
            }
            out->eq[out->neq][0] = (uint8_t)first[pt->reg[j]];
            out->eq[out->neq][1] = (uint8_t)pos;
            out->neq++;
        }
    }
    return 0;
}

int fu_pattern_of(const fu_macro *m, fu_opcode_fn opcode, void *ctx, fu_pattern *out,
                  char *err, size_t cap)
{
    memset(out, 0, sizeof *out);
    fu_insn parts[FU_MAX_PARTS];
    if (m->nparts > FU_MAX_PARTS) {
        snprintf(err, cap, "macro op %s has more than %d parts", m->name, FU_MAX_PARTS);
        return -1;
    }
    for (unsigned k = 0; k < m->nparts; k++) {
        const fu_part *pt = &m->part[k];
        int op = opcode(ctx, pt->op);
        if (op < 0 || op > UINT16_MAX) {
            snprintf(err, cap, "macro op %s: part %u, %s, is not an opcode", m->name, k + 1, pt->op);
            return -1;
        }
        parts[k].op = (uint16_t)op;
        parts[k].nregs = pt->nregs;
        memcpy(parts[k].reg, pt->reg, sizeof parts[k].reg);
    }
    return fu_pattern_of_parts(parts, m->nparts, out);
}

int fu_index_build(fu_index *ix, const fu_pattern *set, size_t nset)
{
    memset(ix, 0, sizeof *ix);
    for (size_t m = 0; m < nset; m++)
        if (set[m].n && set[m].op[set[m].n - 1] >= ix->nops)
            ix->nops = set[m].op[set[m].n - 1] + 1u;
    ix->start = calloc(ix->nops + 1, sizeof *ix->start);
    ix->order = malloc((nset ? nset : 1) * sizeof *ix->order);
    ix->before = calloc(ix->nops + 1, sizeof *ix->before);
    ix->by_prev = malloc((nset ? nset : 1) * sizeof *ix->by_prev);
    ix->prev_op = malloc((nset ? nset : 1) * sizeof *ix->prev_op);
    ix->single = calloc(ix->nops + 1, 1);
    if (!ix->start || !ix->order || !ix->before || !ix->by_prev || !ix->prev_op || !ix->single) {
        fu_index_free(ix);
        return -1;
    }
    /* Counting sort by last opcode, stable (set order within a group):
     * count into start[o + 1], sum up, place with start[o] as the cursor
     * (which leaves it at the group's end), then move the starts back. */
    for (size_t m = 0; m < nset; m++)
        if (set[m].n)
            ix->start[set[m].op[set[m].n - 1] + 1]++;
    for (uint32_t o = 0; o < ix->nops; o++)
        ix->start[o + 1] += ix->start[o];
    for (size_t m = 0; m < nset; m++)
        if (set[m].n)
            ix->order[ix->start[set[m].op[set[m].n - 1]]++] = (uint32_t)m;
    for (uint32_t o = ix->nops; o > 0; o--)
        ix->start[o] = ix->start[o - 1];
    ix->start[0] = 0;
    for (size_t m = 0; m < nset; m++) {
        unsigned n = set[m].n;
        if (n)
            ix->before[set[m].op[n - 1]] |= n > 1 ? 1ull << (set[m].op[n - 2] % 64) : ~0ull;
        if (n == 1)
            ix->single[set[m].op[0]] = 1;
    }
    /* by_prev: each group sorted by the op before the last, stably (an
     * insertion sort: groups are small, and their order ascending). */
    for (uint32_t o = 0; o < ix->nops; o++)
        for (uint32_t k = ix->start[o]; k < ix->start[o + 1]; k++) {
            uint32_t m = ix->order[k];
            uint16_t prev = set[m].n > 1 ? set[m].op[set[m].n - 2] : 0;
            uint32_t j = k;
            for (; j > ix->start[o] && ix->prev_op[j - 1] > prev; j--) {
                ix->by_prev[j] = ix->by_prev[j - 1];
                ix->prev_op[j] = ix->prev_op[j - 1];
            }
            ix->by_prev[j] = m;
            ix->prev_op[j] = prev;
        }
    return 0;
}

/* The candidates of ix at a place whose last two opcodes are prev, last:
 * the patterns of last's group with prev before their last part, into
 * *group; their number. */
static size_t pair_group(const fu_index *ix, uint16_t prev, uint16_t last, const uint32_t **group)
{
    uint32_t lo = ix->start[last], hi = ix->start[last + 1];
    while (lo < hi) { /* the first with prev_op >= prev */
        uint32_t mid = lo + (hi - lo) / 2;
        if (ix->prev_op[mid] < prev)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t end = lo;
    while (end < ix->start[last + 1] && ix->prev_op[end] == prev)
        end++;
    *group = ix->by_prev + lo;
    return end - lo;
}

void fu_index_free(fu_index *ix)
{
    free(ix->start);
    free(ix->order);
    free(ix->before);
    free(ix->by_prev);
    free(ix->prev_op);
    free(ix->single);
    memset(ix, 0, sizeof *ix);
}

uint32_t fu_cover(const fu_insn *insns, uint32_t len, const fu_pattern *set, size_t nset,
                  uint32_t *cost, int32_t *choice)
{
    return fu_cover_indexed(insns, len, set, nset, NULL, cost, choice);
}

uint32_t fu_cover_indexed(const fu_insn *insns, uint32_t len, const fu_pattern *set, size_t nset,
                          const fu_index *ix, uint32_t *cost, int32_t *choice)
{
    int32_t *from = choice; /* reused: the pattern ending at i in the best prefix cover */
    cost[0] = 0;
    for (uint32_t i = 1; i <= len; i++) {
        cost[i] = cost[i - 1] + 1;
        int32_t best = -1;
        const uint32_t *group = NULL; /* the candidates: group[0 .. ncand), or the whole set */
        size_t ncand = nset;
        if (ix) {
            uint16_t last = insns[i - 1].op;
            ncand = last < ix->nops ? ix->start[last + 1] - ix->start[last] : 0;
            group = ncand ? ix->order + ix->start[last] : NULL;
            if (ncand && i > 1) {
                uint16_t prev = insns[i - 2].op;
                if (!(ix->before[last] >> (prev % 64) & 1))
                    ncand = 0; /* no pattern of the group has the op before it */
                else if (ncand > 4 && !ix->single[last]) /* a small group: try it whole */
                    ncand = pair_group(ix, prev, last, &group);
            }
        }
        for (size_t c = 0; c < ncand; c++) {
            size_t m = group ? group[c] : c;
            if (m >= nset)
                break; /* ix indexes a longer set: the rest of the group is past this one */
            unsigned n = set[m].n;
            if (n > i || n == 0 || cost[i - n] + 1 >= cost[i])
                continue;
            if (fu_match(&set[m], insns + i - n)) {
                cost[i] = cost[i - n] + 1;
                best = (int32_t)m;
            }
        }
        if (from)
            from[i - 1] = best;
    }
    if (choice) {
        /* Keep only the patterns on the optimal path, walking back from the end. */
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
