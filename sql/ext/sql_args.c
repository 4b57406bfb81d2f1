/*
 * sql_args.c - checks of SQL argument values, and what the table-valued
 * functions share: their query planning (arguments as hidden columns) and
 * the allocation of their table and cursor objects.
 */
#include <stdio.h>
#include <string.h>

#include "extension.h"

static const char *type_name(int type)
{
    switch (type) {
    case SQLITE_INTEGER: return "an integer";
    case SQLITE_FLOAT: return "a real number";
    case SQLITE_TEXT: return "text";
    case SQLITE_BLOB: return "a BLOB";
    default: return "NULL";
    }
}

int sx_arg_int(sqlite3_value *v, const char *what, sqlite3_int64 *out, char *err, size_t cap)
{
    int type = sqlite3_value_type(v);
    if (type == SQLITE_NULL)
        return 0;
    if (type != SQLITE_INTEGER) {
        snprintf(err, cap, "%s must be an integer, not %s", what, type_name(type));
        return -1;
    }
    *out = sqlite3_value_int64(v);
    return 1;
}

int sx_arg_blob(sqlite3_value *v, const char *what, const unsigned char **data, size_t *len,
                char *err, size_t cap)
{
    int type = sqlite3_value_type(v);
    if (type == SQLITE_NULL)
        return 0;
    if (type != SQLITE_BLOB) {
        snprintf(err, cap, "%s must be a BLOB, not %s", what, type_name(type));
        return -1;
    }
    const unsigned char *bytes = sqlite3_value_blob(v);
    int n = sqlite3_value_bytes(v);
    if (!bytes && n > 0) {
        snprintf(err, cap, "out of memory reading %s", what);
        return -1;
    }
    *data = bytes ? bytes : (const unsigned char *)"";
    *len = bytes ? (size_t)n : 0;
    return 1;
}

int sx_best_index(sqlite3_index_info *info, int first, int nargs)
{
    int use[8];
    unsigned unusable = 0, present = 0;
    if (nargs > 8)
        return SQLITE_ERROR;
    for (int a = 0; a < nargs; a++)
        use[a] = -1;
    for (int i = 0; i < info->nConstraint; i++) {
        const struct sqlite3_index_constraint *c = &info->aConstraint[i];
        int a = c->iColumn - first;
        if (a < 0 || a >= nargs || c->op != SQLITE_INDEX_CONSTRAINT_EQ)
            continue;
        if (!c->usable)
            unusable |= 1u << a;
        else if (use[a] < 0)
            use[a] = i;
    }
    int argv_index = 1;
    for (int a = 0; a < nargs; a++) {
        if (use[a] < 0)
            continue;
        info->aConstraintUsage[use[a]].argvIndex = argv_index++;
        info->aConstraintUsage[use[a]].omit = 1;
        present |= 1u << a;
    }
    /* An argument given by a table to the left must come from it: refuse
     * the plans that would run this function first without it. */
    if (unusable & ~present)
        return SQLITE_CONSTRAINT;
    info->idxNum = (int)present;
    info->estimatedCost = (present & 1) ? 100.0 : 1e12;
    info->estimatedRows = (present & 1) ? 100 : 1000000000;
    return SQLITE_OK;
}

int sx_vtab_connect(sqlite3 *db, const char *schema, size_t size, sqlite3_vtab **out)
{
    int rc = sqlite3_declare_vtab(db, schema);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_vtab *vt = sqlite3_malloc64(size);
    if (!vt)
        return SQLITE_NOMEM;
    memset(vt, 0, size);
    *out = vt;
    return SQLITE_OK;
}

int sx_vtab_disconnect(sqlite3_vtab *vt)
{
    sqlite3_free(vt);
    return SQLITE_OK;
}

int sx_cursor_open(size_t size, sqlite3_vtab_cursor **out)
{
    sqlite3_vtab_cursor *c = sqlite3_malloc64(size);
    if (!c)
        return SQLITE_NOMEM;
    memset(c, 0, size);
    *out = c;
    return SQLITE_OK;
}
