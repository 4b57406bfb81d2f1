/*
 * hot_code.h - the hot-code view of a profile, as pulley-report shows it:
 * the share of every function and instruction of all executed bytecode
 * instructions (each benchmark weighing the same, as in pulley-ngrams),
 * executed functions ranked hottest first, loops (back-edges: a branch to
 * an earlier or the same offset of its function, and the loop heads they
 * reach), and a heat scale.  No I/O: the disassembly text is attached by
 * report_db.c.
 */
#ifndef RP_HOT_CODE_H
#define RP_HOT_CODE_H

#include <stddef.h>
#include <stdint.h>

#include "profile_model.h"

/* Marks of an instruction. */
enum { HC_LOOP_HEAD = 1, HC_BACK_EDGE = 2 };

#define HC_LEVELS 8 /* heat levels: 0 never seen, 1..7 hotter and hotter */

typedef struct hc_func {
    uint32_t run;       /* index into an_profile.runs */
    uint32_t func;      /* index into that run's funcs */
    const an_func *f;
    double count;       /* samples or executions (raw units of its run) */
    double share;       /* of all executed instructions, 0..1 */
    double *insn_share; /* per instruction, 0..1 */
    uint8_t *marks;     /* per instruction: HC_LOOP_HEAD | HC_BACK_EDGE */
    uint32_t hottest;   /* the instruction with the largest share */
    uint32_t nloops;    /* back-edges */
    char **text;        /* per instruction disassembly (report_db.c), or NULL */
} hc_func;

typedef struct hc_view {
    hc_func *funcs;        /* executed functions, hottest first */
    size_t nfuncs;
    size_t nall;           /* functions in the profile, executed or not */
    double max_insn_share; /* the hottest instruction's share */
    int any_exact, any_sampled;
} hc_view;

/* Build the view of p (which is not changed).  Returns 0, or -1 when out
 * of memory (v is then empty). */
int hc_build(const an_profile *p, hc_view *v);
void hc_free(hc_view *v);

/* The byte offsets instruction i of f may branch to (branch and jump-table
 * targets that start an instruction), up to cap of them into to[]; returns
 * how many there are.  A target at or before i's own offset is a back-edge. */
size_t hc_targets(const an_func *f, uint32_t i, uint32_t *to, size_t cap);

/* Is share at or above threshold?  Shares are sums of products of
 * integer counts and a run's scale, so an exact tie may come out a few
 * units in the last place low: it still counts as reaching it. */
static inline int hc_at_least(double share, double threshold)
{
    return share >= threshold * (1 - 1e-12);
}

/* What the counts are: "samples", "executions" or both. */
const char *hc_count_name(const hc_view *v);

/* Heat level of a share on a scale whose top is `max`: 0 for nothing,
 * 7 for at least max/2, 6 for at least max/4, ... 1 below max/64. */
int hc_heat(double share, double max);
/* The smallest share of heat level `level` (2..7) on that scale; 0 for 0, 1. */
double hc_heat_floor(int level, double max);

#endif
