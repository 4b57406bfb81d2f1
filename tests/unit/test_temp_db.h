/*
 * test_temp_db.h - the profile database of a test process: a path in /tmp
 * named after the test and the process, removed with its -wal and -shm
 * files before and after each test.
 */
#ifndef TEST_TEMP_DB_H
#define TEST_TEMP_DB_H

#include <stdio.h>
#include <unistd.h>

static char db_path[64];

/* Remove the database and its side files. */
static inline void temp_db_remove(void)
{
    char side[96];
    unlink(db_path);
    snprintf(side, sizeof side, "%s-wal", db_path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", db_path);
    unlink(side);
}

/* Name it after `test` and start without one. */
static inline void temp_db_start(const char *test)
{
    snprintf(db_path, sizeof db_path, "/tmp/%s_%d.db", test, (int)getpid());
    temp_db_remove();
}

#endif
