/*
 * sample_codec.h - the compressed form of a sample stream, as stored in
 * sample_chunks.data (encoding SAMPLE_ENCODING):
 *
 *   zlib( varint n,
 *         n x zigzag-varint(tick[i] - tick[i-1]),   tick[-1] = 0
 *         n x zigzag-varint(pc[i] - pc[i-1]) )      pc[-1] = 0
 *
 * Differences are taken modulo 2^64 and read as signed, so any stream
 * (pc going backwards, huge jumps, zeros) round-trips exactly.  The time
 * and pc columns are kept apart so that zlib sees the (nearly constant)
 * tick deltas as one long run.  Varints are LEB128: 7 bits a byte, low
 * bits first, at most 10 bytes.  Pure C + zlib, so that the SQL extension
 * can decode chunks too.
 */
#ifndef PULLEY_SAMPLE_CODEC_H
#define PULLEY_SAMPLE_CODEC_H

#include <stddef.h>
#include <stdint.h>

#define SAMPLE_ENCODING "dzv1-zlib"

/* One sample: the sampler's tick (sample periods since the run started)
 * and the pc read from a slot (0: host). */
typedef struct sample_rec {
    uint64_t tick;
    uint64_t pc;
} sample_rec;

/* Most samples one chunk may hold (the decoder refuses more). */
#define SAMPLE_CHUNK_MAX ((size_t)1 << 24)

/* Encode n samples (n <= SAMPLE_CHUNK_MAX): *out (malloc'd, *outlen bytes)
 * and the size before zlib in *rawlen.  Returns 0, or -1 with err. */
int sample_encode(const sample_rec *s, size_t n, uint8_t **out, size_t *outlen, size_t *rawlen,
                  char *err, size_t errcap);

/* Decode a chunk: *out (malloc'd; NULL when *n is 0).  Returns 0, or -1
 * with err for bad zlib data, truncated or overlong varints, a count over
 * SAMPLE_CHUNK_MAX or trailing bytes. */
int sample_decode(const uint8_t *data, size_t len, sample_rec **out, size_t *n, char *err,
                  size_t errcap);

#endif
