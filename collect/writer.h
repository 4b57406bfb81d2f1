/*
 * writer.h - the writer thread: takes full sample buffers from the queue,
 * counts their pcs into the histogram, compresses them (sample_codec) and
 * commits each as a sample_chunks row.  A chunk that cannot be written is
 * counted as dropped and the first error is kept for the run's close.
 */
#ifndef PULLEY_WRITER_H
#define PULLEY_WRITER_H

#include <pthread.h>
#include <stdint.h>

#include "pc_hist.h"
#include "profile_db.h"
#include "sample_queue.h"

typedef struct writer {
    sample_queue *queue;
    profile_db *db;
    int64_t run_id;
    uint64_t period_ns;
    pthread_t thread;
    /* Owned by the writer thread until pp__writer_join returns. */
    pc_hist hist;
    uint64_t written, dropped, bytes, chunks;
    char error[512]; /* the first failure, or "" */
} writer;

/* Start writing q's buffers into run_id of db.  0, or -1 with err. */
int pp__writer_start(writer *w, sample_queue *q, profile_db *db, int64_t run_id, uint64_t period_ns,
                 char *err, size_t errcap);
/* Wait until the queue is closed and drained. */
void pp__writer_join(writer *w);

#endif
