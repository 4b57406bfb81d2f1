/*
 * cover.h - where macro ops apply: matching a macro op's parts against
 * instructions, and the optimal cover of a basic block by single
 * instructions and macro ops (dynamic programming over the block, as
 * Gforth selects superinstructions): the fewest dispatches that execute
 * the block.  One implementation for the VM's fusion pass (interp/fuse.c),
 * which rewrites the code with it, and for the analysis (analyze/), which
 * predicts with it what a set of macro ops saves: the two cannot disagree.
 *
 * Instructions and patterns use the caller's opcode numbers; registers
 * are numbers in which registers of different kinds differ (the VM gives
 * x0..x31 as 0..31, f0..f31 as 32..63; the analysis numbers a function's
 * registers by first use).  The caller splits its code into blocks: a pattern is only
 * ever matched inside the instructions it is given.
 */
#ifndef FU_COVER_H
#define FU_COVER_H

#include <stddef.h>
#include <stdint.h>

#include "macro_set.h"

/* One instruction as matching sees it. */
typedef struct fu_insn {
    uint16_t op;
    uint8_t nregs;
    uint8_t reg[FU_MAX_REGS];
} fu_insn;

/* A macro op as a pattern: its parts' opcodes, and the pairs of part
 * operands that must hold the same register (those naming one macro
 * register).  Operand j of part k is position k * FU_MAX_REGS + j. */
typedef struct fu_pattern {
    uint8_t n;                       /* parts */
    uint16_t op[FU_MAX_PARTS];
    uint8_t neq;
    uint8_t eq[FU_MAX_PARTS * FU_MAX_REGS][2];
} fu_pattern;

/* The pattern of a macro op whose parts[0 .. n) are given by number:
 * parts[k].op is part k's opcode and parts[k].reg[0 .. nregs) the macro
 * register each of its register operands is (operands naming the same
 * one must hold the same register).  For a caller that has the parts as
 * numbers already, as the VM's fusion pass has them in its opcode rows.
 * Returns 0, or -1 when n is over FU_MAX_PARTS or a part's nregs over
 * FU_MAX_REGS. */
int fu_pattern_of_parts(const fu_insn *parts, unsigned n, fu_pattern *out);

/* The pattern of macro m, its mnemonics numbered by `opcode` (the caller's
 * number of a mnemonic, or -1 if it has none).  Returns 0, or -1 with err
 * naming the unknown mnemonic. */
typedef int (*fu_opcode_fn)(void *ctx, const char *mnemonic);
int fu_pattern_of(const fu_macro *m, fu_opcode_fn opcode, void *ctx, fu_pattern *out,
                  char *err, size_t cap);

/* Do insns[0 .. p->n) spell p: its opcodes, with equal registers where p
 * asks for them? */
static inline int fu_match(const fu_pattern *p, const fu_insn *insns)
{
    for (unsigned k = p->n; k > 0; k--) /* most places differ in the last op */
        if (insns[k - 1].op != p->op[k - 1])
            return 0;
    for (unsigned e = 0; e < p->neq; e++) {
        unsigned a = p->eq[e][0], b = p->eq[e][1];
        if (insns[a / FU_MAX_REGS].reg[a % FU_MAX_REGS] != insns[b / FU_MAX_REGS].reg[b % FU_MAX_REGS])
            return 0;
    }
    return 1;
}

/* The patterns of a set grouped by the opcode of their last part, so that
 * the cover tries at each instruction only those that can end there: for
 * a set used on much code, as the fusion pass's (a set of 1,500 ops made
 * it try 1,500 patterns per instruction). */
typedef struct fu_index {
    uint32_t nops;   /* last opcodes 0 .. nops - 1 have a group */
    uint32_t *start; /* nops + 1 entries: opcode o's group is order[start[o] .. start[o + 1]) */
    uint32_t *order; /* indices into the set, ascending within a group */
    uint64_t *before; /* nops entries: bit (o % 64) set if a pattern of the group may
                         have opcode o just before its last part (all set: one has
                         one part), so that most places skip their group at once */
    uint32_t *by_prev; /* each group again, by the opcode before the last part, then
                          ascending, so that a place tries only the patterns whose
                          last two opcodes it has ... */
    uint16_t *prev_op; /* ... these opcodes, in by_prev's order */
    uint8_t *single;   /* nops entries: the group has a pattern of one part (it is
                          then tried whole) */
} fu_index;

/* The index of set[0 .. nset).  Returns 0, or -1 when out of memory (ix
 * then all zero: start NULL). */
int fu_index_build(fu_index *ix, const fu_pattern *set, size_t nset);
void fu_index_free(fu_index *ix);

/* Fewest dispatches covering insns[0 .. len), each instruction covered by
 * itself or by one match of a pattern of set[0 .. nset).  scratch holds
 * len + 1 entries.  When choice is not NULL (len entries), choice[i] is the
 * pattern (index into set) whose match ends at instruction i in one
 * optimal cover, or -1: of several, the one whose prefix covers are
 * cheapest at each end, the first pattern in set order among equals. */
uint32_t fu_cover(const fu_insn *insns, uint32_t len, const fu_pattern *set, size_t nset,
                  uint32_t *scratch, int32_t *choice);

/* The same cover, trying only the patterns ix groups under each
 * instruction's opcode; ix NULL tries them all.  ix is the index of set,
 * or of a longer set that set[0 .. nset) begins (the analysis evaluates
 * a list of ops one prefix after another). */
uint32_t fu_cover_indexed(const fu_insn *insns, uint32_t len, const fu_pattern *set, size_t nset,
                          const fu_index *ix, uint32_t *scratch, int32_t *choice);

#endif
