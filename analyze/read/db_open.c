/*
 * db_open.c - opening a profile database for reading (see db_open.h).
 */
#include "db_open.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* How long a reader waits for a lock another connection holds: a collector
 * committing, or another reader of a WAL file recovering or checkpointing
 * it as it opens or closes. */
enum { READ_BUSY_TIMEOUT_MS = 30000 };

static int open_with(const char *name, int flags, sqlite3 **db)
{
    /* Each connection is used by one thread: no mutex around every call. */
    int rc = sqlite3_open_v2(name, db, flags | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_busy_timeout(*db, READ_BUSY_TIMEOUT_MS);
    if (rc != SQLITE_OK) {
        sqlite3_close(*db);
        *db = NULL;
    }
    return rc;
}

/* The directory holding path is writable by this process. */
static int dir_writable(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return 0;
    int ok = access(dirname(copy), W_OK) == 0;
    free(copy);
    return ok;
}

/* path + "-wal" exists and holds frames. */
static int has_wal(const char *path)
{
    char wal[4200];
    struct stat st;
    if (snprintf(wal, sizeof wal, "%s-wal", path) >= (int)sizeof wal)
        return 1; /* cannot tell: do not assume it away */
    return stat(wal, &st) == 0 && st.st_size > 0;
}

/* "file:PATH?PARAM" with the characters a URI path cannot hold escaped. */
static char *uri_of(const char *path, const char *param)
{
    size_t n = strlen(path);
    char *uri = malloc(n * 3 + strlen(param) + 8), *q = uri;
    if (!uri)
        return NULL;
    q += sprintf(q, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++)
        q += *p == '?' || *p == '#' || *p == '%' || *p < 0x20 ? sprintf(q, "%%%02X", *p)
                                                             : (*q = (char)*p, 1);
    sprintf(q, "?%s", param);
    return uri;
}

static int open_uri(const char *path, const char *param, sqlite3 **db)
{
    char *uri = uri_of(path, param);
    if (!uri)
        return SQLITE_NOMEM;
    int rc = open_with(uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, db);
    free(uri);
    return rc;
}

int an_db_open_reading(const char *path, sqlite3 **db, char *err, size_t cap)
{
    *db = NULL;
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, cap, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, cap, "%s: cannot open: is a directory, not a profile database", path);
        return -1;
    }
    int rc;
    if (access(path, W_OK) == 0 && dir_writable(path)) {
        rc = open_with(path, SQLITE_OPEN_READWRITE, db);
        if (rc == SQLITE_OK) {
            if (sqlite3_exec(*db, "PRAGMA query_only = 1", NULL, NULL, NULL) == SQLITE_OK)
                return 0;
            sqlite3_close(*db);
            *db = NULL;
        }
    } else if (!has_wal(path)) {
        /* Nobody is writing it (a writer keeps a -wal file) and this
         * process could not remove what a read-only connection creates:
         * read the file as it is, creating nothing. */
        rc = open_uri(path, "immutable=1", db);
        if (rc == SQLITE_OK)
            return 0;
    } else {
        /* A -wal file beside it holds committed data: read through it. */
        rc = open_uri(path, "mode=ro", db);
        if (rc == SQLITE_OK)
            return 0;
    }
    if (!*db)
        rc = open_with(path, SQLITE_OPEN_READONLY, db);
    if (rc == SQLITE_OK)
        return 0;
    snprintf(err, cap, "%s: cannot open: %s", path, sqlite3_errstr(rc));
    return -1;
}
