/*
 * sampler.h - the sampler thread and the set of PC sources it reads.
 *
 * The thread wakes on absolute deadlines on CLOCK_MONOTONIC (start + k *
 * period, so it never drifts), reads every registered source - a slot the
 * interpreter stores into, with a relaxed atomic load, or a reader function
 * it calls - and appends (tick k, pc) to the current buffer of the sample
 * queue.  A full buffer is queued for the writer.  When no buffer is free
 * the sample is counted as dropped.  A deadline it wakes too late for is
 * skipped and counted as missed; it never samples in a burst to catch up.
 * While no slot is registered it does not wake at all (those deadlines are
 * neither sampled nor missed).  It sleeps on a condition variable, so that
 * the first slot added and pp__sampler_stop reach it at once, not at its next
 * deadline (at a low rate that would hold up the end of a run by up to a
 * period).  It neither compresses nor writes: that is the writer's job.
 * Once told to (pp__sampler_translate), it passes every pc it reads
 * through a translation before recording it (the agent's: a pc in code
 * stored at another address becomes that address).
 */
#ifndef PULLEY_SAMPLER_H
#define PULLEY_SAMPLER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "sample_queue.h"

/* Where the pc of one interpreter thread is read: its slot, or (slot
 * NULL) read(ctx). */
typedef struct sampler_source {
    _Atomic(uintptr_t) *slot;
    uintptr_t (*read)(void *ctx);
    void *ctx;
} sampler_source;

typedef struct sampler {
    uint64_t period_ns;
    sample_queue *queue;

    /* The sampler thread holds slots_lock except while it waits on wake
     * (for its next deadline, or for a first slot); adding the first slot
     * and stopping signal wake. */
    pthread_mutex_t slots_lock;
    pthread_cond_t wake;        /* on CLOCK_MONOTONIC */
    sampler_source *slots;
    size_t nslots, slots_cap;
    uint64_t active_since;      /* when nslots became > 0 */
    uint64_t sampled_ns;        /* time with nslots > 0, until then */
    bool stopped;               /* sampled_ns is final */

    pthread_t thread;
    bool stop;                  /* under slots_lock */
    bool running;
    struct timespec start;      /* tick 0 */

    /* Given to pp__sampler_start; used once translating is set. */
    uintptr_t (*translate)(void *ctx, uintptr_t pc);
    void *translate_ctx;
    atomic_bool translating;

    /* Written by the sampler thread; read after pp__sampler_stop. */
    uint64_t taken, dropped, ticks_missed;
    uint64_t cpu_ns;            /* the thread's CPU time (user and system) */
    sample_buf *cur;
} sampler;

/* Monotonic time in nanoseconds. */
uint64_t pp__sampler_now_ns(void);

/* Sample `hz` times a second into q; translate(ctx, pc) is the
 * translation pp__sampler_translate turns on (it may take locks, but none
 * a thread holds while it calls into the sampler).  Returns 0, or -1 with
 * err. */
int pp__sampler_start(sampler *s, unsigned hz, sample_queue *q,
                      uintptr_t (*translate)(void *ctx, uintptr_t pc), void *ctx, char *err,
                      size_t errcap);
/* Add or remove a source; 0, or -1 (out of memory; not registered). */
int pp__sampler_add_source(sampler *s, sampler_source src);
int pp__sampler_remove_source(sampler *s, sampler_source src);
/* From now on record translate(ctx, pc) for every pc read (not 0). */
void pp__sampler_translate(sampler *s);
/* Stop the thread, queue the last partial buffer and close the queue. */
void pp__sampler_stop(sampler *s);
void pp__sampler_destroy(sampler *s);

#endif
