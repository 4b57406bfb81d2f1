/*
 * test_ngrams_db.h - hand-made profile databases for the pulley-ngrams
 * tests: the real schema (format/schema.sql, read at test time), a small
 * opcode table of the test's own (numbered unlike the compiled-in ISA, so
 * decoding must use the stored table), and an encoder for it.
 */
#ifndef TEST_NGRAMS_DB_H
#define TEST_NGRAMS_DB_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* The test ISA's opcode numbers. */
enum {
    T_JUMP = 1, T_BR_IF_NOT, T_XCONST8, T_XADD64, T_XLT64_S, T_RET, T_CALL, T_BR_TABLE,
    T_XCONST32, T_HEAP_SIZE = 257
};

typedef struct tdb {
    sqlite3 *db;
    char path[64];
} tdb;

typedef struct tcode {
    uint8_t b[256];
    size_t len;
} tcode;

/* A new database with the schema, in a temporary file. */
void tdb_create(tdb *t);
/* Read the database at path into *p (zeroed first) as the tools do by
 * default, leaving out damaged runs when skip_damaged: the runs read, or
 * -1 with err. */
struct an_profile;
int tdb_read(const char *path, int skip_damaged, struct an_profile *p, char *err, size_t cap);
/* Add run `id` (label may be NULL) with the test opcode table: a run that
 * ended with "return" (and holds data once samples or counts are added). */
void tdb_run(tdb *t, int64_t id, const char *label, const char *benchmark, int exact);
/* Add function `id` of run `run` with the code bytes. */
void tdb_function(tdb *t, int64_t run, int64_t id, const char *name, const tcode *c);
/* Samples at an offset (pc_samples, counted in runs.samples_written) or
 * an exact count (exec_counts). */
void tdb_samples(tdb *t, int64_t run, int64_t func, uint32_t off, int64_t n);
void tdb_count(tdb *t, int64_t run, int64_t func, uint32_t off, int64_t n);
/* An instruction row of function func. */
void tdb_instruction(tdb *t, int64_t func, uint32_t off, uint32_t len, unsigned op,
                     const char *text);
/* Any SQL, failing the test when it fails. */
void tdb_exec(tdb *t, const char *sql);
/* Close (keeping the file) and remove the file. */
void tdb_close(tdb *t);
void tdb_remove(tdb *t);

/* Encode an instruction: opcode, registers, immediate bytes. */
void tc_op(tcode *c, unsigned op, unsigned nregs, const unsigned *regs, int64_t imm,
           unsigned imm_bytes);
#define TC0(c, op) tc_op(c, op, 0, NULL, 0, 0)
#define TC1(c, op, a, imm, ib) tc_op(c, op, 1, (const unsigned[]){a}, imm, ib)
#define TC3(c, op, a, b, d) tc_op(c, op, 3, (const unsigned[]){a, b, d}, 0, 0)
void tc_u32(tcode *c, uint32_t v);

#endif
