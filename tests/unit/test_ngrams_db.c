/*
 * test_ngrams_db.c - building small profile databases for the pulley-ngrams
 * unit tests (see test_ngrams_db.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "profile_read.h"
#include "test_ngrams_db.h"

static const struct {
    unsigned id;
    const char *name, *format, *operands;
    unsigned length, flags;
    const char *semantics, *roles;
} ops[] = {
    {T_JUMP, "jump", "REL", "rel32", 5, 3, "pc += imm", ""},
    {T_BR_IF_NOT, "br_if_not", "Xr_REL", "x rel32", 6, 1, "if x[a].32 == 0: pc += imm", "r"},
    {T_XCONST8, "xconst8", "Xw_S8", "x s8", 3, 0, "x[a] = s64(imm)", "w"},
    {T_XADD64, "xadd64", "XwXrXr", "x x x", 3, 0, "x[a] = x[b] + x[c]", "w r r"},
    {T_XLT64_S, "xlt64_s", "XwXrXr", "x x x", 3, 0, "x[a] = s64(x[b]) < s64(x[c])", "w r r"},
    {T_RET, "ret", "NONE", "", 1, 22, "pc = lr", ""},
    {T_CALL, "call", "FUNC", "func", 5, 12, "lr = next pc; pc = entry of function imm", ""},
    {T_BR_TABLE, "br_table", "Xr_TABLE", "x table", 6, 3, "pc += imm[min(u32(x[a]), N-1)]", "r"},
    {T_XCONST32, "xconst32", "Xw_S32", "x s32", 6, 0, "x[a] = s64(imm)", "w"},
    {T_HEAP_SIZE, "heap_size", "Xw", "x", 4, 0, "x[a] = heap size in bytes", "w"},
};

void tdb_exec(tdb *t, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(t->db, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", sql, msg ? msg : "?");
}

void tdb_create(tdb *t)
{
    snprintf(t->path, sizeof t->path, "/tmp/test_ngrams_XXXXXX");
    int fd = mkstemp(t->path);
    assert_true(fd >= 0);
    close(fd);
    FILE *f = fopen(NGRAMS_SCHEMA_SQL, "rb");
    assert_non_null(f);
    static char schema[65536];
    size_t n = fread(schema, 1, sizeof schema - 1, f);
    fclose(f);
    schema[n] = '\0';
    assert_int_equal(sqlite3_open(t->path, &t->db), SQLITE_OK);
    tdb_exec(t, schema);
}

static void run_sql(tdb *t, const char *sql, const int64_t *ints, size_t nints, const char *text,
                    int text_at, const void *blob, size_t blob_len, int blob_at)
{
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(t->db, sql, -1, &st, NULL), SQLITE_OK);
    for (size_t i = 0; i < nints; i++)
        assert_int_equal(sqlite3_bind_int64(st, (int)i + 1, ints[i]), SQLITE_OK);
    if (text_at)
        assert_int_equal(sqlite3_bind_text(st, text_at, text, -1, SQLITE_TRANSIENT), SQLITE_OK);
    if (blob_at)
        assert_int_equal(sqlite3_bind_blob(st, blob_at, blob, (int)blob_len, SQLITE_TRANSIENT),
                         SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_DONE);
    assert_int_equal(sqlite3_finalize(st), SQLITE_OK);
}

void tdb_run(tdb *t, int64_t id, const char *label, const char *benchmark, int exact)
{
    char sql[512];
    snprintf(sql, sizeof sql,
             "INSERT INTO runs (id, label, benchmark, command_line, start_time, sample_hz, exact,"
             " isa_name, isa_hash, collector, end_time, outcome, exit_status, samples_written)"
             " VALUES (?1, %s%s%s, '%s', 'test', '2026-01-01', 1000,"
             " ?2, 'test', '0', 'test', '2026-01-01', 'return', 0, 0)",
             label ? "'" : "", label ? label : "NULL", label ? "'" : "", benchmark);
    run_sql(t, sql, (int64_t[]){id, exact}, 2, NULL, 0, NULL, 0, 0);
    run_sql(t, "INSERT INTO modules (id, run_id, name) VALUES (?1, ?1, 'm')", &id, 1, NULL, 0, NULL, 0, 0);
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        snprintf(sql, sizeof sql,
                 "INSERT INTO opcodes (run_id, id, name, format, operands, length, flags,"
                 " flag_names, semantics, roles) VALUES (?1, ?2, '%s', '%s', '%s', ?3, ?4, '',"
                 " '%s', '%s')",
                 ops[i].name, ops[i].format, ops[i].operands, ops[i].semantics, ops[i].roles);
        run_sql(t, sql, (int64_t[]){id, ops[i].id, ops[i].length, ops[i].flags}, 4, NULL, 0, NULL, 0, 0);
    }
}

void tdb_function(tdb *t, int64_t run, int64_t id, const char *name, const tcode *c)
{
    run_sql(t,
            "INSERT INTO functions (id, run_id, module_id, idx, name, address, size, code)"
            " VALUES (?1, ?2, ?2, ?1, ?5, 4096 * ?1, ?3, ?4)",
            (int64_t[]){id, run, (int64_t)c->len}, 3, name, 5, c->b, c->len, 4);
}

void tdb_samples(tdb *t, int64_t run, int64_t func, uint32_t off, int64_t n)
{
    run_sql(t, "INSERT INTO pc_samples VALUES (?1, ?2, ?3, 4096 * ?2 + ?3, ?4)",
            (int64_t[]){run, func, off, n}, 4, NULL, 0, NULL, 0, 0);
    run_sql(t, "UPDATE runs SET samples_written = samples_written + ?2 WHERE id = ?1",
            (int64_t[]){run, n}, 2, NULL, 0, NULL, 0, 0);
}

void tdb_instruction(tdb *t, int64_t func, uint32_t off, uint32_t len, unsigned op,
                     const char *text)
{
    run_sql(t, "INSERT INTO instructions (function_id, offset, length, opcode, text)"
               " VALUES (?1, ?2, ?3, ?4, ?5)",
            (int64_t[]){func, off, len, op}, 4, text, 5, NULL, 0, 0);
}

void tdb_count(tdb *t, int64_t run, int64_t func, uint32_t off, int64_t n)
{
    run_sql(t, "INSERT INTO exec_counts VALUES (?1, ?2, ?3, ?4)", (int64_t[]){run, func, off, n}, 4,
            NULL, 0, NULL, 0, 0);
}

void tdb_close(tdb *t)
{
    assert_int_equal(sqlite3_close(t->db), SQLITE_OK);
    t->db = NULL;
}

void tdb_remove(tdb *t)
{
    unlink(t->path);
}

void tc_op(tcode *c, unsigned op, unsigned nregs, const unsigned *regs, int64_t imm,
           unsigned imm_bytes)
{
    if (op >= 256) {
        c->b[c->len++] = 0xFF;
        c->b[c->len++] = (uint8_t)(op - 256);
        c->b[c->len++] = (uint8_t)((op - 256) >> 8);
    } else {
        c->b[c->len++] = (uint8_t)op;
    }
    uint32_t pack = 0;
    for (unsigned i = 0; i < nregs; i++)
        pack |= regs[i] << (5 * i);
    for (unsigned i = 0; i < (nregs * 5 + 7) / 8; i++)
        c->b[c->len++] = (uint8_t)(pack >> (8 * i));
    for (unsigned i = 0; i < imm_bytes; i++)
        c->b[c->len++] = (uint8_t)((uint64_t)imm >> (8 * i));
}

void tc_u32(tcode *c, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        c->b[c->len++] = (uint8_t)(v >> (8 * i));
}

int tdb_read(const char *path, int skip_damaged, an_profile *p, char *err, size_t cap)
{
    an_runsel sel;
    an_runsel_init(&sel);
    sel.skip_damaged = skip_damaged;
    memset(p, 0, sizeof *p);
    char *paths[] = {(char *)path};
    return an_profile_read_all(p, paths, 1, &sel, err, cap);
}
