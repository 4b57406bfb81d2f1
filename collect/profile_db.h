/*
 * profile_db.h - the profile database connection: opening it safely
 * (refusing foreign, newer or damaged files before writing a byte),
 * creating and migrating the schema (format/schema.sql), WAL mode and a busy
 * timeout so that several collectors can write one database at once, and
 * small helpers that check every SQLite return code.
 */
#ifndef PULLEY_PROFILE_DB_H
#define PULLEY_PROFILE_DB_H

#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "profile_format.h"

/* PRAGMA application_id of a profile database ("PVMP") and the schema
 * version this collector writes (PRAGMA user_version). */
#define PDB_APPLICATION_ID PVMP_APPLICATION_ID
#define PDB_SCHEMA_VERSION PVMP_SCHEMA_VERSION

typedef struct profile_db {
    sqlite3 *db;
    char *path;           /* a copy of the path opened */
    pthread_mutex_t lock; /* see pp__pdb_lock */
    /* The files opened, recorded once set up, so that close can tell
     * whether the path still names them (file[0]: the database, [1] its
     * -wal, [2] its -shm; known: it existed then). */
    struct pdb_file_id {
        dev_t dev;
        ino_t ino;
        bool known;
    } file[3];
    /* Free pages when opened, and whether to record them
     * (freelist_checked: see check_whole_file). */
    long long free_pages;
    bool mark_freelist;
} profile_db;

/* pp__pdb_close: the path no longer names the database file opened
 * (deleted, renamed or replaced while open): what was written is not in
 * the file at the path. */
enum { PDB_FILE_LOST = -2 };

/* Open or create the database at path, ready for writing.  Returns 0, or
 * -1 with err (and nothing written) for a file that is not a profile
 * database, has a newer schema, or is damaged. */
int pp__pdb_open(profile_db *p, const char *path, char *err, size_t errcap);
/* Close; returns 0, or -1 with err, or PDB_FILE_LOST with err when the
 * path no longer names the file opened: then this connection's -wal and
 * -shm files, if still at the path, are removed (SQLite would otherwise
 * read that WAL into whatever file is at the path later), and the file
 * now at the path is not touched. */
int pp__pdb_close(profile_db *p, char *err, size_t errcap);

/* Threads sharing the connection (the writer's chunks, the catalog
 * written while the program runs, the end of the run) hold it from BEGIN
 * to COMMIT or ROLLBACK, one transaction at a time. */
void pp__pdb_lock(profile_db *p);
void pp__pdb_unlock(profile_db *p);

/* BEGIN IMMEDIATE (waiting for other writers), COMMIT (retrying while
 * busy), ROLLBACK (after a failure; errors ignored). */
int pp__pdb_begin(profile_db *p, char *err, size_t errcap);
int pp__pdb_commit(profile_db *p, char *err, size_t errcap);
void pp__pdb_rollback(profile_db *p);

/* Run SQL text without results. */
int pp__pdb_exec(profile_db *p, const char *sql, char *err, size_t errcap);
/* Prepare one statement. */
int pp__pdb_prepare(profile_db *p, const char *sql, sqlite3_stmt **st, char *err, size_t errcap);
/* Step a bound statement to SQLITE_DONE, then reset it and clear its
 * bindings.  rc is the result of binding it (SQLITE_OK: go on). */
int pp__pdb_run(profile_db *p, sqlite3_stmt *st, int rc, char *err, size_t errcap);
/* The same, keeping the bindings: for a statement whose every parameter
 * is bound again before its next step. */
int pp__pdb_run_rebound(profile_db *p, sqlite3_stmt *st, int rc, char *err, size_t errcap);
/* Finalize; returns -1 with err if the statement's last step failed. */
int pp__pdb_finalize(profile_db *p, sqlite3_stmt *st, char *err, size_t errcap);
/* Set err to "what: SQLite's message" and return -1. */
int pp__pdb_fail(profile_db *p, const char *what, char *err, size_t errcap);

#endif
