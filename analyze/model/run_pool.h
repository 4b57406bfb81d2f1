/*
 * run_pool.h - many runs in the memory of the code that ran: each run, as
 * soon as it is read, has its block frequencies estimated and is folded
 * into the pool of the runs the analysis never tells apart (same
 * benchmark, label, instruction set, exact or sampled, stored costs);
 * a function whose decoded code and name equal one of the pool's adds
 * its counts and frequencies to it and is freed.
 *
 * A pool is an an_run to every consumer.  Its raw counts and frequencies
 * are the sums over its runs; each block's and instruction's `norm` is
 * the sum of its share of its own run, which is what normalisation needs
 * (every benchmark weighs 1, shared by its runs): a pool of one run is
 * exactly the run, read as before.  The runs themselves are listed in
 * an_profile.members.
 */
#ifndef AN_RUN_POOL_H
#define AN_RUN_POOL_H

#include "profile_model.h"

/* Fold run, which must be p->runs[p->nruns] (read, its counts attached
 * and its benchmark set), into p: it becomes a new pool (p->nruns grows)
 * or is added to its pool and freed.  0, or -1 when out of memory (run
 * freed). */
int an_pool_run(an_profile *p, an_run *run);

#endif
