/*
 * run_store.h - writing one run into the profile database: the run row
 * and its opcode table when it starts, sample chunks and the catalog (the
 * modules and functions registered so far, with their decoded
 * instructions) while it runs, and when it ends the rest of the catalog,
 * the pc_samples histogram, exact counts and the run row's totals, in one
 * transaction.  Each call is one transaction holding the connection
 * (pp__pdb_lock), so threads may share it.
 */
#ifndef PULLEY_RUN_STORE_H
#define PULLEY_RUN_STORE_H

#include <stdint.h>

#include "isa_rows.h"
#include "pc_hist.h"
#include <pulley/profile.h>
#include "profile_db.h"
#include "registry.h"

/* Insert the run row (start time now) and the ISA's opcode table. */
int pp__run_store_begin(profile_db *p, const pulleyprof_config *cfg, const isa_rows *isa, unsigned hz,
                    int64_t *run_id, char *err, size_t errcap);

/* One compressed chunk of n samples, its own transaction. */
typedef struct run_chunk {
    const char *encoding; /* sample_chunks.encoding; NULL: SAMPLE_ENCODING */
    int64_t seq;
    uint64_t samples, first_ns, last_ns, raw_bytes;
    const uint8_t *data;
    size_t len;
} run_chunk;
int pp__run_store_chunk(profile_db *p, int64_t run_id, const run_chunk *c, char *err, size_t errcap);

/* What of the registry is in the database: its first nmodules modules
 * and nfuncs functions, with their row ids by registry index. */
typedef struct run_catalog {
    int64_t *module_ids, *func_ids;
    size_t nmodules, nfuncs;
    uint64_t cut_short; /* of those, functions whose code stopped decoding */
} run_catalog;
void pp__run_catalog_free(run_catalog *c);

/* Write the modules mods[c->nmodules..nmods) and the functions
 * funcs[c->nfuncs..nfuncs), each with its decoded instructions, in
 * transactions of a few hundred functions, extending c after each; when
 * one fails, c holds what the ones before it wrote.  The lists may be a
 * copy of a registry still growing: what is already in c must be their
 * start. */
int pp__run_store_catalog(profile_db *p, int64_t run_id, const isa_rows *isa,
                      const reg_module *mods, size_t nmods, const reg_function *funcs,
                      size_t nfuncs, run_catalog *c, char *err, size_t errcap);

/* How the run ended. */
typedef struct run_end {
    const char *outcome;      /* NULL: unknown */
    const char *lost;         /* NULL, or what of the run could not be
                               * stored: the outcome becomes
                               * "incomplete: LOST (OUTCOME)" */
    int exit_status;
    int has_exit_status;
    uint64_t duration_ns;
    const pulleyprof_summary *summary;
} run_end;

/* Write what the run registered (the part of the catalog c does not hold
 * yet) and sampled (r must be sorted), then end the run row.  If the
 * content cannot be written the run row is still ended, as incomplete
 * (when even that cannot be written its outcome stays NULL, which readers
 * take for a run that did not finish); returns -1 with err then. */
int pp__run_store_finish(profile_db *p, int64_t run_id, const isa_rows *isa, const registry *r,
                     const pc_hist *h, run_catalog *c, const run_end *end, char *err,
                     size_t errcap);

#endif
