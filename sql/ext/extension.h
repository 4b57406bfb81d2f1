/*
 * extension.h - what the files of the SQLite extension share: the
 * extension API pointer (every SQLite call goes through it), the state
 * kept per database connection, the registration of each function, and
 * checks of SQL arguments.
 */
#ifndef SX_EXTENSION_H
#define SX_EXTENSION_H

#include <sqlite3ext.h>
#include <stddef.h>

#include "opcode_rows.h"

SQLITE_EXTENSION_INIT3

/* Per connection, owned by the pulley_insns module (freed when the
 * connection closes). */
typedef struct sx_ext {
    ot_table builtin; /* the compiled-in instruction set */
} sx_ext;

/* Each registers its functions on db: SQLITE_OK or an SQLite error code. */
int sx_register_disasm(sqlite3 *db, sx_ext *ext);   /* pulley_disasm, pulley_isa_hash */
int sx_register_insns(sqlite3 *db, sx_ext *ext);    /* pulley_insns; owns ext */
int sx_register_samples(sqlite3 *db, sx_ext *ext);  /* pulley_samples */

/* An optional integer argument: 0 if it is NULL, 1 with *out if it is an
 * integer, -1 with err ("WHAT must be an integer, not text") otherwise. */
int sx_arg_int(sqlite3_value *v, const char *what, sqlite3_int64 *out, char *err, size_t cap);

/* A BLOB argument: 0 if it is NULL, 1 with its bytes (valid until the
 * value changes; never NULL, even when empty), -1 with err otherwise. */
int sx_arg_blob(sqlite3_value *v, const char *what, const unsigned char **data, size_t *len,
                char *err, size_t cap);

/* xBestIndex of a table-valued function whose arguments are the hidden
 * columns first .. first + nargs - 1: equality constraints on them are
 * passed to xFilter in column order, and idxNum gets bit i for argument i.
 * A plan that cannot supply an argument it was given is refused. */
int sx_best_index(sqlite3_index_info *info, int first, int nargs);

/* xConnect's common part: declare the columns (schema) and allocate the
 * table object, `size` zeroed bytes starting with its sqlite3_vtab; the
 * caller fills in the rest.  xDisconnect frees it.  xOpen allocates a
 * cursor the same way (starting with its sqlite3_vtab_cursor). */
int sx_vtab_connect(sqlite3 *db, const char *schema, size_t size, sqlite3_vtab **out);
int sx_vtab_disconnect(sqlite3_vtab *vt);
int sx_cursor_open(size_t size, sqlite3_vtab_cursor **out);

#endif
