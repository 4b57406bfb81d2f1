/*
 * test_collect_agent.c - the profiling agent against a synthetic VM: a
 * thread whose PC slot follows a known pattern in time, so the sampled
 * histogram must match it; sample accounting (taken = written + dropped,
 * count ~ duration x rate); two agents writing one database at once; and
 * databases that are foreign, newer or damaged are refused untouched.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <pthread.h>
#include <sqlite3.h>
#include <time.h>
#include <unistd.h>

#include "profile_agent.h"

/* ---- a synthetic instruction set: every instruction is 4 bytes ---------- */

static const pvm_agent_opcode synth_ops[] = {
    {0, "op", "X", "x", 4, 0, "", "a := a"},
};

static int synth_decode(const void *ctx, const uint8_t *code, size_t size, size_t off,
                        unsigned *length, unsigned *opcode, char *text, size_t cap)
{
    (void)ctx, (void)code;
    if (size - off < 4)
        return -1;
    *length = 4;
    *opcode = 0;
    snprintf(text, cap, "op x%zu", off / 4);
    return 0;
}

static const pvm_agent_isa synth_isa = {"synthetic", 42, synth_ops, 1, synth_decode};

enum { HOT = 0x10000, HZ = 10000 };

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The synthetic VM: for `ms` milliseconds its slot holds HOT + 0, + 4,
 * + 8 and 0 (host) in turn, one millisecond each. */
typedef struct synth_vm {
    _Atomic(uintptr_t) slot;
    unsigned ms;
} synth_vm;

static void *synth_vm_main(void *arg)
{
    synth_vm *vm = arg;
    uint64_t t0 = now_ns(), end = t0 + vm->ms * 1000000ull;
    for (uint64_t t = t0; t < end; t = now_ns()) {
        unsigned phase = (unsigned)((t - t0) / 1000000u % 4);
        atomic_store_explicit(&vm->slot, phase == 3 ? 0 : HOT + 4 * phase, memory_order_relaxed);
    }
    atomic_store_explicit(&vm->slot, 0, memory_order_relaxed);
    return NULL;
}

static char db_path[64];

static int setup(void **state)
{
    (void)state;
    snprintf(db_path, sizeof db_path, "/tmp/test_collect_agent_%d.db", (int)getpid());
    unlink(db_path);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char side[96];
    unlink(db_path);
    snprintf(side, sizeof side, "%s-wal", db_path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", db_path);
    unlink(side);
    return 0;
}

/* Run the synthetic VM for ms milliseconds under a new agent. */
static pvm_agent_summary profile_synth_vm(const char *label, unsigned ms)
{
    char err[512] = "";
    pvm_agent_config cfg = {.db_path = db_path, .sample_hz = HZ, .isa = &synth_isa,
                            .label = label, .command_line = "test"};
    pvm_agent *a = pvm_agent_open(&cfg, err, sizeof err);
    if (!a)
        fail_msg("%s", err);
    static const uint8_t code[16];
    int mod = pvm_agent_register_module(a, "synthetic", NULL);
    assert_true(mod >= 0);
    assert_true(pvm_agent_register_function(a, mod, 0, "hot", HOT, code, sizeof code) >= 0);
    synth_vm vm = {.ms = ms};
    atomic_init(&vm.slot, 0);
    assert_int_equal(pvm_agent_register_slot(a, &vm.slot), 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, synth_vm_main, &vm), 0);
    pthread_join(t, NULL);
    assert_int_equal(pvm_agent_unregister_slot(a, &vm.slot), 0);
    pvm_agent_set_outcome(a, "return", 0);
    pvm_agent_summary s;
    if (pvm_agent_close(a, &s, err, sizeof err) != 0)
        fail_msg("%s", err);
    return s;
}

static int64_t query(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static void the_histogram_follows_the_vm_pattern(void **state)
{
    (void)state;
    pvm_agent_summary s = profile_synth_vm("pattern", 600);
    assert_int_equal(s.samples_taken, s.samples_written + s.samples_dropped);
    assert_int_equal(s.samples_dropped, 0);
    /* Every deadline is sampled or counted as missed, none twice. */
    double expected = (double)s.sampled_ns * HZ / 1e9;
    double accounted = (double)(s.samples_taken + s.ticks_missed);
    if (accounted < 0.9 * expected - 2 || accounted > 1.02 * expected + 2 ||
        s.samples_taken < 0.1 * expected)
        fail_msg("%llu samples + %llu missed, expected about %.0f",
                 (unsigned long long)s.samples_taken, (unsigned long long)s.ticks_missed, expected);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    int64_t total = query(db, "SELECT sum(samples) FROM pc_samples");
    assert_int_equal(total, (int64_t)s.samples_written);
    static const char *const buckets[] = {
        "SELECT coalesce(sum(samples), 0) FROM pc_samples WHERE offset = 0",
        "SELECT coalesce(sum(samples), 0) FROM pc_samples WHERE offset = 4",
        "SELECT coalesce(sum(samples), 0) FROM pc_samples WHERE offset = 8",
        "SELECT coalesce(sum(samples), 0) FROM pc_samples WHERE function_id IS NULL",
    };
    for (size_t i = 0; i < 4; i++) {
        double share = (double)query(db, buckets[i]) / (double)total;
        /* Wide: on a loaded machine the VM thread is sometimes descheduled
         * and its slot keeps one value for a time slice. */
        if (share < 0.12 || share > 0.40)
            fail_msg("bucket %zu has %.3f of the samples, expected 0.25", i, share);
    }
    /* Every bytecode sample is at an instruction start. */
    assert_int_equal(query(db, "SELECT count(*) FROM pc_samples p WHERE p.function_id IS NOT NULL"
                               " AND NOT EXISTS (SELECT 1 FROM instructions i WHERE"
                               " i.function_id = p.function_id AND i.offset = p.offset)"),
                     0);
    assert_int_equal(query(db, "SELECT count(*) FROM runs WHERE end_time IS NOT NULL"), 1);
    assert_int_equal(query(db, "SELECT sum(sample_count) FROM sample_chunks"),
                     (int64_t)s.samples_written);
    sqlite3_close(db);
}

static void *concurrent_run(void *arg)
{
    *(pvm_agent_summary *)arg = profile_synth_vm("concurrent", 150);
    return NULL;
}

static void two_agents_write_one_database_at_once(void **state)
{
    (void)state;
    pvm_agent_summary s[2];
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, concurrent_run, &s[i]), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    assert_int_equal(query(db, "SELECT count(*) FROM runs WHERE end_time IS NOT NULL"), 2);
    assert_int_equal(query(db, "SELECT sum(sample_count) FROM sample_chunks"),
                     (int64_t)(s[0].samples_written + s[1].samples_written));
    assert_int_equal(query(db, "SELECT sum(samples_written) FROM runs"),
                     (int64_t)(s[0].samples_written + s[1].samples_written));
    sqlite3_close(db);
}

/* ---- refusing databases that are not ours ------------------------------ */

static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char *buf = malloc(1 << 20);
    assert_non_null(buf);
    *size = fread(buf, 1, 1 << 20, f);
    fclose(f);
    return buf;
}

/* pvm_agent_open refuses db_path with a message containing `why`, and the
 * file is byte for byte what it was. */
static void assert_refused(const char *why)
{
    size_t before_size, after_size;
    unsigned char *before = slurp(db_path, &before_size);
    char err[512] = "";
    pvm_agent_config cfg = {.db_path = db_path, .isa = &synth_isa};
    pvm_agent *a = pvm_agent_open(&cfg, err, sizeof err);
    assert_null(a);
    if (!strstr(err, why))
        fail_msg("error \"%s\" does not say \"%s\"", err, why);
    unsigned char *after = slurp(db_path, &after_size);
    assert_int_equal(before_size, after_size);
    assert_memory_equal(before, after, before_size);
    free(before);
    free(after);
}

static void make_db(const char *sql)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

static void a_foreign_database_is_refused(void **state)
{
    (void)state;
    make_db("CREATE TABLE accounts (id INTEGER, balance REAL); INSERT INTO accounts VALUES (1, 2)");
    assert_refused("not a pulley profile database");
}

static void a_newer_schema_is_refused(void **state)
{
    (void)state;
    make_db("PRAGMA application_id = 1347833168; PRAGMA user_version = 99;"
            " CREATE TABLE runs (id INTEGER PRIMARY KEY)");
    assert_refused("newer");
}

static void a_file_that_is_not_sqlite_is_refused(void **state)
{
    (void)state;
    FILE *f = fopen(db_path, "wb");
    assert_non_null(f);
    for (int i = 0; i < 200; i++)
        fputs("this is a text file, not a database\n", f);
    fclose(f);
    assert_refused("not a database");
}

static void a_damaged_profile_database_is_refused(void **state)
{
    (void)state;
    profile_synth_vm("to be damaged", 50);
    /* Overwrite the middle of page 3 (a table's b-tree page) with junk. */
    FILE *f = fopen(db_path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, 2 * 4096 + 8, SEEK_SET), 0);
    for (int i = 0; i < 64; i++)
        fputc(0xA5, f);
    fclose(f);
    assert_refused("damaged");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(the_histogram_follows_the_vm_pattern, setup, teardown),
        cmocka_unit_test_setup_teardown(two_agents_write_one_database_at_once, setup, teardown),
        cmocka_unit_test_setup_teardown(a_foreign_database_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(a_newer_schema_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(a_file_that_is_not_sqlite_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(a_damaged_profile_database_is_refused, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
