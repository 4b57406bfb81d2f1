/*
 * db_open.h - open a profile database for reading only, without leaving
 * files behind.  A read-only connection to a WAL database creates -wal and
 * -shm files it cannot remove, so:
 *   - where this process may write the file and its directory, the
 *     connection is read-write with PRAGMA query_only (it changes no
 *     content; as the last connection it checkpoints and removes them on
 *     close, as the collector does);
 *   - where it may not (an archived artefact, a chmod 444 file, a
 *     directory of another user) and no -wal file exists, the file is read
 *     as it is (immutable=1): nothing is created;
 *   - where it may not and a -wal file holds data, read-only through it.
 * A lock held by another connection (a collector committing, another
 * reader opening or closing the same WAL file) is waited for, not taken
 * for an error.
 */
#ifndef AN_DB_OPEN_H
#define AN_DB_OPEN_H

#include <sqlite3.h>
#include <stddef.h>

/* Open path (never created).  Returns 0, or -1 with err ("PATH: cannot
 * open: why", a directory or a missing file said so) and *db NULL. */
int an_db_open_reading(const char *path, sqlite3 **db, char *err, size_t cap);

#endif
