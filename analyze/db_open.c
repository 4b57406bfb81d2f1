/*
 * db_open.c - opening a profile database for reading (see db_open.h).
 */
#include "db_open.h"

#include <stdio.h>

static int open_with(const char *path, int flags, sqlite3 **db)
{
    int rc = sqlite3_open_v2(path, db, flags, NULL);
    if (rc != SQLITE_OK) {
        sqlite3_close(*db);
        *db = NULL;
    }
    return rc;
}

int an_db_open_reading(const char *path, sqlite3 **db, char *err, size_t cap)
{
    if (open_with(path, SQLITE_OPEN_READWRITE, db) == SQLITE_OK) {
        if (sqlite3_exec(*db, "PRAGMA query_only = 1", NULL, NULL, NULL) == SQLITE_OK)
            return 0;
        sqlite3_close(*db);
        *db = NULL;
    }
    int rc = open_with(path, SQLITE_OPEN_READONLY, db);
    if (rc == SQLITE_OK)
        return 0;
    snprintf(err, cap, "%s: cannot open: %s", path, sqlite3_errstr(rc));
    return -1;
}
