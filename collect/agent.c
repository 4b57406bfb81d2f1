/*
 * agent.c - the profiling agent (include/pulley/profile.h): ties together
 * the database (profile_db, run_store), the registry of what the VM
 * registered, the sampler thread and the writer thread.
 *
 * Threads: the caller's (registrations, close), the sampler (reads slots,
 * fills buffers), the writer (compresses, writes chunks), and the catalog
 * thread: when the first VM slot is registered, the program is about to
 * run, and the functions registered so far are decoded and written while
 * it runs rather than after it (about 40 ms for a C program compiled to
 * Wasm); functions registered later are written by it too, whenever a
 * batch of them is waiting (an interpreter that loads code as it runs,
 * Lua's load() chunks), and the rest at close.  One mutex guards
 * the registry and the outcome (the catalog thread decodes under it, the
 * sampler translates pcs under it once a function was moved); the
 * sampler has its own for slots, taken before this one; the database
 * connection has its own for transactions.
 *
 * A call refused for its arguments returns -1 and leaves its message in
 * the calling thread's pulleyprof_last_error().
 */
#include <pulley/profile.h>

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "isa_rows.h"
#include "pc_hist.h"
#include "profile_db.h"
#include "registry.h"
#include "run_store.h"
#include "sample_queue.h"
#include "sampler.h"
#include "writer.h"

/* 16 buffers of 16384 samples: over 25 s of backlog at 10 kHz per VM.  A
 * buffer becomes one chunk; a dzv2 chunk of 16384 samples is ~1% smaller
 * per sample than one of 8192 (its dictionary of distinct pcs is shared by
 * more samples), and 4 times larger ones gain less than 1% more. */
enum { QUEUE_BUFFERS = 16, BUFFER_SAMPLES = 16384 };

struct pulleyprof_agent {
    isa_rows isa; /* the checked opcode table */
    unsigned hz;
    uint64_t started_ns;
    profile_db db;
    int64_t run_id;
    sample_queue queue;
    sampler sampler;
    writer writer;

    run_catalog catalog; /* the catalog thread's until joined */
    pthread_t catalog_thread;
    pthread_cond_t catalog_wake; /* with lock: a batch waits, or closing */

    pthread_mutex_t lock; /* guards what follows */
    size_t catalog_target; /* functions registered before the first slot */
    size_t catalog_next;   /* the first function not given to the thread */
    bool catalog_started;
    registry reg;
    uint64_t counts_unmapped; /* counts refused by the registry */
    uint64_t executed;        /* instruction executions the registry took */
    bool exact;
    bool run_starts; /* config.run_starts */
    bool closing;
    char *outcome;
    int exit_status, has_exit_status;
};

static _Thread_local char last_error[1024];

const char *pulleyprof_last_error(void)
{
    return last_error;
}

/* Refuse a call: its name and why into last_error; -1. */
static int refuse(const char *call, const char *why)
{
    snprintf(last_error, sizeof last_error, "%s: %s", call, why);
    return -1;
}

static void set_err(char *err, size_t cap, const char *msg)
{
    if (cap)
        snprintf(err, cap, "%s", msg);
}

/* End the run row without its content (nothing was registered or the
 * registry cannot be indexed). */
static void end_run_only(pulleyprof_agent *a, const run_end *end)
{
    char ignored[256];
    registry none;
    pp__registry_init(&none, &a->isa);
    pp__run_store_finish(&a->db, a->run_id, &none, &(pc_hist){0}, &a->catalog, end, ignored,
                         sizeof ignored);
}

/* The sampler's translation of a pc (once a function was moved). */
static uintptr_t translate_pc(void *ctx, uintptr_t pc)
{
    pulleyprof_agent *a = ctx;
    pthread_mutex_lock(&a->lock);
    pc = pp__registry_translate(&a->reg, pc);
    pthread_mutex_unlock(&a->lock);
    return pc;
}

/* A run's samples are spread by handler cost when the table gives costs;
 * an opcode without one weighs what the measured ones do on average. */
static void spread_by_cost(registry *r, const pulleyprof_isa *isa)
{
    double sum = 0;
    size_t n = 0;
    for (size_t i = 0; i < isa->nopcodes; i++)
        if (isa->opcodes[i].cost > 0) {
            sum += isa->opcodes[i].cost;
            n++;
        }
    r->run_costs = n > 0;
    r->default_cost = n ? sum / (double)n : 1;
}

static pulleyprof_agent *open_agent(const pulleyprof_config *cfg, char *err, size_t errcap)
{
    if (!cfg || !cfg->db_path || !cfg->isa) {
        set_err(err, errcap, "pulleyprof_open: a database path and an ISA are required");
        return NULL;
    }
    unsigned hz = cfg->sample_hz ? cfg->sample_hz : PULLEYPROF_DEFAULT_HZ;
    if (hz > PULLEYPROF_MAX_HZ) {
        snprintf(err, errcap, "sample rate %u Hz is above the maximum (%u Hz)", hz,
                 PULLEYPROF_MAX_HZ);
        return NULL;
    }
    pulleyprof_agent *a = calloc(1, sizeof *a);
    if (!a) {
        set_err(err, errcap, "out of memory");
        return NULL;
    }
    if (pp__isa_rows_init(&a->isa, cfg->isa, err, errcap) != 0) {
        free(a);
        return NULL;
    }
    pp__registry_init(&a->reg, &a->isa);
    a->hz = hz;
    a->exact = cfg->exact != 0;
    a->run_starts = cfg->run_starts != 0;
    if (a->run_starts)
        spread_by_cost(&a->reg, cfg->isa);
    a->started_ns = pp__sampler_now_ns();
    if (pthread_mutex_init(&a->lock, NULL) != 0) {
        set_err(err, errcap, "cannot create a mutex");
        pp__isa_rows_free(&a->isa);
        free(a);
        return NULL;
    }
    if (pthread_cond_init(&a->catalog_wake, NULL) != 0) {
        set_err(err, errcap, "cannot create a condition variable");
        goto no_cond;
    }
    if (pp__pdb_open(&a->db, cfg->db_path, err, errcap) != 0)
        goto no_db;
    if (pp__run_store_begin(&a->db, cfg, &a->isa, hz, &a->run_id, err, errcap) != 0)
        goto no_run;
    if (pp__sample_queue_init(&a->queue, QUEUE_BUFFERS, BUFFER_SAMPLES) != 0) {
        set_err(err, errcap, "out of memory for sample buffers");
        goto no_queue;
    }
    if (pp__writer_start(&a->writer, &a->queue, &a->db, a->run_id, 1000000000ull / hz, err,
                     errcap) != 0)
        goto no_writer;
    if (pp__sampler_start(&a->sampler, hz, &a->queue, translate_pc, a, err, errcap) != 0) {
        pp__sample_queue_close(&a->queue);
        pp__writer_join(&a->writer);
        pp__pc_hist_free(&a->writer.hist);
        goto no_writer;
    }
    return a;
no_writer:
    pp__sample_queue_destroy(&a->queue);
no_queue:
    end_run_only(a, &(run_end){.outcome = "collector failed to start",
                               .summary = &(pulleyprof_summary){0}});
no_run:
    pp__pdb_close(&a->db, (char[256]){0}, 256);
no_db:
    pthread_cond_destroy(&a->catalog_wake);
no_cond:
    pthread_mutex_destroy(&a->lock);
    pp__isa_rows_free(&a->isa);
    free(a);
    return NULL;
}

pulleyprof_agent *pulleyprof_open(const pulleyprof_config *cfg, char *err, size_t errcap)
{
    char why[512] = "";
    pulleyprof_agent *a = open_agent(cfg, why, sizeof why);
    if (!a) {
        set_err(err, errcap, why);
        refuse("pulleyprof_open", why);
    }
    return a;
}

const char *pulleyprof_version(void)
{
    return PULLEY_VERSION;
}

int pulleyprof_register_module(pulleyprof_agent *a, const char *name, const void *decode_ctx)
{
    static const char call[] = "pulleyprof_register_module";
    if (!a)
        return refuse(call, "no agent (NULL)");
    char why[512];
    pthread_mutex_lock(&a->lock);
    int h = a->closing ? base_fail(why, sizeof why, "the run is closing")
                       : pp__registry_add_module(&a->reg, name, decode_ctx, why, sizeof why);
    pthread_mutex_unlock(&a->lock);
    return h < 0 ? refuse(call, why) : h;
}

/* Under a->lock: once a function is stored away from its address, the
 * sampler translates what it reads (an atomic store, no lock taken). */
static void follow_moves(pulleyprof_agent *a)
{
    if (a->reg.moved && !atomic_load_explicit(&a->sampler.translating, memory_order_relaxed))
        pp__sampler_translate(&a->sampler);
}

/* The catalog thread writes functions in batches of 256, and fewer when
 * they have waited 1 ms: a program registers its functions as they first
 * run, most in bursts as it starts, often fewer than a batch; what the
 * thread has not written when the program ends, close writes, on the
 * program's critical path.  (A wait of 50 ms left a program of 20 ms all
 * of its catalog to write at close; 1 ms still gathers a burst.) */
enum { CATALOG_BATCH = 256, CATALOG_WAIT_NS = 1000 * 1000 };

/* Under a->lock: does the catalog thread have functions to write: those
 * registered before the first slot, or a full batch of later ones? */
static bool batch_waiting(const pulleyprof_agent *a)
{
    size_t waiting = a->reg.nfuncs - a->catalog_next;
    return waiting > 0 && (a->catalog_next < a->catalog_target || waiting >= CATALOG_BATCH);
}

/* Unregister func (when >= 0), then add f (when not NULL): f's handle, 0
 * without f; -1 with why.  When f is refused func stays registered. */
static int change_functions(pulleyprof_agent *a, int func, const pulleyprof_function *f,
                            char *why, size_t cap)
{
    pthread_mutex_lock(&a->lock);
    int h = a->closing  ? base_fail(why, cap, "the run is closing")
            : func < 0  ? pp__registry_add_function(&a->reg, f, why, cap)
            : f         ? pp__registry_replace(&a->reg, func, f, why, cap)
                        : pp__registry_unregister(&a->reg, func, why, cap);
    follow_moves(a);
    /* A batch, or the first to wait: its wait starts (wait_for_functions). */
    if (h >= 0 && f && a->catalog_started &&
        (batch_waiting(a) || a->reg.nfuncs - a->catalog_next == 1))
        pthread_cond_signal(&a->catalog_wake);
    pthread_mutex_unlock(&a->lock);
    return h;
}

int pulleyprof_add_function(pulleyprof_agent *a, const pulleyprof_function *f)
{
    static const char call[] = "pulleyprof_add_function";
    char why[640];
    if (!a)
        return refuse(call, "no agent (NULL)");
    int h = change_functions(a, -1, f, why, sizeof why);
    return h < 0 ? refuse(call, why) : h;
}

int pulleyprof_register_function(pulleyprof_agent *a, int module, uint32_t index, const char *name,
                                 uintptr_t address, const uint8_t *code, size_t size)
{
    static const char call[] = "pulleyprof_register_function";
    pulleyprof_function f = {.module = module, .index = index, .name = name,
                             .address = address, .code = code, .size = size};
    char why[640];
    if (!a)
        return refuse(call, "no agent (NULL)");
    int h = change_functions(a, -1, &f, why, sizeof why);
    return h < 0 ? refuse(call, why) : h;
}

int pulleyprof_unregister_function(pulleyprof_agent *a, int func)
{
    static const char call[] = "pulleyprof_unregister_function";
    char why[640];
    if (!a)
        return refuse(call, "no agent (NULL)");
    if (func < 0)
        return refuse(call, "unknown function handle (negative)");
    return change_functions(a, func, NULL, why, sizeof why) < 0 ? refuse(call, why) : 0;
}

int pulleyprof_replace_function(pulleyprof_agent *a, int func, const pulleyprof_function *f)
{
    static const char call[] = "pulleyprof_replace_function";
    char why[640];
    if (!a)
        return refuse(call, "no agent (NULL)");
    if (func < 0 || !f)
        return refuse(call, func < 0 ? "unknown function handle (negative)" : "no function given");
    int h = change_functions(a, func, f, why, sizeof why);
    return h < 0 ? refuse(call, why) : h;
}

/* The catalog thread: writes the functions registered before the first
 * slot, then each full batch of later ones, until close; a batch per
 * transaction, each function decoded under a->lock (so that it is not
 * unregistered while its decoder runs) and its rows released once
 * committed.  Close writes what is left, also after a failure. */

/* Decode functions [first, to), each under a->lock (registrations wait
 * for one function at most), then copy them and the modules; false when
 * out of memory. */
static bool take_batch(pulleyprof_agent *a, size_t first, size_t to, reg_function **funcs,
                       reg_module **mods, size_t *nmods)
{
    bool ok = true;
    for (size_t i = first; ok && i < to; i++) {
        pthread_mutex_lock(&a->lock);
        ok = pp__registry_decode(&a->reg, i) == 0;
        pthread_mutex_unlock(&a->lock);
    }
    pthread_mutex_lock(&a->lock);
    *funcs = malloc((to - first) * sizeof **funcs);
    *mods = malloc((a->reg.nmodules + 1) * sizeof **mods);
    *nmods = a->reg.nmodules;
    ok = ok && *funcs && *mods;
    if (ok) {
        memcpy(*funcs, a->reg.funcs + first, (to - first) * sizeof **funcs);
        memcpy(*mods, a->reg.modules, *nmods * sizeof **mods);
    }
    pthread_mutex_unlock(&a->lock);
    return ok;
}

/* Write one batch in its own transaction; 0 or -1. */
static int write_batch(pulleyprof_agent *a, const reg_module *mods, size_t nmods,
                       const reg_function *funcs, size_t n)
{
    char ignored[512];
    uint64_t cut_short = 0;
    int rc = -1;
    pp__pdb_lock(&a->db);
    if (pp__pdb_begin(&a->db, ignored, sizeof ignored) == 0) {
        if (pp__catalog_write(&a->db, a->run_id, mods, nmods, funcs, n, &a->catalog, &cut_short,
                              ignored, sizeof ignored) == 0 &&
            pp__pdb_commit(&a->db, ignored, sizeof ignored) == 0)
            rc = 0;
        else
            pp__pdb_rollback(&a->db);
    }
    if (rc == 0)
        pp__catalog_written(&a->catalog, nmods, n, cut_short);
    pp__pdb_unlock(&a->db);
    return rc;
}

/* Under a->lock: wait for a batch, or CATALOG_WAIT_NS while fewer wait;
 * true when there are functions to write. */
static bool wait_for_functions(pulleyprof_agent *a)
{
    if (batch_waiting(a))
        return true;
    if (a->reg.nfuncs == a->catalog_next) {
        pthread_cond_wait(&a->catalog_wake, &a->lock);
        return false;
    }
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until); /* the condition's clock */
    until.tv_nsec += CATALOG_WAIT_NS;
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    return pthread_cond_timedwait(&a->catalog_wake, &a->lock, &until) == ETIMEDOUT &&
           !a->closing;
}

static void *catalog_main(void *arg)
{
    pulleyprof_agent *a = arg;
    pthread_mutex_lock(&a->lock);
    while (!a->closing) {
        if (!wait_for_functions(a))
            continue;
        size_t first = a->catalog_next, waiting = a->reg.nfuncs - first;
        size_t to = first + (waiting < CATALOG_BATCH ? waiting : CATALOG_BATCH);
        a->catalog_next = to;
        pthread_mutex_unlock(&a->lock);
        reg_function *funcs;
        reg_module *mods;
        size_t nmods;
        bool ok = take_batch(a, first, to, &funcs, &mods, &nmods);
        ok = ok && write_batch(a, mods, nmods, funcs, to - first) == 0;
        free(funcs);
        free(mods);
        pthread_mutex_lock(&a->lock);
        if (!ok)
            break;
        for (size_t i = first; i < to; i++)
            pp__registry_written(&a->reg, i);
    }
    pthread_mutex_unlock(&a->lock);
    return NULL;
}

/* Under a->lock: start writing what is registered, once (when no thread
 * starts, close writes it all). */
static void start_catalog(pulleyprof_agent *a)
{
    if (a->catalog_started || a->closing)
        return;
    a->catalog_target = a->reg.nfuncs;
    if (pthread_create(&a->catalog_thread, NULL, catalog_main, a) == 0)
        a->catalog_started = true;
}

static int add_source(pulleyprof_agent *a, const char *call, sampler_source src)
{
    if (!a)
        return refuse(call, "no agent (NULL)");
    if (!src.slot && !src.read)
        return refuse(call, "no slot or reader (NULL)");
    if (pp__sampler_add_source(&a->sampler, src) != 0)
        return refuse(call, "out of memory");
    pthread_mutex_lock(&a->lock);
    start_catalog(a);
    pthread_mutex_unlock(&a->lock);
    return 0;
}

static int remove_source(pulleyprof_agent *a, const char *call, sampler_source src)
{
    if (!a)
        return refuse(call, "no agent (NULL)");
    if (pp__sampler_remove_source(&a->sampler, src) != 0)
        return refuse(call, src.slot || src.read ? "not registered" : "no slot or reader (NULL)");
    return 0;
}

int pulleyprof_register_slot(pulleyprof_agent *a, _Atomic(uintptr_t) *slot)
{
    return add_source(a, "pulleyprof_register_slot", (sampler_source){.slot = slot});
}

int pulleyprof_unregister_slot(pulleyprof_agent *a, _Atomic(uintptr_t) *slot)
{
    return remove_source(a, "pulleyprof_unregister_slot", (sampler_source){.slot = slot});
}

int pulleyprof_register_reader(pulleyprof_agent *a, pulleyprof_pc_reader read, void *ctx)
{
    return add_source(a, "pulleyprof_register_reader",
                      (sampler_source){.read = read, .ctx = ctx});
}

int pulleyprof_unregister_reader(pulleyprof_agent *a, pulleyprof_pc_reader read, void *ctx)
{
    return remove_source(a, "pulleyprof_unregister_reader",
                         (sampler_source){.read = read, .ctx = ctx});
}

/* Record an exact count, a transfer's (edge) or an instruction's; -1 when
 * closing, out of memory, or not attributable (then counted). */
static int add_count(pulleyprof_agent *a, const char *call, int func, uint32_t from, int to_func,
                     uint32_t to, uint64_t count, bool edge)
{
    char why[640];
    if (!a)
        return refuse(call, "no agent (NULL)");
    if (count > (uint64_t)INT64_MAX) /* stored as a signed 64-bit integer */
        return refuse(call, "count is above INT64_MAX and cannot be stored");
    pthread_mutex_lock(&a->lock);
    int rc = a->closing ? base_fail(why, sizeof why, "the run is closing")
             : edge     ? pp__registry_add_edge(&a->reg, func, from, to_func, to, count, why,
                                                sizeof why)
                        : pp__registry_add_exec(&a->reg, func, from, count, why, sizeof why);
    if (rc == REGISTRY_UNMAPPED)
        a->counts_unmapped++;
    else if (rc == 0 && !edge)
        a->executed += count;
    pthread_mutex_unlock(&a->lock);
    return rc ? refuse(call, why) : 0;
}

int pulleyprof_add_exec_count(pulleyprof_agent *a, int func, uint32_t offset, uint64_t count)
{
    return add_count(a, "pulleyprof_add_exec_count", func, offset, -1, 0, count, false);
}

int pulleyprof_add_transfer_count(pulleyprof_agent *a, int func, uint32_t from, int to_func,
                                  uint32_t to, uint64_t count)
{
    return add_count(a, "pulleyprof_add_transfer_count", func, from, to_func, to, count, true);
}

int pulleyprof_add_edge_count(pulleyprof_agent *a, int func, uint32_t from, uint32_t to,
                              uint64_t count)
{
    return add_count(a, "pulleyprof_add_edge_count", func, from, func, to, count, true);
}

void pulleyprof_set_outcome(pulleyprof_agent *a, const char *outcome, int exit_status)
{
    if (!a) {
        refuse("pulleyprof_set_outcome", "no agent (NULL)");
        return;
    }
    char *copy = outcome ? strdup(outcome) : NULL;
    pthread_mutex_lock(&a->lock);
    free(a->outcome);
    a->outcome = copy; /* NULL (out of memory) leaves it unknown */
    a->exit_status = exit_status;
    a->has_exit_status = 1;
    pthread_mutex_unlock(&a->lock);
}

/* Samples at an address of no registered function (host time, 0, aside). */
static uint64_t unattributed(const registry *r, const pc_hist *h)
{
    uint64_t n = 0;
    for (size_t i = 0; i < h->cap; i++) {
        const pc_hist_entry *e = &h->slots[i];
        if (e->count && e->pc && pp__registry_find_stored(r, (uintptr_t)e->pc) < 0)
            n += e->count;
    }
    return n;
}

/* Stop the threads; the summary of what they did, and in `lost` what of
 * the samples could not be stored. */
static pulleyprof_summary stop_threads(pulleyprof_agent *a, char *lost, size_t cap)
{
    pthread_mutex_lock(&a->lock);
    a->closing = true; /* no catalog thread starts after this */
    bool catalog_started = a->catalog_started;
    pthread_cond_signal(&a->catalog_wake); /* it ends after its batch */
    pthread_mutex_unlock(&a->lock);
    if (catalog_started)
        pthread_join(a->catalog_thread, NULL);
    pp__sampler_stop(&a->sampler); /* queues the last buffer, closes the queue */
    pp__writer_join(&a->writer);
    if (a->writer.error[0])
        snprintf(lost, cap, "%llu samples not stored: %s", (unsigned long long)a->writer.dropped,
                 a->writer.error);
    return (pulleyprof_summary){
        .run_id = a->run_id,
        .samples_taken = a->sampler.taken,
        .samples_written = a->writer.written,
        .samples_dropped = a->sampler.dropped + a->writer.dropped,
        .ticks_missed = a->sampler.ticks_missed,
        .sampled_ns = a->sampler.sampled_ns,
        .sampler_cpu_ns = a->sampler.cpu_ns,
        .bytes_stored = a->writer.bytes,
        .chunks = a->writer.chunks,
    };
}

/* Write the rest of the run and end its row (lost: NULL, or what makes it
 * incomplete); store_err gets what failed.  Returns PULLEYPROF_RUN_LOST
 * (with store_err) when the file at the path is not the one written to. */
static int finish_run(pulleyprof_agent *a, pulleyprof_summary *s, const char *lost,
                      char *store_err, size_t cap)
{
    pthread_mutex_lock(&a->lock);
    s->counts_unmapped = a->counts_unmapped; /* refused at the call: not lost */
    s->exact = a->exact;
    s->executed = a->executed;
    s->duration_ns = pp__sampler_now_ns() - a->started_ns;
    run_end end = {
        .outcome = a->outcome,
        .lost = lost,
        .exit_status = a->exit_status,
        .has_exit_status = a->has_exit_status,
        .duration_ns = s->duration_ns,
        .summary = s,
        .run_starts = a->run_starts,
    };
    pp__run_store_finish(&a->db, a->run_id, &a->reg, &a->writer.hist, &a->catalog, &end,
                         store_err, cap);
    s->samples_unattributed = unattributed(&a->reg, &a->writer.hist);
    pthread_mutex_unlock(&a->lock);
    char close_err[512];
    int closed = pp__pdb_close(&a->db, close_err, sizeof close_err);
    s->functions_cut_short = a->catalog.cut_short;
    if (closed == PDB_FILE_LOST) {
        snprintf(store_err, cap, "run %lld was not saved: %s", (long long)a->run_id, close_err);
        return PULLEYPROF_RUN_LOST;
    }
    if (closed != 0 && !store_err[0])
        snprintf(store_err, cap, "%s", close_err);
    return 0;
}

int pulleyprof_close(pulleyprof_agent *a, pulleyprof_summary *summary, char *err, size_t errcap)
{
    if (!a) {
        set_err(err, errcap, "pulleyprof_close: no agent (NULL)");
        return refuse("pulleyprof_close", "no agent (NULL)");
    }
    char lost[640] = "", store_err[768] = "";
    pulleyprof_summary s = stop_threads(a, lost, sizeof lost);
    int rc = finish_run(a, &s, lost[0] ? lost : NULL, store_err, sizeof store_err);
    if (rc == PULLEYPROF_RUN_LOST) { /* all of it: nothing else to say */
        set_err(err, errcap, store_err);
    } else if (lost[0] || store_err[0]) { /* what was lost before the end comes first */
        set_err(err, errcap, lost[0] ? lost : store_err);
        rc = -1;
    }
    if (summary)
        *summary = s;
    pp__sampler_destroy(&a->sampler);
    pp__sample_queue_destroy(&a->queue);
    pp__pc_hist_free(&a->writer.hist);
    pp__registry_free(&a->reg);
    pp__run_catalog_free(&a->catalog);
    pp__isa_rows_free(&a->isa);
    free(a->outcome);
    pthread_cond_destroy(&a->catalog_wake);
    pthread_mutex_destroy(&a->lock);
    free(a);
    return rc;
}
