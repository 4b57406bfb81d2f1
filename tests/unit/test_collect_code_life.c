/*
 * test_collect_code_life.c - code that lives and dies during a run, as
 * garbage-collected interpreters' code does: a function unregistered is
 * still stored with the run (decoded with its own decode context before
 * the call returned, though the interpreter then overwrites its code and
 * context), its samples stay its own and its late exact counts are taken;
 * a function later registered at its address is stored at a fresh range,
 * the run's stored ranges never overlap, and the sampler places the new
 * function's samples there.  Without unregistering, every function is
 * stored at its own address.  Live ranges against a brute-force model
 * (registration refused exactly when it overlaps a live function).  And
 * the implicit register ranges of the opcode table are stored with the
 * run; only tables with some hash them.
 *
 * Samples come from a reader whose value the test sets, and each phase
 * waits (at most a minute) for the sampler to have called it enough:
 * nothing depends on how fast the machine is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sqlite3.h>
#include <time.h>
#include <unistd.h>

#include "test_reg_isa.h"
#include "test_temp_db.h"

static int setup(void **state)
{
    (void)state;
    temp_db_start("test_collect_code_life");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    temp_db_remove();
    return 0;
}

static pulleyprof_agent *open_isa(const pulleyprof_isa *isa)
{
    char err[512] = "";
    pulleyprof_config cfg = {.db_path = db_path, .isa = isa, .command_line = "test"};
    pulleyprof_agent *a = pulleyprof_open(&cfg, err, sizeof err);
    if (!a)
        fail_msg("%s", err);
    return a;
}

static pulleyprof_summary close_ok(pulleyprof_agent *a)
{
    pulleyprof_summary s;
    char err[512] = "";
    pulleyprof_set_outcome(a, "return", 0);
    if (pulleyprof_close(a, &s, err, sizeof err) != 0)
        fail_msg("close: %s", err);
    return s;
}

static int64_t query(const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(db));
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* Stored ranges of one run that overlap another's. */
static const char overlapping[] =
    "SELECT count(*) FROM functions f JOIN functions g ON f.run_id = g.run_id AND f.id < g.id"
    " WHERE f.address < g.address + g.size AND g.address < f.address + f.size";

/* ---- a reader the test steers -------------------------------------------- */

typedef struct steered {
    _Atomic(uintptr_t) pc;
    atomic_int calls;
} steered;

static uintptr_t read_steered(void *ctx)
{
    steered *s = ctx;
    atomic_fetch_add(&s->calls, 1);
    return atomic_load(&s->pc);
}

/* Hold pc until the sampler has read it `reads` times more (at most a
 * minute), then 0 until it has read that twice: no read of pc is then
 * still on its way. */
static void hold(steered *s, uintptr_t pc, int reads)
{
    atomic_store(&s->pc, pc);
    int from = atomic_load(&s->calls);
    for (int i = 0; i < 6000 && atomic_load(&s->calls) < from + reads + 2; i++)
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    atomic_store(&s->pc, 0);
    from = atomic_load(&s->calls);
    for (int i = 0; i < 6000 && atomic_load(&s->calls) < from + 2; i++)
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    assert_true(atomic_load(&s->calls) >= from + 2);
}

enum { AT = 0x50000 };

static void code_that_dies_keeps_what_the_run_recorded(void **state)
{
    (void)state;
    pulleyprof_agent *a = open_isa(&reg_isa);
    int mod = pulleyprof_register_module(a, "chunks", "module-k");
    uint8_t *code = malloc(sizeof reg_code);
    char *ctx = strdup("first-k");
    assert_non_null(code);
    assert_non_null(ctx);
    memcpy(code, reg_code, sizeof reg_code);
    pulleyprof_function first = {.module = mod, .name = "first", .address = AT, .code = code,
                                 .size = sizeof reg_code, .decode_ctx = ctx};
    int f1 = pulleyprof_add_function(a, &first);
    assert_true(f1 >= 0);
    static steered s;
    assert_int_equal(pulleyprof_register_reader(a, read_steered, &s), 0);
    hold(&s, AT + 3, 20); /* first's add */

    /* first dies: its code and context are overwritten, other code comes
     * to its address. */
    assert_int_equal(pulleyprof_unregister_function(a, f1), 0);
    memset(code, 0xff, sizeof reg_code);
    memset(ctx, 'x', strlen(ctx));
    code[0] = R_RET;
    pulleyprof_function second = {.module = mod, .name = "second", .address = AT, .code = code,
                                  .size = 1};
    int f2 = pulleyprof_add_function(a, &second);
    assert_true(f2 > f1);
    assert_int_equal(pulleyprof_add_exec_count(a, f1, 7, 3), 0); /* reported late */
    hold(&s, AT, 20);                                           /* second's ret */
    assert_int_equal(pulleyprof_unregister_reader(a, read_steered, &s), 0);
    pulleyprof_summary sum = close_ok(a);
    free(code);
    free(ctx);

    assert_int_equal(sum.samples_unattributed, 0);
    assert_int_equal(query("SELECT address FROM functions WHERE name = 'first'"), AT);
    int64_t moved = query("SELECT address FROM functions WHERE name = 'second'");
    if (UINTPTR_MAX > 0xFFFFFFFFu)
        assert_true(moved >= (int64_t)1 << 62);
    else
        assert_true(moved != AT);
    assert_int_equal(query(overlapping), 0);
    /* Each one's code and rows as registered, each decoded with its context. */
    assert_int_equal(query("SELECT count(*) FROM instructions i JOIN functions f"
                           " ON f.id = i.function_id WHERE f.name = 'first'"
                           " AND i.text LIKE '% ; first-k'"),
                     6);
    assert_int_equal(query("SELECT hex(code) = '" /* reg_code */
                           "00010501020101020002010302F50404' FROM functions WHERE name = 'first'"),
                     1);
    assert_int_equal(query("SELECT text = 'ret ; module-k' FROM instructions i JOIN functions f"
                           " ON f.id = i.function_id WHERE f.name = 'second'"),
                     1);
    /* Samples: first's at its add, second's at its ret, none elsewhere. */
    assert_true(query("SELECT sum(samples) FROM pc_samples p JOIN functions f"
                      " ON f.id = p.function_id WHERE f.name = 'first' AND p.offset = 3") >= 20);
    assert_true(query("SELECT sum(samples) FROM pc_samples p JOIN functions f"
                      " ON f.id = p.function_id WHERE f.name = 'second' AND p.offset = 0"
                      " AND p.pc = f.address") >= 20);
    assert_int_equal(query("SELECT count(*) FROM pc_samples WHERE pc <> 0 AND (function_id IS NULL"
                           " OR (offset, function_id) NOT IN (SELECT 3, id FROM functions WHERE"
                           " name = 'first' UNION SELECT 0, id FROM functions WHERE"
                           " name = 'second'))"),
                     0);
    assert_int_equal(query("SELECT count FROM exec_counts e JOIN functions f ON f.id = e.function_id"
                           " WHERE f.name = 'first' AND e.offset = 7"),
                     3);
}

static void replacing_code_moves_only_what_reuses_an_address(void **state)
{
    (void)state;
    pulleyprof_agent *a = open_isa(&reg_isa);
    int mod = pulleyprof_register_module(a, "m", NULL);
    int f = -1;
    for (uint32_t i = 0; i < 3; i++) { /* side by side: stored where they are */
        char name[16];
        snprintf(name, sizeof name, "side%u", i);
        f = pulleyprof_register_function(a, mod, i, name, AT + 16 * i, reg_code, 16);
        assert_true(f >= 0);
    }
    for (uint32_t i = 0; i < 3; i++) { /* one address, three generations */
        char name[16];
        snprintf(name, sizeof name, "gen%u", i);
        pulleyprof_function g = {.module = mod, .index = 10 + i, .name = name,
                                 .address = AT + 16, .code = reg_code, .size = 8 + 4 * i};
        f = pulleyprof_replace_function(a, i ? f : 1, &g);
        assert_true(f >= 0);
    }
    close_ok(a);
    assert_int_equal(query("SELECT count(*) FROM functions"), 6);
    assert_int_equal(query("SELECT count(*) FROM functions WHERE address = 327680 + 16 * substr(name, 5)"
                           " AND name LIKE 'side%'"),
                     3);
    assert_int_equal(query("SELECT count(*) FROM functions WHERE name LIKE 'gen%'"
                           " AND address NOT BETWEEN 327680 AND 327680 + 48"),
                     3);
    assert_int_equal(query(overlapping), 0);
}

/* Live ranges against a model: many functions registered at random,
 * half of them unregistered, then every probe is refused exactly when it
 * overlaps a live one. */
enum { SLOTS = 600, PROBES = 3000 };

static void registration_is_refused_exactly_on_live_overlap(void **state)
{
    (void)state;
    pulleyprof_agent *a = open_isa(&reg_isa);
    int mod = pulleyprof_register_module(a, "m", NULL);
    static int handle[SLOTS];
    static uint8_t live[SLOTS * 4]; /* per 4 bytes of [AT, AT + 4 * SLOTS * 4) */
    static uint8_t rets[32];        /* code for any size registered */
    memset(rets, R_RET, sizeof rets);
    uint32_t seed = 12345;
#define NEXT() (seed = seed * 1103515245u + 12345u, seed >> 8)
    for (int i = 0; i < SLOTS; i++) { /* function i at AT + 16 * i, 4 to 16 bytes */
        size_t size = 4 * (1 + NEXT() % 4);
        handle[i] = pulleyprof_register_function(a, mod, (uint32_t)i, "f", AT + 16 * (uintptr_t)i,
                                                 rets, size);
        assert_true(handle[i] >= 0);
        memset(&live[4 * i], 1, size / 4);
    }
    for (int i = 0; i < SLOTS; i++)
        if (NEXT() % 2) {
            assert_int_equal(pulleyprof_unregister_function(a, handle[i]), 0);
            memset(&live[4 * i], 0, 4);
        }
    for (int p = 0; p < PROBES; p++) {
        size_t from = NEXT() % (SLOTS * 4), len = 1 + NEXT() % 8;
        if (from + len > SLOTS * 4)
            len = SLOTS * 4 - from;
        int overlaps = 0;
        for (size_t k = from; k < from + len; k++)
            overlaps |= live[k];
        int h = pulleyprof_register_function(a, mod, 0, "probe", AT + 4 * (uintptr_t)from, rets,
                                             4 * len);
        if ((h < 0) != overlaps)
            fail_msg("probe [%zu, +%zu): %s", 4 * from, 4 * len,
                     h < 0 ? pulleyprof_last_error() : "accepted over a live function");
        if (h >= 0)
            assert_int_equal(pulleyprof_unregister_function(a, h), 0);
    }
#undef NEXT
    close_ok(a);
    assert_int_equal(query(overlapping), 0);
}

static void implicit_ranges_are_stored_with_the_run(void **state)
{
    (void)state;
    close_ok(open_isa(&reg_isa));
    pulleyprof_opcode plain[R_NOPS];
    memcpy(plain, reg_ops, sizeof plain);
    plain[R_CALL].implicit = NULL;
    plain[R_CALL].nimplicit = 0;
    pulleyprof_isa without = reg_isa;
    without.opcodes = plain;
    close_ok(open_isa(&without));
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT group_concat(opcode || ':' || n || ':' || access ||"
                                        " ':' || base || ':' || offset || ':' || count_imm || ':' ||"
                                        " count_add || ':' || open_if_zero, ' ') FROM"
                                        " (SELECT * FROM register_ranges WHERE run_id = 1"
                                        " ORDER BY opcode, n)",
                                        -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), "2:0:1:0:0:0:-1:1 2:1:2:0:0:1:-2:1");
    sqlite3_finalize(st);
    sqlite3_close(db);
    assert_int_equal(query("SELECT count(*) FROM register_ranges WHERE run_id = 2"), 0);
    /* The table without ranges hashes as the version 8 library hashed it;
     * the ranges change the hash. */
    assert_int_equal(query("SELECT isa_hash = 'badd5c625859ee0c' FROM runs WHERE id = 2"), 1);
    assert_int_equal(query("SELECT count(DISTINCT isa_hash) FROM runs"), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(code_that_dies_keeps_what_the_run_recorded, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(replacing_code_moves_only_what_reuses_an_address, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(registration_is_refused_exactly_on_live_overlap, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(implicit_ranges_are_stored_with_the_run, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
