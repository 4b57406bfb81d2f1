/*
 * sampler.c - the sampler thread (see sampler.h).
 */
#include "sampler.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

#define NS 1000000000ull

uint64_t pp__sampler_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * NS + (uint64_t)ts.tv_nsec;
}

static struct timespec add_ns(struct timespec t, uint64_t ns)
{
    uint64_t sum = (uint64_t)t.tv_nsec + ns % NS;
    t.tv_sec += (time_t)(ns / NS + sum / NS);
    t.tv_nsec = (long)(sum % NS);
    return t;
}

static uint64_t ns_of(struct timespec t) { return (uint64_t)t.tv_sec * NS + (uint64_t)t.tv_nsec; }

static void record(sampler *s, uint64_t tick, uintptr_t pc)
{
    s->taken++;
    if (!s->cur && !(s->cur = pp__sample_queue_get_free(s->queue))) {
        s->dropped++; /* the writer is behind: counted, never silent */
        return;
    }
    s->cur->recs[s->cur->n++] = (sample_rec){tick, pc};
    /* Full, or a second old: what a SIGKILL can take is at most about a
     * second of samples (and what the writer has not committed yet). */
    if (s->cur->n == s->cur->cap || (tick - s->cur->recs[0].tick) * s->period_ns >= NS) {
        pp__sample_queue_put_full(s->queue, s->cur);
        s->cur = NULL;
    }
}

/* The first deadline (tick number) strictly after time t. */
static uint64_t tick_after(const sampler *s, uint64_t t)
{
    uint64_t start = ns_of(s->start);
    return t < start ? 1 : (t - start) / s->period_ns + 1;
}

/* The sampler holds slots_lock except while it waits on `wake`: so the
 * slots it reads cannot change under it, and stop and the first slot added
 * reach it at once instead of at its next deadline. */
static void *sampler_main(void *arg)
{
    sampler *s = arg;
    uint64_t start = ns_of(s->start), tick = 0;
    bool first_slot = true; /* the first slot may come before this thread runs */
    pthread_mutex_lock(&s->slots_lock);
    while (!s->stop) {
        if (s->nslots == 0 || first_slot) {
            /* Nothing to sample: sleep until a slot is added (or stop),
             * then take the first deadline after it was. */
            while (!s->stop && s->nslots == 0)
                pthread_cond_wait(&s->wake, &s->slots_lock);
            uint64_t first = tick_after(s, s->active_since);
            if (first > tick + 1)
                tick = first - 1;
            first_slot = false;
            continue;
        }
        tick++;
        uint64_t due = start + tick * s->period_ns;
        struct timespec next = add_ns((struct timespec){0}, due);
        /* Woken before the deadline (stop, a slot added, or spuriously):
         * wait again unless it has passed. */
        int rc;
        while (!s->stop && (rc = pthread_cond_timedwait(&s->wake, &s->slots_lock, &next)) != ETIMEDOUT)
            if (rc != 0 || pp__sampler_now_ns() >= due)
                break;
        if (s->stop)
            break;
        bool translating = atomic_load_explicit(&s->translating, memory_order_acquire);
        for (size_t i = 0; i < s->nslots; i++) {
            const sampler_source *src = &s->slots[i];
            uintptr_t pc = src->slot ? atomic_load_explicit(src->slot, memory_order_relaxed)
                                     : src->read(src->ctx);
            record(s, tick, translating && pc ? s->translate(s->translate_ctx, pc) : pc);
        }
        uint64_t now = pp__sampler_now_ns();
        if (now >= due + s->period_ns) { /* late: skip the deadlines passed */
            uint64_t missed = (now - due) / s->period_ns;
            tick += missed;
            if (s->nslots > 0)
                s->ticks_missed += missed;
        }
    }
    pthread_mutex_unlock(&s->slots_lock);
    struct timespec cpu;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0)
        s->cpu_ns = ns_of(cpu);
    if (s->cur) {
        if (s->cur->n)
            pp__sample_queue_put_full(s->queue, s->cur);
        else
            pp__sample_queue_put_free(s->queue, s->cur);
        s->cur = NULL;
    }
    pp__sample_queue_close(s->queue);
    return NULL;
}

int pp__sampler_start(sampler *s, unsigned hz, sample_queue *q,
                      uintptr_t (*translate)(void *ctx, uintptr_t pc), void *ctx, char *err,
                      size_t errcap)
{
    *s = (sampler){.period_ns = NS / hz, .queue = q, .translate = translate, .translate_ctx = ctx};
    pthread_condattr_t attr;
    int rc = pthread_condattr_init(&attr);
    if (rc == 0) {
        rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        if (rc == 0)
            rc = pthread_cond_init(&s->wake, &attr);
        pthread_condattr_destroy(&attr);
    }
    if (rc == 0 && (rc = pthread_mutex_init(&s->slots_lock, NULL)) != 0)
        pthread_cond_destroy(&s->wake);
    if (rc == 0) {
        clock_gettime(CLOCK_MONOTONIC, &s->start);
        rc = pthread_create(&s->thread, NULL, sampler_main, s);
        if (rc != 0) {
            pthread_mutex_destroy(&s->slots_lock);
            pthread_cond_destroy(&s->wake);
        }
    }
    if (rc != 0) {
        snprintf(err, errcap, "cannot start the sampler thread: %s", strerror(rc));
        return -1;
    }
    s->running = true;
    return 0;
}

int pp__sampler_add_source(sampler *s, sampler_source src)
{
    int rc = -1;
    pthread_mutex_lock(&s->slots_lock);
    (void)BASE_GROW(s->slots, s->slots_cap, s->nslots + 1, 8); /* failed: no room below */
    if (s->nslots < s->slots_cap) {
        if (s->nslots == 0) {
            s->active_since = pp__sampler_now_ns();
            pthread_cond_signal(&s->wake); /* the sampler sleeps until now */
        }
        s->slots[s->nslots++] = src;
        rc = 0;
    }
    pthread_mutex_unlock(&s->slots_lock);
    return rc;
}

void pp__sampler_translate(sampler *s)
{
    atomic_store_explicit(&s->translating, true, memory_order_release);
}

static bool same_source(const sampler_source *a, const sampler_source *b)
{
    return a->slot ? a->slot == b->slot : !b->slot && a->read == b->read && a->ctx == b->ctx;
}

int pp__sampler_remove_source(sampler *s, sampler_source src)
{
    int rc = -1;
    pthread_mutex_lock(&s->slots_lock);
    for (size_t i = 0; i < s->nslots; i++) {
        if (!same_source(&s->slots[i], &src))
            continue;
        s->slots[i] = s->slots[--s->nslots];
        if (s->nslots == 0 && !s->stopped)
            s->sampled_ns += pp__sampler_now_ns() - s->active_since;
        rc = 0;
        break;
    }
    pthread_mutex_unlock(&s->slots_lock);
    return rc;
}

void pp__sampler_stop(sampler *s)
{
    if (!s->running)
        return;
    pthread_mutex_lock(&s->slots_lock);
    s->stop = true;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->slots_lock);
    pthread_join(s->thread, NULL);
    s->running = false;
    pthread_mutex_lock(&s->slots_lock);
    if (s->nslots > 0) /* still registered: count the time until now */
        s->sampled_ns += pp__sampler_now_ns() - s->active_since;
    s->stopped = true;
    pthread_mutex_unlock(&s->slots_lock);
}

void pp__sampler_destroy(sampler *s)
{
    pp__sampler_stop(s);
    pthread_mutex_destroy(&s->slots_lock);
    pthread_cond_destroy(&s->wake);
    free(s->slots);
    s->slots = NULL;
}
