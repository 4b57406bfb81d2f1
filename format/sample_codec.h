/*
 * sample_codec.h - the compressed form of a sample stream, as stored in
 * sample_chunks.data, whose `encoding` column names the format.  The first
 * byte tells the two apart, so sample_decode reads both:
 *
 * "dzv2-rc" (SAMPLE_ENCODING, written since schema version 2):
 *
 *   0x02                      format byte
 *   varint n                  samples
 *   varint k                  distinct pcs (0 if n is 0, else 1..n)
 *   range-coded body (range_coder.h), adaptive models:
 *     the k distinct pcs, ascending: the first as a number, each next one
 *       as (its gap to the one before - 1)               [dictionary model]
 *     then per sample: (tick[i] - tick[i-1]) mod 2^64 as a number,
 *       tick[-1] = 0                                     [tick model]
 *       the index of pc[i] among the distinct pcs as a bit tree of
 *       ceil(log2 k) bits (no bits when k is 1)           [index tree]
 *   CRC-32 (zlib's crc32) of all the bytes before it, 4 bytes little-endian
 *
 *   At 10 kHz consecutive samples are ~10^4 instructions apart, so a pc is
 *   cheapest as an index into the few hundred distinct pcs of a chunk; the
 *   fast-adapting index tree (its nodes group nearby code) follows the
 *   program's phases.  Tick deltas are nearly always 1 and cost ~0.
 *
 * "dzv1-zlib" (SAMPLE_ENCODING_V1, databases of schema version 1):
 *
 *   zlib( varint n,
 *         n x zigzag-varint(tick[i] - tick[i-1]),   tick[-1] = 0
 *         n x zigzag-varint(pc[i] - pc[i-1]) )      pc[-1] = 0
 *   A zlib stream starts with 0x78.
 *
 * Varints are LEB128 (7 bits a byte, low bits first, at most 10 bytes).
 * Differences are modulo 2^64, so any stream (pc going backwards, huge
 * jumps, zeros) round-trips exactly.  Pure C + zlib, so that the SQL
 * extension can decode chunks too.
 */
#ifndef PULLEY_SAMPLE_CODEC_H
#define PULLEY_SAMPLE_CODEC_H

#include <stddef.h>
#include <stdint.h>

#define SAMPLE_ENCODING "dzv2-rc"
#define SAMPLE_ENCODING_V1 "dzv1-zlib"

/* The formats sample_encode_as can write. */
typedef enum sample_format { SAMPLE_FORMAT_DZV2_RC, SAMPLE_FORMAT_DZV1_ZLIB } sample_format;

/* One sample: the sampler's tick (sample periods since the run started)
 * and the pc read from a slot (0: host). */
typedef struct sample_rec {
    uint64_t tick;
    uint64_t pc;
} sample_rec;

/* Most samples one chunk may hold (the decoder refuses more). */
#define SAMPLE_CHUNK_MAX ((size_t)1 << 20)

/* Encode n samples (n <= SAMPLE_CHUNK_MAX) as SAMPLE_ENCODING: *out
 * (malloc'd, *outlen bytes), and in *rawlen the size of the samples before
 * compression (dzv2: 16 bytes a sample; dzv1: the varints before zlib).
 * Returns 0, or -1 with err. */
int sample_encode(const sample_rec *s, size_t n, uint8_t **out, size_t *outlen, size_t *rawlen,
                  char *err, size_t errcap);
/* The same in a chosen format (dzv1: to compare, or for old readers). */
int sample_encode_as(sample_format format, const sample_rec *s, size_t n, uint8_t **out,
                     size_t *outlen, size_t *rawlen, char *err, size_t errcap);
/* "dzv2-rc", "dzv1-zlib". */
const char *sample_format_name(sample_format format);

/* Decode a chunk of either format: *out (malloc'd; NULL when *n is 0).
 * Returns 0, or -1 with err for an unknown format byte, a bad checksum or
 * zlib data, truncated or overlong numbers, a count over SAMPLE_CHUNK_MAX,
 * an index past the dictionary, or bytes missing or left over. */
int sample_decode(const uint8_t *data, size_t len, sample_rec **out, size_t *n, char *err,
                  size_t errcap);

#endif
