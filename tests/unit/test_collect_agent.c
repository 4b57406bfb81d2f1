/*
 * test_collect_agent.c - the profiling agent against a synthetic VM: a
 * thread whose PC slot cycles through a known set of values, so the
 * stored histogram must be that of the stored samples and hold only those
 * values; the histogram filled directly (each pc once, with the sum of its
 * counts); sample accounting (taken = written + dropped; the stored ticks
 * increase, their gaps are deadlines counted as missed, and no more
 * deadlines are accounted than the sampled time holds); exact counts of
 * transfers inside and between functions, and counts that cannot be
 * attributed; functions written while the program runs (those registered
 * before its first slot) or at its end, each once; two agents writing one
 * database at once; databases that are foreign, newer or damaged are
 * refused untouched; and a file is read whole only while its freelist has
 * not been checked.
 *
 * Nothing here depends on how busy the machine is: how many samples land,
 * and on which value, is up to the scheduler, so what is checked holds for
 * any number of them (none included): the histogram against the samples
 * stored, the accounting against the sampler's own counts and the stored
 * ticks.  How closely the shares of samples follow the time each value was
 * held is a measurement, not a property of the code.
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

#include <pulley/profile.h>
#include "pc_hist.h"
#include "sample_codec.h"
#include "test_temp_db.h"

/* ---- a synthetic instruction set: every instruction is 4 bytes ---------- */

static const pulleyprof_opcode synth_ops[] = {
    {.id = 0, .name = "op", .format = "X", .operands = "x", .roles = "rw", .length = 4,
     .flags = 0, .semantics = "a := a"},
};

static int synth_decode(const void *ctx, const uint8_t *code, size_t size, size_t off,
                        pulleyprof_insn *insn)
{
    (void)ctx, (void)code;
    if (size - off < 4)
        return -1;
    insn->length = 4;
    insn->opcode = 0;
    insn->nregs = 1;
    insn->regs[0] = (uint32_t)(off / 4 % 32);
    snprintf(insn->text, insn->text_cap, "op x%u", insn->regs[0]);
    return 0;
}

static const pulleyprof_isa synth_isa = {
    .name = "synthetic", .hash = 42, .opcodes = synth_ops, .nopcodes = 1, .decode = synth_decode};

enum { HOT = 0x10000, HZ = 10000, PHASES = 4 };

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The synthetic VM: registers its slot, then for `ms` milliseconds holds
 * HOT + 0, + 4, + 8 and 0 (host) in turn in it, one millisecond each; then
 * stores 0 and unregisters.  Its slot never holds any other value. */
typedef struct synth_vm {
    pulleyprof_agent *agent;
    _Atomic(uintptr_t) slot;
    unsigned ms;
    int registered, unregistered; /* 0: done */
} synth_vm;

/* The phase (3: host) of a value the synthetic VM stores, or PHASES. */
static unsigned phase_of(uint64_t pc)
{
    if (pc == 0)
        return 3;
    return pc >= HOT && pc < HOT + 4 * 3 && pc % 4 == 0 ? (unsigned)(pc - HOT) / 4 : PHASES;
}

static void *synth_vm_main(void *arg)
{
    synth_vm *vm = arg;
    vm->registered = pulleyprof_register_slot(vm->agent, &vm->slot);
    uint64_t t0 = now_ns(), end = t0 + vm->ms * 1000000ull;
    for (uint64_t t = t0; t < end; t = now_ns()) {
        unsigned phase = (unsigned)((t - t0) / 1000000u % PHASES);
        atomic_store_explicit(&vm->slot, phase == 3 ? 0 : HOT + 4 * phase, memory_order_relaxed);
    }
    atomic_store_explicit(&vm->slot, 0, memory_order_relaxed);
    vm->unregistered = pulleyprof_unregister_slot(vm->agent, &vm->slot);
    return NULL;
}

static int setup(void **state)
{
    (void)state;
    temp_db_start("test_collect_agent");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    temp_db_remove();
    return 0;
}

static pulleyprof_agent *open_agent(const char *label, int exact)
{
    char err[512] = "";
    pulleyprof_config cfg = {.db_path = db_path, .sample_hz = HZ, .isa = &synth_isa,
                            .label = label, .command_line = "test", .exact = exact};
    pulleyprof_agent *a = pulleyprof_open(&cfg, err, sizeof err);
    if (!a)
        fail_msg("%s", err);
    return a;
}

/* Run the synthetic VM (vm->ms set) under a new agent. */
static pulleyprof_summary profile_synth_vm(const char *label, synth_vm *vm)
{
    pulleyprof_agent *a = open_agent(label, 0);
    static const uint8_t code[16];
    int mod = pulleyprof_register_module(a, "synthetic", NULL);
    assert_true(mod >= 0);
    assert_true(pulleyprof_register_function(a, mod, 0, "hot", HOT, code, sizeof code) >= 0);
    vm->agent = a;
    atomic_init(&vm->slot, 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, synth_vm_main, vm), 0);
    pthread_join(t, NULL);
    assert_int_equal(vm->registered, 0);
    assert_int_equal(vm->unregistered, 0);
    pulleyprof_set_outcome(a, "return", 0);
    pulleyprof_summary s;
    char err[512] = "";
    if (pulleyprof_close(a, &s, err, sizeof err) != 0)
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

/* Every sample of run 1, decoded from its chunks in order; checks each
 * chunk's sample count and first and last time. */
static sample_rec *stored_samples(sqlite3 *db, size_t *n)
{
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT data, sample_count, first_ns, last_ns, encoding"
                                        " FROM sample_chunks WHERE run_id = 1 ORDER BY seq",
                                        -1, &st, NULL),
                     SQLITE_OK);
    sample_rec *all = NULL;
    *n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        sample_rec *recs;
        size_t m;
        char err[256];
        if (sample_decode(sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0), &recs,
                          &m, err, sizeof err) != 0)
            fail_msg("%s", err);
        assert_string_equal((const char *)sqlite3_column_text(st, 4), SAMPLE_ENCODING);
        assert_int_equal(m, sqlite3_column_int64(st, 1));
        assert_true(m > 0);
        const uint64_t period = 1000000000u / HZ;
        assert_int_equal(recs[0].tick * period, sqlite3_column_int64(st, 2));
        assert_int_equal(recs[m - 1].tick * period, sqlite3_column_int64(st, 3));
        sample_rec *grown = realloc(all, (*n + m) * sizeof *all);
        assert_non_null(grown);
        all = grown;
        memcpy(all + *n, recs, m * sizeof *recs);
        *n += m;
        free(recs);
    }
    sqlite3_finalize(st);
    return all;
}

/* pc_hist filled directly: across the growths of its table, every pc has
 * one entry, with the sum of the counts added for it (pc 0 too). */
static void the_histogram_counts_each_pc_once(void **state)
{
    (void)state;
    enum { NPCS = 5000, ROUNDS = 3 };
    pc_hist h = {0};
    for (uint64_t round = 1; round <= ROUNDS; round++) {
        for (uint64_t i = 0; i < NPCS; i++)
            assert_int_equal(pp__pc_hist_add(&h, HOT + 4 * i, round), 0);
        assert_int_equal(pp__pc_hist_add(&h, 0, 1), 0);
    }
    assert_int_equal(h.used, NPCS + 1);
    assert_true(2 * h.used <= h.cap); /* grown at half full */
    size_t seen = 0;
    for (size_t j = 0; j < h.cap; j++) {
        const pc_hist_entry *e = &h.slots[j];
        if (!e->count)
            continue;
        seen++;
        if (e->pc == 0) {
            assert_int_equal(e->count, ROUNDS);
            continue;
        }
        if (e->pc < HOT || (e->pc - HOT) % 4 || (e->pc - HOT) / 4 >= NPCS)
            fail_msg("pc 0x%llx was never added", (unsigned long long)e->pc);
        assert_int_equal(e->count, ROUNDS * (ROUNDS + 1) / 2);
    }
    assert_int_equal(seen, NPCS + 1);
    pp__pc_hist_free(&h);
    assert_null(h.slots);
    assert_int_equal(h.cap, 0);
}

static void the_histogram_follows_the_vm_pattern(void **state)
{
    (void)state;
    synth_vm *vm = calloc(1, sizeof *vm);
    assert_non_null(vm);
    vm->ms = 600;
    pulleyprof_summary s = profile_synth_vm("pattern", vm);
    assert_int_equal(s.samples_taken, s.samples_written + s.samples_dropped);
    assert_int_equal(s.samples_dropped, 0);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);

    /* One slot: one sample per deadline sampled, ticks increasing; every
     * deadline skipped between two samples was counted as missed, and the
     * deadlines accounted for fit in the time sampled. */
    size_t n;
    sample_rec *recs = stored_samples(db, &n);
    assert_int_equal(n, s.samples_written);
    uint64_t gaps = 0;
    for (size_t i = 1; i < n; i++) {
        if (recs[i].tick <= recs[i - 1].tick)
            fail_msg("tick %llu after tick %llu", (unsigned long long)recs[i].tick,
                     (unsigned long long)recs[i - 1].tick);
        gaps += recs[i].tick - recs[i - 1].tick - 1;
    }
    if (gaps > s.ticks_missed)
        fail_msg("%llu deadlines skipped between samples, only %llu counted as missed",
                 (unsigned long long)gaps, (unsigned long long)s.ticks_missed);
    double deadlines = (double)s.sampled_ns * HZ / 1e9;
    if ((double)(s.samples_taken + s.ticks_missed) > deadlines + 2)
        fail_msg("%llu samples + %llu missed deadlines in %.0f deadlines' time",
                 (unsigned long long)s.samples_taken, (unsigned long long)s.ticks_missed,
                 deadlines);
    assert_true(s.sampled_ns >= vm->ms * 1000000ull); /* registered while the VM ran */

    /* Every stored sample holds a value the VM stored, and the histogram
     * counts exactly the stored samples of each value: no other rows. */
    uint64_t count[PHASES] = {0};
    for (size_t i = 0; i < n; i++) {
        unsigned p = phase_of(recs[i].pc);
        if (p == PHASES)
            fail_msg("a sample of pc 0x%llx, which the VM never stored",
                     (unsigned long long)recs[i].pc);
        count[p]++;
    }
    free(recs);
    int64_t total = query(db, "SELECT coalesce(sum(samples), 0) FROM pc_samples");
    assert_int_equal(total, (int64_t)s.samples_written);
    static const char *const buckets[PHASES] = {
        "SELECT coalesce(sum(samples), 0) FROM pc_samples WHERE offset = 0",
        "SELECT coalesce(sum(samples), 0) FROM pc_samples WHERE offset = 4",
        "SELECT coalesce(sum(samples), 0) FROM pc_samples WHERE offset = 8",
        "SELECT coalesce(sum(samples), 0) FROM pc_samples WHERE function_id IS NULL",
    };
    for (size_t i = 0; i < PHASES; i++)
        assert_int_equal(query(db, buckets[i]), (int64_t)count[i]);
    assert_int_equal(query(db, "SELECT count(*) FROM pc_samples WHERE NOT"
                               " (function_id IS NULL AND pc = 0) AND NOT"
                               " (function_id = (SELECT id FROM functions WHERE name = 'hot')"
                               "  AND offset IN (0, 4, 8) AND pc - offset = 65536)"), /* HOT */
                     0);
    /* Every bytecode sample is at an instruction start. */
    assert_int_equal(query(db, "SELECT count(*) FROM pc_samples p WHERE p.function_id IS NOT NULL"
                               " AND NOT EXISTS (SELECT 1 FROM instructions i WHERE"
                               " i.function_id = p.function_id AND i.offset = p.offset)"),
                     0);
    assert_int_equal(query(db, "SELECT count(*) FROM pc_samples WHERE function_id IS NULL AND pc <> 0"),
                     0);
    assert_int_equal(query(db, "SELECT count(*) FROM runs WHERE end_time IS NOT NULL"), 1);
    assert_int_equal(query(db, "SELECT samples_taken + ticks_missed FROM runs"),
                     (int64_t)(s.samples_taken + s.ticks_missed));
    assert_int_equal(query(db, "SELECT sum(sample_count) FROM sample_chunks"),
                     (int64_t)s.samples_written);
    sqlite3_close(db);
    free(vm);
}

/* ---- exact counts ------------------------------------------------------- */

/* Transfers inside a function and between two are stored with their target
 * function (summed when reported twice); counts that name no registered
 * function or an offset that is no instruction start of it are refused at
 * the call, naming what was wrong, and counted; the run stays whole. */
static void transfer_counts_are_stored_with_their_target(void **state)
{
    (void)state;
    pulleyprof_agent *a = open_agent("exact", 1);
    static const uint8_t code[16];
    int mod = pulleyprof_register_module(a, "synthetic", NULL);
    int f = pulleyprof_register_function(a, mod, 0, "f", HOT, code, 16);
    int g = pulleyprof_register_function(a, mod, 1, "g", HOT + 0x100, code, 8);
    assert_true(mod >= 0 && f >= 0 && g >= 0);
    assert_int_equal(pulleyprof_add_transfer_count(a, f, 4, g, 0, 10), 0); /* call */
    assert_int_equal(pulleyprof_add_transfer_count(a, g, 4, f, 8, 10), 0); /* return */
    assert_int_equal(pulleyprof_add_edge_count(a, f, 12, 0, 3), 0);        /* branch */
    assert_int_equal(pulleyprof_add_transfer_count(a, f, 4, g, 0, 5), 0);  /* another VM */
    assert_int_equal(pulleyprof_add_exec_count(a, g, 4, 20), 0);
    /* Not attributable: from or to outside its function, unknown handles,
     * inside an instruction. */
    static const struct {
        int func;
        uint32_t from;
        int to_func;
        uint32_t to;
        const char *why;
    } bad[] = {
        {0, 16, 1, 0, "offset 16 is outside function 0 'f' (16 bytes)"},
        {0, 4, 1, 8, "the transfer's target: offset 8 is outside function 1 'g' (8 bytes)"},
        {0, 4, 7, 0, "the transfer's target: unknown function handle 7"},
        {-1, 0, -1, 0, "unknown function handle -1"},
        {0, 6, 1, 0, "offset 6 of function 0 'f' is not the start of an instruction"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(pulleyprof_add_transfer_count(a, bad[i].func, bad[i].from,
                                                       bad[i].to_func, bad[i].to, 1),
                         -1);
        if (!strstr(pulleyprof_last_error(), bad[i].why))
            fail_msg("\"%s\" does not say \"%s\"", pulleyprof_last_error(), bad[i].why);
    }
    assert_int_equal(pulleyprof_add_exec_count(a, f, 16, 1), -1);
    assert_int_equal(pulleyprof_add_exec_count(a, f, 2, 1), -1);
    assert_string_equal(pulleyprof_last_error(), "pulleyprof_add_exec_count: offset 2 of function"
                                                 " 0 'f' is not the start of an instruction");
    pulleyprof_set_outcome(a, "return", 0);
    pulleyprof_summary s;
    char err[512] = "";
    if (pulleyprof_close(a, &s, err, sizeof err) != 0)
        fail_msg("close said \"%s\"", err);
    assert_int_equal(s.counts_unmapped, 7);

    sqlite3 *db;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(
        sqlite3_prepare_v2(db,
                           "SELECT group_concat(t, ' ') FROM ("
                           " SELECT f.name || ':' || e.from_offset || '>' || g.name || ':' ||"
                           "  e.to_offset || '=' || e.count AS t FROM edge_counts e"
                           " JOIN functions f ON f.id = e.function_id"
                           " JOIN functions g ON g.id = e.to_function_id"
                           " ORDER BY f.name, e.from_offset, g.name)",
                           -1, &st, NULL),
        SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0),
                        "f:4>g:0=15 f:12>f:0=3 g:4>f:8=10");
    sqlite3_finalize(st);
    assert_int_equal(query(db, "SELECT counts_unmapped FROM runs"), 7);
    assert_int_equal(query(db, "SELECT count(*) FROM exec_counts"), 1);
    assert_int_equal(query(db, "SELECT count FROM exec_counts WHERE offset = 4"), 20);
    assert_int_equal(query(db, "SELECT end_time IS NOT NULL FROM runs"), 1);
    assert_int_equal(query(db, "SELECT outcome = 'return' AND exit_status = 0 FROM runs"), 1);
    sqlite3_close(db);
}

typedef struct concurrent {
    synth_vm vm;
    pulleyprof_summary summary;
} concurrent;

static void *concurrent_run(void *arg)
{
    concurrent *c = arg;
    c->vm.ms = 150;
    c->summary = profile_synth_vm("concurrent", &c->vm);
    return NULL;
}

/* The instructions of run 1's function `name` in the database now, read
 * through a connection of its own (-1: the database has no tables yet). */
static int64_t stored_instructions(const char *name)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_busy_timeout(db, 10000);
    sqlite3_stmt *st;
    int64_t n = -1;
    if (sqlite3_prepare_v2(db,
                           "SELECT count(*) FROM instructions i"
                           " JOIN functions f ON f.id = i.function_id"
                           " WHERE f.run_id = 1 AND f.name = ?",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
        assert_int_equal(sqlite3_step(st), SQLITE_ROW);
        n = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return n;
}

/* Functions registered before the first slot are written while the
 * program runs, those registered later too, in batches of 256 or fewer
 * once they waited 1 ms; what is left when it ends then; each once. */
static void functions_are_written_while_the_program_runs(void **state)
{
    (void)state;
    pulleyprof_agent *a = open_agent("catalog", 0);
    static const uint8_t code[16];
    int mod = pulleyprof_register_module(a, "m", NULL);
    assert_true(pulleyprof_register_function(a, mod, 0, "early", HOT, code, sizeof code) >= 0);
    _Atomic(uintptr_t) slot, second;
    atomic_init(&slot, 0);
    atomic_init(&second, 0);
    assert_int_equal(pulleyprof_register_slot(a, &slot), 0);
    /* Still running: wait (at most a minute) for early's 4 instructions. */
    int64_t early = 0;
    for (int tries = 0; tries < 600 && early != 4; tries++) {
        early = stored_instructions("early");
        if (early != 4)
            nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
    }
    assert_int_equal(early, 4);
    assert_true(pulleyprof_register_function(a, mod, 1, "late", HOT + 64, code, 8) >= 0);
    assert_int_equal(pulleyprof_register_slot(a, &second), 0);
    int64_t late = 0; /* alone: written once it waited */
    for (int tries = 0; tries < 600 && late != 2; tries++) {
        late = stored_instructions("late");
        if (late != 2)
            nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
    }
    assert_int_equal(late, 2);
    for (uint32_t i = 0; i < 300; i++) { /* a batch and the rest */
        char name[16];
        snprintf(name, sizeof name, "loaded%u", i);
        assert_true(pulleyprof_register_function(a, mod, 2 + i, name, HOT + 4096 + 16 * i, code,
                                                 sizeof code) >= 0);
    }
    int64_t last = 0;
    for (int tries = 0; tries < 600 && last != 4; tries++) {
        last = stored_instructions("loaded299");
        if (last != 4)
            nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
    }
    assert_int_equal(last, 4);
    assert_int_equal(stored_instructions("loaded0"), 4);
    assert_true(pulleyprof_register_function(a, mod, 302, "final", HOT + 16384, code, 8) >= 0);
    assert_int_equal(pulleyprof_unregister_slot(a, &second), 0);
    assert_int_equal(pulleyprof_unregister_slot(a, &slot), 0);
    pulleyprof_set_outcome(a, "return", 0);
    char err[512] = "";
    if (pulleyprof_close(a, NULL, err, sizeof err) != 0)
        fail_msg("%s", err);

    assert_int_equal(stored_instructions("early"), 4);
    assert_int_equal(stored_instructions("late"), 2);
    assert_int_equal(stored_instructions("loaded299"), 4);
    assert_int_equal(stored_instructions("final"), 2);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    assert_int_equal(query(db, "SELECT count(*) FROM modules"), 1);
    assert_int_equal(query(db, "SELECT count(*) FROM functions"), 303);
    assert_int_equal(query(db, "SELECT count(DISTINCT name) FROM functions"), 303);
    assert_int_equal(query(db, "SELECT count(*) FROM instructions"), 4 + 2 + 300 * 4 + 2);
    assert_int_equal(query(db, "SELECT count(DISTINCT module_id) FROM functions"), 1);
    assert_int_equal(query(db, "SELECT count(*) FROM runs WHERE end_time IS NOT NULL"), 1);
    sqlite3_close(db);
}

/* A reader in place of a slot: the sampler calls it at each tick and
 * stores what it returns, like a slot's value. */
static atomic_int reader_calls;

static uintptr_t read_hot_plus_4(void *ctx)
{
    atomic_fetch_add(&reader_calls, 1);
    return *(const uintptr_t *)ctx + 4;
}

static void a_reader_is_sampled_like_a_slot(void **state)
{
    (void)state;
    pulleyprof_agent *a = open_agent("reader", 0);
    static const uint8_t code[16];
    static const uintptr_t base = HOT;
    int mod = pulleyprof_register_module(a, "m", NULL);
    assert_true(pulleyprof_register_function(a, mod, 0, "hot", HOT, code, sizeof code) >= 0);
    assert_int_equal(pulleyprof_register_reader(a, NULL, NULL), -1);
    assert_int_equal(pulleyprof_register_reader(a, read_hot_plus_4, (void *)&base), 0);
    for (int tries = 0; tries < 600 && atomic_load(&reader_calls) < 20; tries++)
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    assert_int_equal(pulleyprof_unregister_reader(a, read_hot_plus_4, NULL), -1); /* not that one */
    assert_int_equal(pulleyprof_unregister_reader(a, read_hot_plus_4, (void *)&base), 0);
    int calls = atomic_load(&reader_calls);
    assert_true(calls >= 20);
    pulleyprof_set_outcome(a, "return", 0);
    pulleyprof_summary sum;
    char err[512] = "";
    if (pulleyprof_close(a, &sum, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(atomic_load(&reader_calls), calls); /* never called once unregistered */
    assert_int_equal(sum.samples_written + sum.samples_dropped, calls);
    assert_int_equal(sum.samples_unattributed, 0); /* every sample is in "hot" */
    sqlite3 *db;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    assert_int_equal(query(db, "SELECT sum(samples) FROM pc_samples WHERE offset = 4 AND function_id ="
                               " (SELECT id FROM functions WHERE name = 'hot')"),
                     (int64_t)sum.samples_written);
    sqlite3_close(db);
}

/* An address inside an instruction (the 4-byte one at offset 4) is stored
 * at the instruction's offset, with the address as it was read; one in no
 * function is stored without one, and counted. */
typedef struct fixed_reader {
    uintptr_t value;
    atomic_int calls;
} fixed_reader;

static uintptr_t read_fixed(void *ctx)
{
    fixed_reader *r = ctx;
    atomic_fetch_add(&r->calls, 1);
    return r->value;
}

/* Sample two readers until the second was read `calls` times (at most a
 * minute), unregister them and close the run: its summary. */
static pulleyprof_summary sample_two_readers(pulleyprof_agent *a, fixed_reader *first,
                                             fixed_reader *second, int calls)
{
    assert_int_equal(pulleyprof_register_reader(a, read_fixed, first), 0);
    assert_int_equal(pulleyprof_register_reader(a, read_fixed, second), 0);
    for (int tries = 0; tries < 600 && atomic_load(&second->calls) < calls; tries++)
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    assert_int_equal(pulleyprof_unregister_reader(a, read_fixed, second), 0);
    assert_int_equal(pulleyprof_unregister_reader(a, read_fixed, first), 0);
    pulleyprof_set_outcome(a, "return", 0);
    pulleyprof_summary sum;
    char err[512] = "";
    if (pulleyprof_close(a, &sum, err, sizeof err) != 0)
        fail_msg("%s", err);
    return sum;
}

static void addresses_inside_instructions_are_stored_at_their_start(void **state)
{
    (void)state;
    pulleyprof_agent *a = open_agent("inside", 0);
    static const uint8_t code[16];
    int mod = pulleyprof_register_module(a, "m", NULL);
    assert_true(pulleyprof_register_function(a, mod, 0, "hot", HOT, code, sizeof code) >= 0);
    static fixed_reader inside = {.value = HOT + 6}, nowhere = {.value = HOT + 4096};
    pulleyprof_summary sum = sample_two_readers(a, &inside, &nowhere, 20);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    int64_t in = query(db, "SELECT coalesce(sum(samples), 0) FROM pc_samples WHERE offset = 4"
                           " AND pc = 65542"); /* HOT + 6 */
    int64_t lost = query(db, "SELECT coalesce(sum(samples), 0) FROM pc_samples"
                             " WHERE function_id IS NULL AND pc = 69632"); /* HOT + 4096 */
    assert_int_equal(in + lost, (int64_t)sum.samples_written);
    assert_int_equal(in + lost + (int64_t)sum.samples_dropped,
                     atomic_load(&inside.calls) + atomic_load(&nowhere.calls));
    assert_true(in > 0 && lost > 0);
    assert_int_equal(lost, (int64_t)sum.samples_unattributed);
    sqlite3_close(db);
}

/* An interpreter that publishes only where runs start (config.run_starts):
 * a 4-byte "op" and a 4-byte "br" that ends a run, the code's byte 0
 * saying which.  Each sample is spread over its run, from the published
 * instruction up to the first br or to the function's end: equally, or,
 * when the table gives handler costs, in proportion to them. */
static const pulleyprof_opcode run_ops[] = {
    {.id = 0, .name = "op", .format = "", .operands = "", .length = 4, .semantics = "nothing"},
    {.id = 1, .name = "br", .format = "", .operands = "", .length = 4,
     .flags = PULLEYPROF_BRANCH, .semantics = "maybe pc += 4"},
};
static const pulleyprof_opcode costed_run_ops[] = { /* br takes three times op's time */
    {.id = 0, .name = "op", .format = "", .operands = "", .length = 4, .semantics = "nothing",
     .cost = 4},
    {.id = 1, .name = "br", .format = "", .operands = "", .length = 4,
     .flags = PULLEYPROF_BRANCH, .semantics = "maybe pc += 4", .cost = 12},
};

static int run_decode(const void *ctx, const uint8_t *code, size_t size, size_t off,
                      pulleyprof_insn *insn)
{
    (void)ctx;
    if (size - off < 4)
        return -1;
    insn->length = 4;
    insn->opcode = code[off];
    snprintf(insn->text, insn->text_cap, "%s", code[off] ? "br" : "op");
    return 0;
}

static const pulleyprof_isa run_isa = {
    .name = "runs", .hash = 43, .opcodes = run_ops, .nopcodes = 2, .decode = run_decode};
static const pulleyprof_isa costed_run_isa = {
    .name = "costed runs", .hash = 44, .opcodes = costed_run_ops, .nopcodes = 2,
    .decode = run_decode};

/* Samples at two run starts of "op op op br | op op op op" (HOT + 4: the
 * run 4, 8, 12; HOT + 16: the run 16 .. 28) under isa, at least 40 each:
 * the samples then stored at each offset 0 .. 28 into at[off / 4]. */
static void spread_two_runs(const pulleyprof_isa *isa, int64_t at[8])
{
    char err[512] = "";
    pulleyprof_config cfg = {.db_path = db_path, .sample_hz = HZ, .isa = isa,
                             .command_line = "test", .run_starts = 1};
    pulleyprof_agent *a = pulleyprof_open(&cfg, err, sizeof err);
    if (!a)
        fail_msg("%s", err);
    static const uint8_t code[32] = {[12] = 1};
    int mod = pulleyprof_register_module(a, "m", NULL);
    assert_true(pulleyprof_register_function(a, mod, 0, "runs", HOT, code, sizeof code) >= 0);
    fixed_reader in_first = {.value = HOT + 4}, in_second = {.value = HOT + 16};
    pulleyprof_summary sum = sample_two_readers(a, &in_first, &in_second, 50);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    assert_int_equal(query(db, "SELECT run_starts FROM runs"), 1);
    int64_t total = 0;
    for (unsigned off = 0; off < 32; off += 4) {
        char sql[160];
        snprintf(sql, sizeof sql, "SELECT coalesce(sum(samples), 0) FROM pc_samples"
                                  " WHERE offset = %u AND pc = %u", off, HOT + off);
        total += at[off / 4] = query(db, sql);
    }
    assert_int_equal(total, (int64_t)sum.samples_written);
    sqlite3_close(db);
    assert_int_equal(at[0], 0); /* before the first run published */
    assert_true(at[1] + at[2] + at[3] >= 40 && at[4] + at[5] + at[6] + at[7] >= 40);
}

/* part * whole / of, within one sample of rounding. */
static void assert_share(int64_t got, int64_t whole, int64_t part, int64_t of)
{
    if (got * of < part * whole - of || got * of > part * whole + of)
        fail_msg("%lld samples where %lld/%lld of %lld were due", (long long)got,
                 (long long)part, (long long)of, (long long)whole);
}

static void a_sample_of_a_run_is_spread_over_its_instructions(void **state)
{
    (void)state;
    int64_t at[8];
    spread_two_runs(&run_isa, at);
    int64_t first = at[1] + at[2] + at[3], second = at[4] + at[5] + at[6] + at[7];
    for (unsigned i = 1; i <= 3; i++) /* each a third */
        assert_share(at[i], first, 1, 3);
    for (unsigned i = 4; i <= 7; i++) /* each a quarter */
        assert_share(at[i], second, 1, 4);
}

static void a_sample_of_a_run_is_spread_by_its_instructions_costs(void **state)
{
    (void)state;
    int64_t at[8];
    spread_two_runs(&costed_run_isa, at);
    int64_t first = at[1] + at[2] + at[3], second = at[4] + at[5] + at[6] + at[7];
    assert_share(at[1], first, 1, 5); /* op, op, br: 4, 4 and 12 of 20 */
    assert_share(at[2], first, 1, 5);
    assert_share(at[3], first, 3, 5);
    for (unsigned i = 4; i <= 7; i++) /* all ops: each a quarter */
        assert_share(at[i], second, 1, 4);
}

static void two_agents_write_one_database_at_once(void **state)
{
    (void)state;
    concurrent *c = calloc(2, sizeof *c);
    assert_non_null(c);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, concurrent_run, &c[i]), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    pulleyprof_summary s[2] = {c[0].summary, c[1].summary};
    free(c);
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

/* pulleyprof_open refuses db_path with a message containing `why`, and the
 * file is byte for byte what it was. */
static void assert_refused(const char *why)
{
    size_t before_size, after_size;
    unsigned char *before = slurp(db_path, &before_size);
    char err[512] = "";
    pulleyprof_config cfg = {.db_path = db_path, .isa = &synth_isa};
    pulleyprof_agent *a = pulleyprof_open(&cfg, err, sizeof err);
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
    synth_vm *vm = calloc(1, sizeof *vm);
    assert_non_null(vm);
    vm->ms = 50;
    profile_synth_vm("to be damaged", vm);
    free(vm);
    /* Overwrite the middle of page 3 (a table's b-tree page) with junk. */
    FILE *f = fopen(db_path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, 2 * 4096 + 8, SEEK_SET), 0);
    for (int i = 0; i < 64; i++)
        fputc(0xA5, f);
    fclose(f);
    assert_refused("damaged");
}

/* An agent open for an exact run, its one function counted. */
static pulleyprof_agent *open_counted_run(const char *label)
{
    pulleyprof_agent *a = open_agent(label, 1);
    static const uint8_t code[16];
    int mod = pulleyprof_register_module(a, "synthetic", NULL);
    int f = pulleyprof_register_function(a, mod, 0, "hot", HOT, code, sizeof code);
    assert_true(f >= 0);
    assert_int_equal(pulleyprof_add_exec_count(a, f, 0, 5), 0);
    return a;
}

/* An agent is open on db_path with one function and exact counts; then
 * `change` runs on the path; close must say the run was lost. */
static void assert_run_lost(void (*change)(void))
{
    pulleyprof_agent *a = open_counted_run("lost");
    change();
    char err[768] = "";
    pulleyprof_summary s;
    assert_int_equal(pulleyprof_close(a, &s, err, sizeof err), PULLEYPROF_RUN_LOST);
    if (!strstr(err, "was not saved") || !strstr(err, db_path))
        fail_msg("error \"%s\" does not say the run in %s was not saved", err, db_path);
    char side[96];
    snprintf(side, sizeof side, "%s-wal", db_path);
    assert_int_equal(access(side, F_OK), -1); /* no WAL left to be read into the path */
}

static void delete_db(void) { assert_int_equal(unlink(db_path), 0); }

static char other_path[96];

static void replace_db(void) { assert_int_equal(rename(other_path, db_path), 0); }

static void a_run_whose_file_was_deleted_is_lost(void **state)
{
    (void)state;
    assert_run_lost(delete_db);
    assert_int_equal(access(db_path, F_OK), -1);
}

/* Another profile put in the file's place keeps its runs. */
static void a_run_whose_file_was_replaced_is_lost_and_the_new_file_kept(void **state)
{
    (void)state;
    snprintf(other_path, sizeof other_path, "%s.other", db_path);
    unlink(other_path);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(other_path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "CREATE TABLE kept (x); INSERT INTO kept VALUES (1), (2)",
                                  NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_close(db), SQLITE_OK);
    assert_run_lost(replace_db);
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    assert_int_equal(query(db, "SELECT count(*) FROM kept"), 2);
    assert_int_equal(query(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'runs'"), 0);
    assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

/* A count that does not fit a signed 64-bit column is refused, at the
 * call or (summed with the one stored) at close: never stored wrapped. */
static void counts_past_int64_max_are_refused(void **state)
{
    (void)state;
    pulleyprof_agent *a = open_agent("big counts", 1);
    static const uint8_t code[16];
    int mod = pulleyprof_register_module(a, "synthetic", NULL);
    int f = pulleyprof_register_function(a, mod, 0, "hot", HOT, code, sizeof code);
    assert_true(f >= 0);
    assert_int_equal(pulleyprof_add_exec_count(a, f, 0, UINT64_MAX), -1);
    assert_non_null(strstr(pulleyprof_last_error(), "INT64_MAX"));
    assert_int_equal(pulleyprof_add_exec_count(a, f, 4, INT64_MAX), 0);
    assert_int_equal(pulleyprof_add_exec_count(a, f, 4, INT64_MAX), 0);
    char err[768] = "";
    pulleyprof_summary s;
    assert_int_equal(pulleyprof_close(a, &s, err, sizeof err), -1);
    if (!strstr(err, "would pass"))
        fail_msg("error \"%s\" does not say the count would pass INT64_MAX", err);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    assert_int_equal(query(db, "SELECT count(*) FROM exec_counts WHERE count < 0"), 0);
    assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

/* One exact run of the synthetic VM, closed normally. */
static void collect_one_run(void)
{
    pulleyprof_agent *a = open_counted_run("one");
    char err[768] = "";
    pulleyprof_summary s;
    if (pulleyprof_close(a, &s, err, sizeof err) != 0)
        fail_msg("%s", err);
}

static int64_t query_path(const char *sql)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    int64_t v = query(db, sql);
    assert_int_equal(sqlite3_close(db), SQLITE_OK);
    return v;
}

/* The API copies its strings: the configuration's may go away once open
 * returns (the path too, which close still needs). */
static void the_configuration_may_go_away_after_open(void **state)
{
    (void)state;
    char *path = strdup(db_path), *label = strdup("short-lived");
    assert_non_null(path);
    assert_non_null(label);
    char err[512] = "";
    pulleyprof_config cfg = {.db_path = path, .isa = &synth_isa, .label = label};
    pulleyprof_agent *a = pulleyprof_open(&cfg, err, sizeof err);
    if (!a)
        fail_msg("%s", err);
    memset(path, 'x', strlen(path));
    memset(label, 'x', strlen(label));
    free(path);
    free(label);
    pulleyprof_set_outcome(a, "return", 0);
    pulleyprof_summary s;
    if (pulleyprof_close(a, &s, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(query_path("SELECT count(*) FROM runs WHERE label = 'short-lived'"
                                " AND outcome = 'return'"), 1);
}

/* Overwrite the first bytes of a one-page table's page with junk, behind
 * SQLite's back. */
static void damage_table_page(const char *table)
{
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT rootpage FROM sqlite_schema WHERE name = '%s'", table);
    int64_t page = query_path(sql), size = query_path("PRAGMA page_size");
    FILE *f = fopen(db_path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, (long)((page - 1) * size), SEEK_SET), 0);
    for (int i = 0; i < 64; i++)
        fputc(0xA5, f);
    assert_int_equal(fclose(f), 0);
}

/* The whole file is read (quick_check) only when its freelist was not
 * checked: the first collect into a file with free pages checks it and
 * records how many free pages it had; a later collect with no more free
 * pages appends without reading the file whole (its cost does not grow
 * with the file), so damage away from the pages it writes is not seen;
 * once rows are deleted (more free pages) the file is read whole again
 * and the damage refuses the run. */
static void the_whole_file_is_checked_once_per_freelist(void **state)
{
    (void)state;
    collect_one_run();
    assert_int_equal(query_path("SELECT count(*) FROM sqlite_schema"
                                " WHERE name = 'freelist_checked'"), 0);
    make_db("CREATE TABLE spare (x); INSERT INTO spare VALUES ('kept');"
            " CREATE TABLE filler AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL"
            " SELECT i + 1 FROM n WHERE i < 40) SELECT randomblob(8000) AS b FROM n;"
            " DROP TABLE filler");
    int64_t free_pages = query_path("PRAGMA freelist_count");
    assert_true(free_pages > 0);
    collect_one_run();
    int64_t checked = query_path("SELECT free_pages FROM freelist_checked");
    assert_true(checked > 0 && checked <= free_pages);

    damage_table_page("spare");
    collect_one_run(); /* the freelist was checked: the file is not read whole */
    assert_true(query_path("SELECT free_pages FROM freelist_checked") <= checked);

    make_db("CREATE TABLE filler2 AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL"
            " SELECT i + 1 FROM n WHERE i < 80) SELECT randomblob(8000) AS b FROM n;"
            " DROP TABLE filler2");
    assert_refused("damaged");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_histogram_counts_each_pc_once),
        cmocka_unit_test_setup_teardown(the_histogram_follows_the_vm_pattern, setup, teardown),
        cmocka_unit_test_setup_teardown(transfer_counts_are_stored_with_their_target, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_reader_is_sampled_like_a_slot, setup, teardown),
        cmocka_unit_test_setup_teardown(addresses_inside_instructions_are_stored_at_their_start,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(functions_are_written_while_the_program_runs, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_sample_of_a_run_is_spread_over_its_instructions, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_sample_of_a_run_is_spread_by_its_instructions_costs,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(two_agents_write_one_database_at_once, setup, teardown),
        cmocka_unit_test_setup_teardown(the_configuration_may_go_away_after_open, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_foreign_database_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(a_newer_schema_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(a_file_that_is_not_sqlite_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(a_damaged_profile_database_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(a_run_whose_file_was_deleted_is_lost, setup, teardown),
        cmocka_unit_test_setup_teardown(counts_past_int64_max_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(a_run_whose_file_was_replaced_is_lost_and_the_new_file_kept,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(the_whole_file_is_checked_once_per_freelist, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
