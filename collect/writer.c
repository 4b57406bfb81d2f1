/*
 * writer.c - the writer thread (see writer.h): the only thread that
 * compresses samples or writes them to SQLite while the program runs.
 */
#include "writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_store.h"
#include "sample_codec.h"

static void note_error(writer *w, const char *msg)
{
    if (!w->error[0])
        snprintf(w->error, sizeof w->error, "%s", msg);
}

static void write_buffer(writer *w, const sample_buf *b)
{
    char err[512];
    uint8_t *data = NULL;
    size_t len, raw;
    if (sample_encode(b->recs, b->n, &data, &len, &raw, err, sizeof err) != 0) {
        w->dropped += b->n;
        note_error(w, err);
        return;
    }
    run_chunk c = {
        .encoding = SAMPLE_ENCODING,
        .seq = (int64_t)w->chunks,
        .samples = b->n,
        .first_ns = b->recs[0].tick * w->period_ns,
        .last_ns = b->recs[b->n - 1].tick * w->period_ns,
        .raw_bytes = raw,
        .data = data,
        .len = len,
    };
    if (pp__run_store_chunk(w->db, w->run_id, &c, err, sizeof err) != 0) {
        w->dropped += b->n;
        note_error(w, err);
    } else {
        w->written += b->n;
        w->bytes += len;
        w->chunks++;
        for (size_t i = 0; i < b->n; i++)
            if (pp__pc_hist_add(&w->hist, b->recs[i].pc, 1) != 0) {
                note_error(w, "out of memory counting samples per pc");
                break;
            }
    }
    free(data);
}

static void *writer_main(void *arg)
{
    writer *w = arg;
    sample_buf *b;
    while ((b = pp__sample_queue_take_full(w->queue))) {
        write_buffer(w, b);
        pp__sample_queue_put_free(w->queue, b);
    }
    return NULL;
}

int pp__writer_start(writer *w, sample_queue *q, profile_db *db, int64_t run_id, uint64_t period_ns,
                 char *err, size_t errcap)
{
    *w = (writer){.queue = q, .db = db, .run_id = run_id, .period_ns = period_ns};
    int rc = pthread_create(&w->thread, NULL, writer_main, w);
    if (rc != 0) {
        snprintf(err, errcap, "cannot start the writer thread: %s", strerror(rc));
        return -1;
    }
    return 0;
}

void pp__writer_join(writer *w) { pthread_join(w->thread, NULL); }
