/*
 * catalog_store.h - writing a run's catalog: its modules and its
 * functions (stored address, code, checksum) with their instruction rows,
 * decoded beforehand (func_rows.h).  The catalog thread writes the
 * functions registered before the program ran while it runs, the end of
 * the run the rest; both go through here, inside a transaction the caller
 * holds.
 */
#ifndef PULLEY_CATALOG_STORE_H
#define PULLEY_CATALOG_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "profile_db.h"
#include "registry.h"

/* What of the registry is in the database: its first nmodules modules
 * and nfuncs functions, with their row ids by registry index. */
typedef struct run_catalog {
    int64_t *module_ids, *func_ids;
    size_t nmodules, nfuncs;
    uint64_t cut_short; /* of those, functions whose code stopped decoding */
    /* Its INSERT statements, prepared at the first write: functions,
     * instruction rows one and many at a time. */
    sqlite3_stmt *insert_function, *insert_row, *insert_rows;
} run_catalog;
/* Finalize the statements (before the connection closes). */
void pp__catalog_finish(run_catalog *c);
/* That, and free c. */
void pp__run_catalog_free(run_catalog *c);

/* In a transaction: write the modules mods[c->nmodules..nmods) and the
 * functions funcs[0..n), which are the registry's functions c->nfuncs ..
 * c->nfuncs + n, each decoded (rows not released).  Their ids go into c,
 * but c's counts only move on with pp__catalog_written, once the
 * transaction commits; *cut_short gets how many of them stopped decoding.
 * 0, or -1 with err. */
int pp__catalog_write(profile_db *p, int64_t run, const reg_module *mods, size_t nmods,
                      const reg_function *funcs, size_t n, run_catalog *c, uint64_t *cut_short,
                      char *err, size_t errcap);
/* The transaction of the last pp__catalog_write committed. */
void pp__catalog_written(run_catalog *c, size_t nmods, size_t n, uint64_t cut_short);

#endif
