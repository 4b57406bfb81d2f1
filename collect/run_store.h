/*
 * run_store.h - writing one run into the profile database: the run row
 * and its opcode table (with macro parts and register ranges) when it
 * starts, sample chunks while it runs, and when it ends the rest of the
 * catalog (catalog_store.h), the pc_samples histogram, exact counts and
 * the run row's totals, in one transaction.  Each call is one transaction holding the connection
 * (pp__pdb_lock), so threads may share it.
 */
#ifndef PULLEY_RUN_STORE_H
#define PULLEY_RUN_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "catalog_store.h"
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
    bool run_starts; /* the samples are of runs (pulleyprof_config.run_starts) */
} run_end;

/* Write what the run registered (the part of the catalog c does not hold
 * yet, decoded here) and sampled, then end the run row.  If the
 * content cannot be written the run row is still ended, as incomplete
 * (when even that cannot be written its outcome stays NULL, which readers
 * take for a run that did not finish); returns -1 with err then. */
int pp__run_store_finish(profile_db *p, int64_t run_id, registry *r, const pc_hist *h,
                         run_catalog *c, const run_end *end, char *err, size_t errcap);

#endif
