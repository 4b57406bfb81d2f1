/*
 * cover.c - patterns from macro ops, and the dynamic programming cover:
 *
 *   cost[0] = 0
 *   cost[i] = min(cost[i-1] + 1,
 *                 cost[i-n] + 1 for each pattern of n parts matching at i-n)
 */
#include "cover.h"

#include <stdio.h>
#include <string.h>

int fu_pattern_of(const fu_macro *m, fu_opcode_fn opcode, void *ctx, fu_pattern *out,
                  char *err, size_t cap)
{
    memset(out, 0, sizeof *out);
    int first[FU_MAX_REGS]; /* position of each macro register's first operand */
    for (unsigned r = 0; r < FU_MAX_REGS; r++)
        first[r] = -1;
    out->n = (uint8_t)m->nparts;
    for (unsigned k = 0; k < m->nparts; k++) {
        const fu_part *pt = &m->part[k];
        int op = opcode(ctx, pt->op);
        if (op < 0 || op > UINT16_MAX) {
            snprintf(err, cap, "macro op %s: part %u, %s, is not an opcode", m->name, k + 1, pt->op);
            return -1;
        }
        out->op[k] = (uint16_t)op;
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

uint32_t fu_cover(const fu_insn *insns, uint32_t len, const fu_pattern *set, size_t nset,
                  uint32_t *cost, int32_t *choice)
{
    int32_t *from = choice; /* reused: the pattern ending at i in the best prefix cover */
    cost[0] = 0;
    for (uint32_t i = 1; i <= len; i++) {
        cost[i] = cost[i - 1] + 1;
        int32_t best = -1;
        for (size_t m = 0; m < nset; m++) {
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
