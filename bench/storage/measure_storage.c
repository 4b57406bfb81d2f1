/*
 * measure_storage.c - how compactly sample streams are stored: for every
 * run of the profile databases given, decode its chunks (either format),
 * re-encode the stream as dzv1-zlib and as dzv2-rc in chunks of the sizes
 * asked for, and print bytes per sample beside the order-0 entropy of the
 * pcs (the fewest bits any coder treating samples as independent can
 * spend on a pc) and of the tick deltas (deadlines the sampler missed
 * make them vary), and the share of deadlines missed.  Used by
 * measure_storage.sh; a measurement, not a test.
 *
 *   measure_storage [-c CHUNK]... DB...    (default chunk sizes 16384, the
 *                                           writer's, and 65536)
 */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "sample_codec.h"

enum { MAX_SIZES = 8 };

typedef struct stream {
    sample_rec *s;
    size_t n, cap;
} stream;

static int append(stream *st, const sample_rec *s, size_t n)
{
    if (BASE_GROW(st->s, st->cap, st->n + n, 65536) != 0)
        return -1;
    if (n)
        memcpy(st->s + st->n, s, n * sizeof *s);
    st->n += n;
    return 0;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Order-0 entropy, bits per value, of v[0..n) (sorted in place). */
static double entropy(uint64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, compare_u64);
    double h = 0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && v[j] == v[i]; j++)
            continue;
        double p = (double)(j - i) / (double)n;
        h -= p * log2(p);
    }
    return h;
}

/* Bytes the stream takes in `format` cut into chunks of `chunk` samples;
 * 0 (with a message) on failure. */
static double encoded_bytes(const stream *st, sample_format format, size_t chunk)
{
    double total = 0;
    for (size_t at = 0; at < st->n; at += chunk) {
        size_t n = st->n - at < chunk ? st->n - at : chunk, len, raw;
        uint8_t *data;
        char err[256];
        if (sample_encode_as(format, st->s + at, n, &data, &len, &raw, err, sizeof err) != 0) {
            fprintf(stderr, "measure_storage: %s\n", err);
            return 0;
        }
        total += (double)len;
        free(data);
    }
    return total;
}

static void report(const char *name, const stream *st, double stored, double missed,
                   const size_t *sizes, size_t nsizes)
{
    uint64_t *pcs = malloc((st->n ? st->n : 1) * sizeof *pcs);
    uint64_t *dts = malloc((st->n ? st->n : 1) * sizeof *dts);
    if (!pcs || !dts) {
        fprintf(stderr, "measure_storage: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < st->n; i++) {
        pcs[i] = st->s[i].pc;
        dts[i] = st->s[i].tick - (i ? st->s[i - 1].tick : 0);
    }
    double n = (double)st->n, hpc = entropy(pcs, st->n), htick = entropy(dts, st->n);
    printf("%-12s %8zu %9.0f %7.3f %9.3f", name, st->n, stored, stored / n,
           encoded_bytes(st, SAMPLE_FORMAT_DZV1_ZLIB, 8192) / n);
    for (size_t i = 0; i < nsizes; i++)
        printf(" %9.3f", encoded_bytes(st, SAMPLE_FORMAT_DZV2_RC, sizes[i]) / n);
    printf(" %7.2f %7.3f %7.2f %7.1f\n", hpc, hpc / 8, htick, missed);
    free(pcs);
    free(dts);
}

/* Every run of one database, one line each. */
static int measure_db(const char *path, const size_t *sizes, size_t nsizes)
{
    sqlite3 *db;
    sqlite3_stmt *st = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db,
                           "SELECT r.id, coalesce(r.label, r.benchmark, 'run'), c.data,"
                           " 100.0 * r.ticks_missed / (r.ticks_missed + r.samples_taken)"
                           " FROM sample_chunks c JOIN runs r ON r.id = c.run_id"
                           " ORDER BY r.id, c.seq",
                           -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "measure_storage: %s: %s\n", path, sqlite3_errmsg(db));
        sqlite3_close(db);
        return -1;
    }
    stream s = {0};
    double stored = 0, missed = 0;
    int64_t run = -1;
    char name[64] = "";
    int rc, status = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (id != run && s.n) {
            report(name, &s, stored, missed, sizes, nsizes);
            s.n = 0;
            stored = 0;
        }
        run = id;
        missed = sqlite3_column_double(st, 3);
        snprintf(name, sizeof name, "%s", (const char *)sqlite3_column_text(st, 1));
        const uint8_t *data = sqlite3_column_blob(st, 2);
        size_t len = (size_t)sqlite3_column_bytes(st, 2), n;
        sample_rec *recs;
        char err[256] = "";
        if (sample_decode(data, len, &recs, &n, err, sizeof err) != 0 || append(&s, recs, n) != 0) {
            fprintf(stderr, "measure_storage: %s: run %lld: %s\n", path, (long long)id,
                    err[0] ? err : "out of memory");
            free(recs);
            status = -1;
            break;
        }
        free(recs);
        stored += (double)len;
    }
    if (rc != SQLITE_DONE && status == 0) {
        fprintf(stderr, "measure_storage: %s: %s\n", path, sqlite3_errmsg(db));
        status = -1;
    }
    if (status == 0 && s.n)
        report(name, &s, stored, missed, sizes, nsizes);
    free(s.s);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return status;
}

static const char usage[] =
    "Usage: measure_storage [-c CHUNK]... DB...\n"
    "For every run of the profile databases: samples, bytes stored and per sample, the stream\n"
    "re-encoded as dzv1-zlib (8192-sample chunks) and as dzv2-rc in chunks of CHUNK samples\n"
    "(default 16384 and 65536; up to 8 sizes), the order-0 entropy of the pcs (bits, and bytes\n"
    "per sample) and of the tick deltas, and the percentage of deadlines missed.\n";

int main(int argc, char **argv)
{
    size_t sizes[MAX_SIZES], nsizes = 0;
    int i = 1;
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(usage, stdout);
        return 0;
    }
    for (; i < argc && argv[i][0] == '-'; i += 2) {
        char *end;
        unsigned long v = i + 1 < argc ? strtoul(argv[i + 1], &end, 10) : 0;
        if (strcmp(argv[i], "-c") != 0 || v == 0 || v > SAMPLE_CHUNK_MAX || *end ||
            nsizes == MAX_SIZES) {
            fprintf(stderr, "measure_storage: -c takes a chunk size from 1 to %zu, at most %d"
                            " times\n%s", SAMPLE_CHUNK_MAX, MAX_SIZES, usage);
            return 2;
        }
        sizes[nsizes++] = v;
    }
    if (i == argc) {
        fputs(usage, stderr);
        return 2;
    }
    if (!nsizes) {
        sizes[nsizes++] = 16384;
        sizes[nsizes++] = 65536;
    }
    printf("%-12s %8s %9s %7s %9s", "run", "samples", "bytes", "B/s", "dzv1/8192");
    for (size_t k = 0; k < nsizes; k++) {
        char head[32];
        snprintf(head, sizeof head, "dzv2/%zu", sizes[k]);
        printf(" %9s", head);
    }
    printf(" %7s %7s %7s %7s\n", "H(pc)", "H/8", "H(dt)", "missed%");
    int status = 0;
    for (; i < argc; i++)
        if (measure_db(argv[i], sizes, nsizes) != 0)
            status = 1;
    return status;
}
