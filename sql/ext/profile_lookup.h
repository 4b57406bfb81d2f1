/*
 * profile_lookup.h - what the extension reads from the profile database
 * through the calling connection: a run's stored opcode table, the
 * function names of a module, a run's function address ranges.  Each
 * returns 0, or -1 with err saying what is missing or wrong.
 */
#ifndef SX_PROFILE_LOOKUP_H
#define SX_PROFILE_LOOKUP_H

#include <stddef.h>

#include "extension.h"
#include "insn_text.h"
#include "opcode_rows.h"
#include "pc_map.h"

int sx_load_run_isa(sqlite3 *db, sqlite3_int64 run, ot_table *t, char *err, size_t cap);
int sx_load_module_names(sqlite3 *db, sqlite3_int64 module, sx_names *names, char *err,
                         size_t cap);
int sx_load_run_functions(sqlite3 *db, sqlite3_int64 run, sx_pc_map *map, char *err, size_t cap);

#endif
