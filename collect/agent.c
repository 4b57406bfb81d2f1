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
 * Wasm); what is registered later is written at close.  One mutex guards
 * the registry and the outcome; the sampler has its own for slots; the
 * database connection has its own for transactions.
 */
#include <pulley/profile.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

    pthread_mutex_t lock; /* guards what follows */
    bool catalog_started;
    registry reg;
    uint64_t counts_unmapped; /* counts refused by the registry */
    uint64_t executed;        /* instruction executions the registry took */
    bool exact;
    bool closing;
    char *outcome;
    int exit_status, has_exit_status;
};

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
    registry none = {0};
    pp__run_store_finish(&a->db, a->run_id, &a->isa, &none, &(pc_hist){0}, &a->catalog, end, ignored,
                     sizeof ignored);
}

pulleyprof_agent *pulleyprof_open(const pulleyprof_config *cfg, char *err, size_t errcap)
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
    a->hz = hz;
    a->exact = cfg->exact != 0;
    a->started_ns = pp__sampler_now_ns();
    if (pthread_mutex_init(&a->lock, NULL) != 0) {
        set_err(err, errcap, "cannot create a mutex");
        pp__isa_rows_free(&a->isa);
        free(a);
        return NULL;
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
    if (pp__sampler_start(&a->sampler, hz, &a->queue, err, errcap) != 0) {
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
    pthread_mutex_destroy(&a->lock);
    pp__isa_rows_free(&a->isa);
    free(a);
    return NULL;
}

const char *pulleyprof_version(void)
{
    return PULLEY_VERSION;
}

int pulleyprof_register_module(pulleyprof_agent *a, const char *name, const void *decode_ctx)
{
    pthread_mutex_lock(&a->lock);
    int h = a->closing ? -1 : pp__registry_add_module(&a->reg, name, decode_ctx);
    pthread_mutex_unlock(&a->lock);
    return h;
}

int pulleyprof_register_function(pulleyprof_agent *a, int module, uint32_t index, const char *name,
                                uintptr_t address, const uint8_t *code, size_t size)
{
    pthread_mutex_lock(&a->lock);
    int h = a->closing ? -1
                       : pp__registry_add_function(&a->reg, module, index, name, address, code, size);
    pthread_mutex_unlock(&a->lock);
    return h;
}

/* What the catalog thread writes: a copy of the registry's lists (their
 * names and code stay where the registry keeps them until close). */
typedef struct catalog_job {
    pulleyprof_agent *a;
    reg_module *mods;
    reg_function *funcs;
    size_t nmods, nfuncs;
} catalog_job;

static void *catalog_main(void *arg)
{
    catalog_job *j = arg;
    pulleyprof_agent *a = j->a;
    char ignored[512];
    /* After a failure, close writes what the catalog does not hold. */
    pp__run_store_catalog(&a->db, a->run_id, &a->isa, j->mods, j->nmods, j->funcs, j->nfuncs,
                      &a->catalog, ignored, sizeof ignored);
    free(j->mods);
    free(j->funcs);
    free(j);
    return NULL;
}

static void *copy_of(const void *items, size_t n, size_t size)
{
    void *c = malloc(n * size + 1);
    return c ? memcpy(c, items, n * size) : NULL;
}

/* Under a->lock: start writing what is registered, once (when nothing
 * can be copied or no thread started, close writes it all). */
static void start_catalog(pulleyprof_agent *a)
{
    if (a->catalog_started || a->closing || a->reg.nfuncs == 0)
        return;
    catalog_job *j = malloc(sizeof *j);
    if (!j)
        return;
    *j = (catalog_job){
        .a = a,
        .mods = copy_of(a->reg.modules, a->reg.nmodules, sizeof *a->reg.modules),
        .funcs = copy_of(a->reg.funcs, a->reg.nfuncs, sizeof *a->reg.funcs),
        .nmods = a->reg.nmodules,
        .nfuncs = a->reg.nfuncs,
    };
    if (j->mods && j->funcs && pthread_create(&a->catalog_thread, NULL, catalog_main, j) == 0) {
        a->catalog_started = true;
        return;
    }
    free(j->mods);
    free(j->funcs);
    free(j);
}

static int add_source(pulleyprof_agent *a, sampler_source src)
{
    if (pp__sampler_add_source(&a->sampler, src) != 0)
        return -1;
    pthread_mutex_lock(&a->lock);
    start_catalog(a);
    pthread_mutex_unlock(&a->lock);
    return 0;
}

int pulleyprof_register_slot(pulleyprof_agent *a, _Atomic(uintptr_t) *slot)
{
    return slot ? add_source(a, (sampler_source){.slot = slot}) : -1;
}

int pulleyprof_unregister_slot(pulleyprof_agent *a, _Atomic(uintptr_t) *slot)
{
    return slot ? pp__sampler_remove_source(&a->sampler, (sampler_source){.slot = slot}) : -1;
}

int pulleyprof_register_reader(pulleyprof_agent *a, pulleyprof_pc_reader read, void *ctx)
{
    return read ? add_source(a, (sampler_source){.read = read, .ctx = ctx}) : -1;
}

int pulleyprof_unregister_reader(pulleyprof_agent *a, pulleyprof_pc_reader read, void *ctx)
{
    return read ? pp__sampler_remove_source(&a->sampler, (sampler_source){.read = read, .ctx = ctx})
                : -1;
}

/* Record an exact count, a transfer's (edge) or an instruction's; -1 when
 * closing, out of memory, or not attributable (then counted). */
static int add_count(pulleyprof_agent *a, int func, uint32_t from, int to_func, uint32_t to,
                     uint64_t count, bool edge)
{
    pthread_mutex_lock(&a->lock);
    int rc = a->closing ? -1
             : edge     ? pp__registry_add_edge(&a->reg, func, from, to_func, to, count)
                        : pp__registry_add_exec(&a->reg, func, from, count);
    if (rc == REGISTRY_UNMAPPED) {
        a->counts_unmapped++;
        rc = -1;
    } else if (rc == 0 && !edge) {
        a->executed += count;
    }
    pthread_mutex_unlock(&a->lock);
    return rc;
}

int pulleyprof_add_exec_count(pulleyprof_agent *a, int func, uint32_t offset, uint64_t count)
{
    return add_count(a, func, offset, -1, 0, count, false);
}

int pulleyprof_add_transfer_count(pulleyprof_agent *a, int func, uint32_t from, int to_func, uint32_t to,
                                 uint64_t count)
{
    return add_count(a, func, from, to_func, to, count, true);
}

int pulleyprof_add_edge_count(pulleyprof_agent *a, int func, uint32_t from, uint32_t to, uint64_t count)
{
    return add_count(a, func, from, func, to, count, true);
}

void pulleyprof_set_outcome(pulleyprof_agent *a, const char *outcome, int exit_status)
{
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
        if (e->count && e->pc && pp__registry_find_pc(r, (uintptr_t)e->pc) < 0)
            n += e->count;
    }
    return n;
}

int pulleyprof_close(pulleyprof_agent *a, pulleyprof_summary *summary, char *err, size_t errcap)
{
    pthread_mutex_lock(&a->lock);
    a->closing = true; /* no catalog thread starts after this */
    bool catalog_started = a->catalog_started;
    pthread_mutex_unlock(&a->lock);
    if (catalog_started)
        pthread_join(a->catalog_thread, NULL);

    pp__sampler_stop(&a->sampler); /* queues the last buffer, closes the queue */
    pp__writer_join(&a->writer);
    pulleyprof_summary s = {
        .run_id = a->run_id,
        .samples_taken = a->sampler.taken,
        .samples_written = a->writer.written,
        .samples_dropped = a->sampler.dropped + a->writer.dropped,
        .ticks_missed = a->sampler.ticks_missed,
        .sampled_ns = a->sampler.sampled_ns,
        .bytes_stored = a->writer.bytes,
        .chunks = a->writer.chunks,
    };
    /* What was lost before the end makes the run incomplete. */
    char lost[640] = "";
    if (a->writer.error[0])
        snprintf(lost, sizeof lost, "%llu samples not stored: %s",
                 (unsigned long long)a->writer.dropped, a->writer.error);
    char store_err[512] = "";
    pthread_mutex_lock(&a->lock);
    s.counts_unmapped = a->counts_unmapped;
    s.exact = a->exact;
    s.executed = a->executed;
    if (s.counts_unmapped && !lost[0])
        snprintf(lost, sizeof lost,
                 "%llu exact counts not stored: their function is not registered or their"
                 " offset lies outside its code",
                 (unsigned long long)s.counts_unmapped);
    int rc = 0;
    if (lost[0]) {
        set_err(err, errcap, lost);
        rc = -1;
    }
    run_end end = {
        .outcome = a->outcome,
        .lost = lost[0] ? lost : NULL,
        .exit_status = a->exit_status,
        .has_exit_status = a->has_exit_status,
        .duration_ns = pp__sampler_now_ns() - a->started_ns,
        .summary = &s,
    };
    s.duration_ns = end.duration_ns;
    if (pp__registry_sort(&a->reg) != 0) {
        snprintf(store_err, sizeof store_err, "out of memory sorting the functions");
        end_run_only(a, &end);
    } else {
        pp__run_store_finish(&a->db, a->run_id, &a->isa, &a->reg, &a->writer.hist, &a->catalog, &end,
                         store_err, sizeof store_err);
        s.samples_unattributed = unattributed(&a->reg, &a->writer.hist);
    }
    pthread_mutex_unlock(&a->lock);
    char close_err[256];
    if (pp__pdb_close(&a->db, close_err, sizeof close_err) != 0 && !store_err[0])
        snprintf(store_err, sizeof store_err, "%s", close_err);
    if (store_err[0] && rc == 0) {
        set_err(err, errcap, store_err);
        rc = -1;
    }
    s.functions_cut_short = a->catalog.cut_short;
    if (summary)
        *summary = s;
    pp__sampler_destroy(&a->sampler);
    pp__sample_queue_destroy(&a->queue);
    pp__pc_hist_free(&a->writer.hist);
    pp__registry_free(&a->reg);
    pp__run_catalog_free(&a->catalog);
    pp__isa_rows_free(&a->isa);
    free(a->outcome);
    pthread_mutex_destroy(&a->lock);
    free(a);
    return rc;
}
