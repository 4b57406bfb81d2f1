/*
 * profile_lookup.h - what the extension reads from the profile database
 * through the calling connection: a run's stored opcode table, the
 * function names of a module, a run's function address ranges, and the
 * stored instruction rows of code in another interpreter's encoding.
 * Each returns 0, or -1 with err saying what is missing or wrong.
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
/* One instruction as the `instructions` table stores it. */
typedef struct sx_stored_insn {
    sqlite3_int64 offset, length, opcode;
    char *name, *text;
} sx_stored_insn;

typedef struct sx_stored {
    sx_stored_insn *insns; /* by offset */
    size_t n;
} sx_stored;

/* 1 when run's code is in an encoding the extension cannot decode (another
 * interpreter's, written through libpulleyprof: opcode rows with reg_bits
 * 0), 0 when it is Pulley's, -1 with err. */
int sx_run_is_foreign(sqlite3 *db, sqlite3_int64 run, char *err, size_t cap);
/* The stored instruction rows of the function of run whose code is
 * code[0..size): what that interpreter's own decoder reported.  Refused
 * when no function of run has this code. */
int sx_load_stored(sqlite3 *db, sqlite3_int64 run, const unsigned char *code, size_t size,
                   sx_stored *out, char *err, size_t cap);
void sx_stored_free(sx_stored *s);

int sx_load_run_functions(sqlite3 *db, sqlite3_int64 run, sx_pc_map *map, char *err, size_t cap);

#endif
