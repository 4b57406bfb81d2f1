/*
 * sample_queue.h - the hand-off between the sampler thread and the writer
 * thread: a fixed pool of sample buffers allocated up front.  The sampler
 * takes a free buffer without ever waiting (none free: the writer is
 * behind, and the sampler counts the samples it cannot store as dropped),
 * fills it and queues it; the writer waits for full buffers, writes them
 * and gives them back.
 */
#ifndef PULLEY_SAMPLE_QUEUE_H
#define PULLEY_SAMPLE_QUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "sample_codec.h"

typedef struct sample_buf {
    sample_rec *recs;
    size_t n, cap;
    struct sample_buf *next;
} sample_buf;

typedef struct sample_queue {
    pthread_mutex_t lock;
    pthread_cond_t ready; /* a full buffer was queued, or the queue closed */
    sample_buf *free_list;
    sample_buf *full_head, *full_tail;
    bool closed;
    sample_buf *all;      /* nbufs buffers */
    sample_rec *recs;     /* their samples, one block */
    size_t nbufs;
    bool sync_live;       /* lock and ready are initialised */
} sample_queue;

/* nbufs buffers of `cap` samples each.  Returns 0 or -1 (out of memory). */
int pp__sample_queue_init(sample_queue *q, size_t nbufs, size_t cap);
void pp__sample_queue_destroy(sample_queue *q);

/* A free, empty buffer, or NULL if none is free.  Never waits. */
sample_buf *pp__sample_queue_get_free(sample_queue *q);
/* Queue a filled buffer (n > 0) for the writer. */
void pp__sample_queue_put_full(sample_queue *q, sample_buf *b);
/* No more full buffers will come. */
void pp__sample_queue_close(sample_queue *q);
/* The oldest full buffer; waits for one.  NULL once the queue is closed
 * and empty. */
sample_buf *pp__sample_queue_take_full(sample_queue *q);
/* Give a written buffer back to the pool. */
void pp__sample_queue_put_free(sample_queue *q, sample_buf *b);

#endif
