/*
 * extension.c - the entry point of the SQLite loadable extension
 * (`.load build/sql/ext/pulley_sqlext` in the sqlite3 shell): registers
 * pulley_disasm, pulley_isa_hash, pulley_insns and pulley_samples on the
 * connection.  See README.md in this directory.
 */
#include <stdio.h>
#include <string.h>

#include "builtin_table.h"
#include "extension.h"

SQLITE_EXTENSION_INIT1

/* SQLite derives the entry point's name from the file name: pulley_sqlext
 * -> sqlite3_pulleysqlext_init. */
__attribute__((visibility("default"))) int sqlite3_pulleysqlext_init(
    sqlite3 *db, char **errmsg, const sqlite3_api_routines *api)
{
    SQLITE_EXTENSION_INIT2(api);
    sx_ext *ext = sqlite3_malloc(sizeof *ext);
    if (!ext)
        return SQLITE_NOMEM;
    memset(ext, 0, sizeof *ext);
    char err[256];
    if (sx_builtin_table(&ext->builtin, err, sizeof err) != 0) {
        sqlite3_free(ext);
        *errmsg = sqlite3_mprintf("pulley_sqlext: the compiled-in opcode table: %s", err);
        return SQLITE_ERROR;
    }
    /* The pulley_insns module owns ext from here on, and frees it with
     * the connection (or at once if registering it fails). */
    int rc = sx_register_insns(db, ext);
    if (rc == SQLITE_OK)
        rc = sx_register_samples(db, ext);
    if (rc == SQLITE_OK)
        rc = sx_register_disasm(db, ext);
    if (rc != SQLITE_OK)
        *errmsg = sqlite3_mprintf("pulley_sqlext: registering its functions failed: %s",
                                  sqlite3_errstr(rc));
    return rc;
}

/* The generic name, for `.load FILE sqlite3_extension_init` and for
 * copies of the file under another name. */
__attribute__((visibility("default"))) int sqlite3_extension_init(
    sqlite3 *db, char **errmsg, const sqlite3_api_routines *api)
{
    return sqlite3_pulleysqlext_init(db, errmsg, api);
}
