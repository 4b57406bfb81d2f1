/*
 * sample_queue.c - the buffer pool between sampler and writer (see
 * sample_queue.h).  One mutex; the sampler holds it only to pop or push a
 * list head.
 */
#include "sample_queue.h"

#include <stdint.h>
#include <stdlib.h>

int pp__sample_queue_init(sample_queue *q, size_t nbufs, size_t cap)
{
    *q = (sample_queue){0};
    q->all = calloc(nbufs, sizeof *q->all);
    /* One block for all buffers: one mapping, made at open, pages touched
     * only as samples come. */
    q->recs = nbufs && cap <= SIZE_MAX / sizeof *q->recs / nbufs
                  ? malloc(nbufs * cap * sizeof *q->recs)
                  : NULL;
    if (!q->all || !q->recs) {
        pp__sample_queue_destroy(q);
        return -1;
    }
    q->nbufs = nbufs;
    for (size_t i = 0; i < nbufs; i++) {
        sample_buf *b = &q->all[i];
        b->recs = q->recs + i * cap;
        b->cap = cap;
        b->next = q->free_list;
        q->free_list = b;
    }
    if (pthread_mutex_init(&q->lock, NULL) != 0) {
        pp__sample_queue_destroy(q);
        return -1;
    }
    if (pthread_cond_init(&q->ready, NULL) != 0) {
        pthread_mutex_destroy(&q->lock);
        pp__sample_queue_destroy(q);
        return -1;
    }
    q->sync_live = true;
    return 0;
}

void pp__sample_queue_destroy(sample_queue *q)
{
    if (q->sync_live) {
        pthread_cond_destroy(&q->ready);
        pthread_mutex_destroy(&q->lock);
    }
    free(q->recs);
    free(q->all);
    *q = (sample_queue){0};
}

sample_buf *pp__sample_queue_get_free(sample_queue *q)
{
    pthread_mutex_lock(&q->lock);
    sample_buf *b = q->free_list;
    if (b) {
        q->free_list = b->next;
        b->n = 0;
        b->next = NULL;
    }
    pthread_mutex_unlock(&q->lock);
    return b;
}

void pp__sample_queue_put_full(sample_queue *q, sample_buf *b)
{
    pthread_mutex_lock(&q->lock);
    b->next = NULL;
    if (q->full_tail)
        q->full_tail->next = b;
    else
        q->full_head = b;
    q->full_tail = b;
    pthread_cond_signal(&q->ready);
    pthread_mutex_unlock(&q->lock);
}

void pp__sample_queue_close(sample_queue *q)
{
    pthread_mutex_lock(&q->lock);
    q->closed = true;
    pthread_cond_broadcast(&q->ready);
    pthread_mutex_unlock(&q->lock);
}

sample_buf *pp__sample_queue_take_full(sample_queue *q)
{
    pthread_mutex_lock(&q->lock);
    while (!q->full_head && !q->closed)
        pthread_cond_wait(&q->ready, &q->lock);
    sample_buf *b = q->full_head;
    if (b) {
        q->full_head = b->next;
        if (!q->full_head)
            q->full_tail = NULL;
        b->next = NULL;
    }
    pthread_mutex_unlock(&q->lock);
    return b;
}

void pp__sample_queue_put_free(sample_queue *q, sample_buf *b)
{
    pthread_mutex_lock(&q->lock);
    b->next = q->free_list;
    q->free_list = b;
    pthread_mutex_unlock(&q->lock);
}
