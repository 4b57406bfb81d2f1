/*
 * db_open.h - open a profile database for reading only, without leaving
 * files behind: a read-only connection to a WAL database creates its
 * -wal and -shm files and cannot remove them, so where the file allows it
 * the connection is read-write with PRAGMA query_only (it changes no
 * content; as the last connection it checkpoints and removes them on
 * close, as the collector does); read-only where it does not.
 */
#ifndef AN_DB_OPEN_H
#define AN_DB_OPEN_H

#include <sqlite3.h>
#include <stddef.h>

/* Open path (never created).  Returns 0, or -1 with err ("PATH: cannot
 * open: why") and *db NULL. */
int an_db_open_reading(const char *path, sqlite3 **db, char *err, size_t cap);

#endif
