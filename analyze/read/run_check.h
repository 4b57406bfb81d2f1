/*
 * run_check.h - is a run read from a profile what the collector wrote?
 * Each of a function's stored instruction rows must be what its code
 * decodes to at that offset (length, opcode), and, in files of schema
 * version 4 on, its checksum (format/func_checksum.h) must match its code and rows: a byte
 * changed anywhere in them is found and named before it is analysed or
 * shown.
 */
#ifndef AN_RUN_CHECK_H
#define AN_RUN_CHECK_H

#include <sqlite3.h>
#include <stddef.h>

#include "isa_table.h"
#include "profile_model.h"

/* Check run (its functions loaded and decoded with isa, sorted by id)
 * against db; has_checksum: the file has functions.checksum;
 * operands_stored: the rows carry operands, which the checksum covers.  Returns 0
 * when intact, 1 when damaged (why names the function and what is wrong),
 * -1 when the database cannot be read (why says why). */
int an_check_run(sqlite3 *db, const an_run *run, const an_isa *isa, int has_checksum,
                 int operands_stored, char *why, size_t cap);

/* Check the rows of `run` its functions are read from and those that
 * name it without being reached through its functions: every functions
 * row has a name and its code is a blob; no exec_counts row names the
 * run with a function id outside every function's (a dangling row the
 * reading would pass over), and, when the run has no exact counts
 * (`exact` 0), no exec_counts row is of one of its functions (a row of
 * another run put on them).  Returns 0, 1 when damaged (why names the
 * row), -1 when the database cannot be read (why says why). */
int an_check_run_rows(sqlite3 *db, int64_t run, int exact, char *why, size_t cap);

#endif
