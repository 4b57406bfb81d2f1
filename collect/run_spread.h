/*
 * run_spread.h - samples of an interpreter that publishes only where a
 * straight-line run starts (pulleyprof_config.run_starts), turned into
 * samples per instruction: each is spread equally over its run.
 */
#ifndef PULLEY_RUN_SPREAD_H
#define PULLEY_RUN_SPREAD_H

#include "pc_hist.h"
#include "registry.h"

/* Into *out (empty): for each pc of h in a decoded function, its count
 * spread over the instructions from the one holding the pc up to the
 * first that ends a run (its opcode flagged BRANCH, TERMINATOR, CALL or
 * RETURN) or the function's end, each instruction's share under its
 * stored address; every other pc (0, in no function) with its count as
 * it is.  Shares are whole samples: of n samples over a run of k
 * instructions, each gets n/k rounded down or up, the extra ones spaced
 * evenly along the run, and they sum to n; with r->run_costs, each gets
 * them in proportion to its handler's cost instead (the time it takes),
 * rounded the same way.  0, or -1 when out of memory. */
int pp__spread_runs(const registry *r, const pc_hist *h, pc_hist *out);

#endif
