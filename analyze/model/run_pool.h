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

/* Set k from a function's code; isa: its run's table's fingerprint,
 * checksum: its stored one (has_checksum 0: none), rows: built from the
 * stored rows.  A function built from rows without a checksum gets no key
 * (k->known 0): nothing says its rows are those of another. */
void an_code_key_set(an_code_key *k, const uint8_t *code, size_t size, uint64_t isa,
                     int has_checksum, int64_t checksum, int rows);
/* A function of the pools with key k and this name, built already; NULL. */
const an_func *an_pool_find_code(const an_profile *p, const an_code_key *k, const char *name);
/* Build f as a copy of src (its counts and frequencies 0), but for its id,
 * name and serial; *opaque counts its opaque instructions.  0 or -1. */
int an_func_copy_built(an_func *f, const an_func *src, uint64_t *opaque);
/* Free the index of the pools' functions by key (an_profile_free does). */
void an_pool_free_codes(an_profile *p);

#endif
