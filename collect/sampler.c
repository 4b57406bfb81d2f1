/*
 * sampler.c - the sampler thread (see sampler.h).
 */
#include "sampler.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS 1000000000ull

uint64_t sampler_now_ns(void)
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
    if (!s->cur && !(s->cur = sample_queue_get_free(s->queue))) {
        s->dropped++; /* the writer is behind: counted, never silent */
        return;
    }
    s->cur->recs[s->cur->n++] = (sample_rec){tick, pc};
    if (s->cur->n == s->cur->cap) {
        sample_queue_put_full(s->queue, s->cur);
        s->cur = NULL;
    }
}

static void *sampler_main(void *arg)
{
    sampler *s = arg;
    struct timespec next = s->start;
    uint64_t tick = 0;
    while (!atomic_load_explicit(&s->stop, memory_order_acquire)) {
        tick++;
        next = add_ns(next, s->period_ns);
        int rc;
        while ((rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL)) == EINTR)
            continue;
        if (atomic_load_explicit(&s->stop, memory_order_acquire))
            break;
        pthread_mutex_lock(&s->slots_lock);
        for (size_t i = 0; i < s->nslots; i++)
            record(s, tick, atomic_load_explicit(s->slots[i], memory_order_relaxed));
        pthread_mutex_unlock(&s->slots_lock);
        uint64_t now = sampler_now_ns(), due = ns_of(next);
        if (now >= due + s->period_ns) { /* late: skip the deadlines passed */
            uint64_t missed = (now - due) / s->period_ns;
            tick += missed;
            s->ticks_missed += missed;
            next = add_ns(next, missed * s->period_ns);
        }
    }
    if (s->cur) {
        if (s->cur->n)
            sample_queue_put_full(s->queue, s->cur);
        else
            sample_queue_put_free(s->queue, s->cur);
        s->cur = NULL;
    }
    sample_queue_close(s->queue);
    return NULL;
}

int sampler_start(sampler *s, unsigned hz, sample_queue *q, char *err, size_t errcap)
{
    *s = (sampler){.period_ns = NS / hz, .queue = q};
    atomic_init(&s->stop, false);
    int rc = pthread_mutex_init(&s->slots_lock, NULL);
    if (rc == 0) {
        clock_gettime(CLOCK_MONOTONIC, &s->start);
        rc = pthread_create(&s->thread, NULL, sampler_main, s);
        if (rc != 0)
            pthread_mutex_destroy(&s->slots_lock);
    }
    if (rc != 0) {
        snprintf(err, errcap, "cannot start the sampler thread: %s", strerror(rc));
        return -1;
    }
    s->running = true;
    return 0;
}

int sampler_add_slot(sampler *s, _Atomic(uintptr_t) *slot)
{
    int rc = -1;
    pthread_mutex_lock(&s->slots_lock);
    if (s->nslots == s->slots_cap) {
        size_t cap = s->slots_cap ? s->slots_cap * 2 : 8;
        _Atomic(uintptr_t) **grown = realloc(s->slots, cap * sizeof *grown);
        if (grown) {
            s->slots = grown;
            s->slots_cap = cap;
        }
    }
    if (s->nslots < s->slots_cap) {
        if (s->nslots == 0)
            s->active_since = sampler_now_ns();
        s->slots[s->nslots++] = slot;
        rc = 0;
    }
    pthread_mutex_unlock(&s->slots_lock);
    return rc;
}

int sampler_remove_slot(sampler *s, _Atomic(uintptr_t) *slot)
{
    int rc = -1;
    pthread_mutex_lock(&s->slots_lock);
    for (size_t i = 0; i < s->nslots; i++) {
        if (s->slots[i] != slot)
            continue;
        s->slots[i] = s->slots[--s->nslots];
        if (s->nslots == 0 && !s->stopped)
            s->sampled_ns += sampler_now_ns() - s->active_since;
        rc = 0;
        break;
    }
    pthread_mutex_unlock(&s->slots_lock);
    return rc;
}

void sampler_stop(sampler *s)
{
    if (!s->running)
        return;
    atomic_store_explicit(&s->stop, true, memory_order_release);
    pthread_join(s->thread, NULL);
    s->running = false;
    pthread_mutex_lock(&s->slots_lock);
    if (s->nslots > 0) /* still registered: count the time until now */
        s->sampled_ns += sampler_now_ns() - s->active_since;
    s->stopped = true;
    pthread_mutex_unlock(&s->slots_lock);
}

void sampler_destroy(sampler *s)
{
    sampler_stop(s);
    pthread_mutex_destroy(&s->slots_lock);
    free(s->slots);
    s->slots = NULL;
}
