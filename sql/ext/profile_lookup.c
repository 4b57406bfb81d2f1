/*
 * profile_lookup.c - reading opcode tables, function names, function
 * address ranges and stored instruction rows from the profile database (schema in format/schema.sql),
 * with every SQLite return code checked.
 */
#include "profile_lookup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "profile_format.h"

/* Prepare sql and bind ?1 = id; SQLITE_OK or an error in err. */
static int prepare(sqlite3 *db, const char *sql, sqlite3_int64 id, sqlite3_stmt **st,
                   char *err, size_t cap)
{
    *st = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(*st, 1, id);
    if (rc != SQLITE_OK) {
        snprintf(err, cap, "%s (is this a profile database written by pulley-collect?)",
                 sqlite3_errmsg(db));
        sqlite3_finalize(*st);
        *st = NULL;
    }
    return rc;
}

/* Does the row `sql` asks for (by ?1 = id) exist?  1, 0, or -1 with err. */
static int exists(sqlite3 *db, const char *sql, sqlite3_int64 id, char *err, size_t cap)
{
    sqlite3_stmt *st;
    if (prepare(db, sql, id, &st, err, cap) != SQLITE_OK)
        return -1;
    int rc = sqlite3_step(st);
    int found = rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
    if (found < 0)
        snprintf(err, cap, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return found;
}

/* Is the database of a schema this extension understands?  Refuses a
 * newer one (PRAGMA user_version above PVMP_SCHEMA_VERSION): its tables
 * may mean something else.  0, or -1 with err naming the file. */
static int schema_known(sqlite3 *db, char *err, size_t cap)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, "PRAGMA main.user_version", -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    sqlite3_int64 version = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    if (rc != SQLITE_ROW)
        snprintf(err, cap, "reading the schema version: %s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return -1;
    if (version > PVMP_SCHEMA_VERSION) {
        const char *file = sqlite3_db_filename(db, "main");
        snprintf(err, cap,
                 "%s: profile schema version %lld is newer than the newest this extension"
                 " understands (%d)",
                 file && *file ? file : "the database", (long long)version, PVMP_SCHEMA_VERSION);
        return -1;
    }
    return 0;
}

static int run_exists(sqlite3 *db, sqlite3_int64 run, char *err, size_t cap)
{
    if (schema_known(db, err, cap) != 0)
        return -1;
    int found = exists(db, "SELECT 1 FROM runs WHERE id = ?1", run, err, cap);
    if (found == 0)
        snprintf(err, cap, "run %lld does not exist", (long long)run);
    return found == 1 ? 0 : -1;
}

/* Finish a loop over rows: 0 if stepping ended with SQLITE_DONE. */
static int finish(sqlite3 *db, sqlite3_stmt *st, int rc, int failed, char *err, size_t cap)
{
    if (!failed && rc != SQLITE_DONE) {
        snprintf(err, cap, "%s", sqlite3_errmsg(db));
        failed = 1;
    }
    sqlite3_finalize(st);
    return failed ? -1 : 0;
}

/* Does the opcodes table have reg_bits (schema version 3 on)? */
static int has_reg_bits(sqlite3 *db)
{
    sqlite3_stmt *st;
    int has = sqlite3_prepare_v2(db, "SELECT reg_bits FROM opcodes LIMIT 0", -1, &st, NULL) ==
              SQLITE_OK;
    sqlite3_finalize(st);
    return has;
}

int sx_load_run_isa(sqlite3 *db, sqlite3_int64 run, ot_table *t, char *err, size_t cap)
{
    *t = (ot_table){0};
    if (run_exists(db, run, err, cap) != 0)
        return -1;
    /* Files before schema version 3 store no reg_bits: their packs are 5-bit. */
    sqlite3_stmt *st;
    if (prepare(db,
                has_reg_bits(db) ? "SELECT id, name, operands, length, reg_bits FROM opcodes "
                           "WHERE run_id = ?1 ORDER BY id"
                         : "SELECT id, name, operands, length, 5 FROM opcodes "
                           "WHERE run_id = ?1 ORDER BY id",
                run, &st, err, cap) != SQLITE_OK)
        return -1;
    int rc = SQLITE_OK, failed = 0;
    while (!failed && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 1);
        const char *operands = (const char *)sqlite3_column_text(st, 2);
        char row_err[256];
        if (sqlite3_column_type(st, 0) != SQLITE_INTEGER ||
            sqlite3_column_type(st, 3) != SQLITE_INTEGER) {
            snprintf(err, cap, "run %lld: an opcode row has a non-integer id or length",
                     (long long)run);
            failed = 1;
        } else if (ot_table_add(t, sqlite3_column_int64(st, 0), name, operands,
                                sqlite3_column_int64(st, 3), sqlite3_column_int64(st, 4), row_err,
                                sizeof row_err) != 0) {
            snprintf(err, cap, "run %lld: stored opcode table: %s", (long long)run, row_err);
            failed = 1;
        }
    }
    if (finish(db, st, rc, failed, err, cap) != 0) {
        ot_table_free(t);
        return -1;
    }
    if (t->n == 0) {
        snprintf(err, cap, "run %lld has no opcode table", (long long)run);
        return -1;
    }
    /* Two rows of one name: the table is damaged (its listings would
     * read as one opcode what are two). */
    if (prepare(db,
                "SELECT name, min(id), max(id) FROM opcodes WHERE run_id = ?1"
                " GROUP BY name HAVING count(*) > 1 ORDER BY min(id) LIMIT 1",
                run, &st, err, cap) != SQLITE_OK) {
        ot_table_free(t);
        return -1;
    }
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        snprintf(err, cap,
                 "run %lld is damaged: stored opcode table: the name '%s' appears twice"
                 " (opcodes %lld and %lld)",
                 (long long)run, (const char *)sqlite3_column_text(st, 0),
                 (long long)sqlite3_column_int64(st, 1), (long long)sqlite3_column_int64(st, 2));
    if (finish(db, st, rc == SQLITE_ROW ? SQLITE_DONE : rc, rc == SQLITE_ROW, err, cap) != 0) {
        ot_table_free(t);
        return -1;
    }
    return 0;
}

int sx_load_module_names(sqlite3 *db, sqlite3_int64 module, sx_names *names, char *err,
                         size_t cap)
{
    *names = (sx_names){0};
    int found = exists(db, "SELECT 1 FROM modules WHERE id = ?1", module, err, cap);
    if (found <= 0) {
        if (found == 0)
            snprintf(err, cap, "module %lld does not exist", (long long)module);
        return -1;
    }
    sqlite3_stmt *st;
    if (schema_known(db, err, cap) != 0)
        return -1;
    if (prepare(db, "SELECT idx, name FROM functions WHERE module_id = ?1 ORDER BY idx", module,
                &st, err, cap) != SQLITE_OK)
        return -1;
    int rc = SQLITE_OK, failed = 0;
    while (!failed && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        sqlite3_int64 idx = sqlite3_column_int64(st, 0);
        const char *name = (const char *)sqlite3_column_text(st, 1);
        if (sqlite3_column_type(st, 0) != SQLITE_INTEGER || idx < 0 || idx > UINT32_MAX ||
            !name) {
            snprintf(err, cap, "module %lld: a function has a bad index or no name",
                     (long long)module);
            failed = 1;
        } else if (names->n > 0 && names->items[names->n - 1].index == (uint32_t)idx) {
            snprintf(err, cap, "module %lld has two functions with index %lld",
                     (long long)module, (long long)idx);
            failed = 1;
        } else if (sx_names_add(names, (uint32_t)idx, name) != 0) {
            snprintf(err, cap, "out of memory");
            failed = 1;
        }
    }
    if (finish(db, st, rc, failed, err, cap) != 0) {
        sx_names_free(names);
        return -1;
    }
    return 0;
}

int sx_load_run_functions(sqlite3 *db, sqlite3_int64 run, sx_pc_map *map, char *err, size_t cap)
{
    *map = (sx_pc_map){0};
    if (run_exists(db, run, err, cap) != 0)
        return -1;
    sqlite3_stmt *st;
    if (prepare(db, "SELECT id, address, size FROM functions WHERE run_id = ?1", run, &st, err,
                cap) != SQLITE_OK)
        return -1;
    int rc = SQLITE_OK, failed = 0;
    while (!failed && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_type(st, 1) != SQLITE_INTEGER ||
            sqlite3_column_type(st, 2) != SQLITE_INTEGER || sqlite3_column_int64(st, 2) < 0) {
            snprintf(err, cap, "run %lld: function %lld has a bad address or size",
                     (long long)run, (long long)sqlite3_column_int64(st, 0));
            failed = 1;
        } else if (sx_pc_map_add(map, sqlite3_column_int64(st, 0),
                                 (uint64_t)sqlite3_column_int64(st, 1),
                                 (uint64_t)sqlite3_column_int64(st, 2)) != 0) {
            snprintf(err, cap, "out of memory");
            failed = 1;
        }
    }
    if (finish(db, st, rc, failed, err, cap) != 0) {
        sx_pc_map_free(map);
        return -1;
    }
    sx_pc_map_sort(map);
    return 0;
}

int sx_run_is_foreign(sqlite3 *db, sqlite3_int64 run, char *err, size_t cap)
{
    if (run_exists(db, run, err, cap) != 0)
        return -1;
    /* Files before schema version 3 store no reg_bits: all Pulley's. */
    return has_reg_bits(db) ? exists(db, "SELECT 1 FROM opcodes WHERE run_id = ?1 AND reg_bits = 0",
                                     run, err, cap)
                            : 0;
}

static char *dup_text(sqlite3_stmt *st, int col)
{
    const char *t = (const char *)sqlite3_column_text(st, col);
    size_t n = t ? strlen(t) + 1 : 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, t ? t : "", n);
    return d;
}

int sx_load_stored(sqlite3 *db, sqlite3_int64 run, const unsigned char *code, size_t size,
                   sx_stored *out, char *err, size_t cap)
{
    *out = (sx_stored){0};
    sqlite3_stmt *st;
    if (prepare(db,
                "SELECT i.offset, i.length, i.opcode, o.name, i.text FROM instructions i"
                " LEFT JOIN opcodes o ON o.run_id = ?1 AND o.id = i.opcode"
                " WHERE i.function_id = (SELECT id FROM functions WHERE run_id = ?1 AND code = ?2"
                " ORDER BY id LIMIT 1) ORDER BY i.offset",
                run, &st, err, cap) != SQLITE_OK)
        return -1;
    int rc = sqlite3_bind_blob64(st, 2, code, size, SQLITE_STATIC), failed = 0;
    size_t room = 0;
    while (rc == SQLITE_OK || rc == SQLITE_ROW) {
        if ((rc = sqlite3_step(st)) != SQLITE_ROW)
            break;
        if (BASE_GROW(out->insns, room, out->n + 1, 64) != 0) {
            failed = 1;
            snprintf(err, cap, "out of memory");
            break;
        }
        sx_stored_insn *in = &out->insns[out->n];
        *in = (sx_stored_insn){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                               sqlite3_column_int64(st, 2), dup_text(st, 3), dup_text(st, 4)};
        out->n++;
        if (!in->name || !in->text) {
            failed = 1;
            snprintf(err, cap, "out of memory");
            break;
        }
        /* Inside the code, so that offset + length cannot overflow. */
        if (in->offset < 0 || in->length <= 0 || (uint64_t)in->offset > size ||
            (uint64_t)in->length > size - (uint64_t)in->offset) {
            failed = 1;
            snprintf(err, cap,
                     "run %lld is damaged: the instruction row at offset %lld (length %lld)"
                     " lies outside its function's %zu bytes of code",
                     (long long)run, (long long)in->offset, (long long)in->length, size);
            break;
        }
    }
    if (finish(db, st, rc, failed, err, cap) != 0) {
        sx_stored_free(out);
        return -1;
    }
    if (out->n == 0) {
        snprintf(err, cap,
                 "run %lld is of another interpreter, whose encoding the extension cannot"
                 " decode, and none of its functions has this code and stored instructions",
                 (long long)run);
        return -1;
    }
    return 0;
}

void sx_stored_free(sx_stored *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->insns[i].name);
        free(s->insns[i].text);
    }
    free(s->insns);
    *s = (sx_stored){0};
}
