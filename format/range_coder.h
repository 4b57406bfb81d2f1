/*
 * range_coder.h - a binary adaptive range coder (the carry-propagating
 * scheme of LZMA-style coders), used by the dzv2 sample chunk encoding in
 * sample_codec.c.  Header-only (static inline functions), so that whoever
 * compiles sample_codec.c alone (the SQL extension) needs no other source.
 *
 * A probability is a uint16_t: the chance, out of 65536, that the next bit
 * is 0.  It starts at RC_PROB_INIT and moves 1/16 of the way towards each
 * bit seen (fast adaptation: sample streams drift from phase to phase), so
 * it stays within [15, 65521] and both halves of a split are never empty.
 * Numbers (any uint64_t) are coded as a bit length then the bits below the
 * top one (rc_number): small numbers are cheap, every value is possible.
 *
 * The encoder writes 5 + (renormalisations) bytes, the first always 0; the
 * decoder reads exactly as many, so a chunk with bytes missing or left over
 * is recognised.  Reading past the end yields zeros and sets `overrun`.
 */
#ifndef PULLEY_RANGE_CODER_H
#define PULLEY_RANGE_CODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/grow.h"

#define RC_PROB_INIT 32768u
#define RC_ADAPT_SHIFT 4
#define RC_TOP (1u << 24)

/* ---- encoder ------------------------------------------------------------- */

typedef struct rc_encoder {
    uint64_t low;     /* 32 bits plus a carry */
    uint32_t range;
    uint8_t cache;    /* the last byte not yet written (a carry may change it) */
    uint64_t pending; /* cache plus the 0xFF bytes behind it, not yet written */
    uint8_t *buf;
    size_t len, cap;
    bool failed;      /* out of memory: the output is incomplete */
} rc_encoder;

static inline void rc_encoder_init(rc_encoder *e)
{
    *e = (rc_encoder){.range = UINT32_MAX, .pending = 1};
}

static inline void rc_put_byte(rc_encoder *e, uint8_t b)
{
    if (e->len == e->cap && (e->failed || BASE_GROW(e->buf, e->cap, e->len + 1, 256) != 0)) {
        e->failed = true;
        return;
    }
    e->buf[e->len++] = b;
}

/* Move the top byte of low out, resolving a pending carry. */
static inline void rc_shift_low(rc_encoder *e)
{
    if ((uint32_t)e->low < 0xFF000000u || (e->low >> 32) != 0) {
        uint8_t carry = (uint8_t)(e->low >> 32), b = e->cache;
        for (; e->pending; e->pending--) {
            rc_put_byte(e, (uint8_t)(b + carry));
            b = 0xFF;
        }
        e->cache = (uint8_t)(e->low >> 24);
    }
    e->pending++;
    e->low = (uint64_t)((uint32_t)e->low << 8);
}

static inline void rc_encode_bit(rc_encoder *e, uint16_t *prob, unsigned bit)
{
    uint32_t bound = (e->range >> 16) * *prob;
    if (!bit) {
        e->range = bound;
        *prob = (uint16_t)(*prob + ((65536u - *prob) >> RC_ADAPT_SHIFT));
    } else {
        e->low += bound;
        e->range -= bound;
        *prob = (uint16_t)(*prob - (*prob >> RC_ADAPT_SHIFT));
    }
    while (e->range < RC_TOP) {
        e->range <<= 8;
        rc_shift_low(e);
    }
}

/* Bits with probability 1/2, no model: the high bits first. */
static inline void rc_encode_direct(rc_encoder *e, uint64_t value, unsigned nbits)
{
    while (nbits--) {
        e->range >>= 1;
        if ((value >> nbits) & 1)
            e->low += e->range;
        while (e->range < RC_TOP) {
            e->range <<= 8;
            rc_shift_low(e);
        }
    }
}

/* Write out what is left.  The bytes are e->buf[0 .. e->len). */
static inline void rc_encoder_finish(rc_encoder *e)
{
    for (int i = 0; i < 5; i++)
        rc_shift_low(e);
}

/* ---- decoder ------------------------------------------------------------- */

typedef struct rc_decoder {
    const uint8_t *p, *end;
    uint32_t range, code;
    bool overrun; /* tried to read past the end */
} rc_decoder;

static inline uint8_t rc_next_byte(rc_decoder *d)
{
    if (d->p == d->end) {
        d->overrun = true;
        return 0;
    }
    return *d->p++;
}

/* Start decoding [p, end); false if the first byte is not 0. */
static inline bool rc_decoder_init(rc_decoder *d, const uint8_t *p, const uint8_t *end)
{
    *d = (rc_decoder){.p = p, .end = end, .range = UINT32_MAX};
    bool ok = rc_next_byte(d) == 0;
    for (int i = 0; i < 4; i++)
        d->code = (d->code << 8) | rc_next_byte(d);
    return ok;
}

static inline unsigned rc_decode_bit(rc_decoder *d, uint16_t *prob)
{
    uint32_t bound = (d->range >> 16) * *prob;
    unsigned bit;
    if (d->code < bound) {
        d->range = bound;
        *prob = (uint16_t)(*prob + ((65536u - *prob) >> RC_ADAPT_SHIFT));
        bit = 0;
    } else {
        d->code -= bound;
        d->range -= bound;
        *prob = (uint16_t)(*prob - (*prob >> RC_ADAPT_SHIFT));
        bit = 1;
    }
    while (d->range < RC_TOP) {
        d->range <<= 8;
        d->code = (d->code << 8) | rc_next_byte(d);
    }
    return bit;
}

static inline uint64_t rc_decode_direct(rc_decoder *d, unsigned nbits)
{
    uint64_t v = 0;
    while (nbits--) {
        d->range >>= 1;
        unsigned bit = d->code >= d->range;
        if (bit)
            d->code -= d->range;
        v = (v << 1) | bit;
        while (d->range < RC_TOP) {
            d->range <<= 8;
            d->code = (d->code << 8) | rc_next_byte(d);
        }
    }
    return v;
}

/* All input read, and no more than that. */
static inline bool rc_decoder_done(const rc_decoder *d) { return !d->overrun && d->p == d->end; }

/* ---- bit trees: symbols of a fixed number of bits ------------------------ */

/* probs has 1 << nbits entries (entry 0 unused), all RC_PROB_INIT. */
static inline void rc_encode_tree(rc_encoder *e, uint16_t *probs, unsigned nbits, uint32_t symbol)
{
    uint32_t node = 1;
    while (nbits--) {
        unsigned bit = (symbol >> nbits) & 1;
        rc_encode_bit(e, &probs[node], bit);
        node = (node << 1) | bit;
    }
}

static inline uint32_t rc_decode_tree(rc_decoder *d, uint16_t *probs, unsigned nbits)
{
    uint32_t node = 1;
    for (unsigned i = 0; i < nbits; i++)
        node = (node << 1) | rc_decode_bit(d, &probs[node]);
    return node - (1u << nbits);
}

static inline void rc_probs_init(uint16_t *probs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        probs[i] = RC_PROB_INIT;
}

/* ---- numbers: bit length, then the bits below the top one ----------------
 * The length (0..64) is a 7-bit tree symbol; the RC_NUMBER_MODELLED bits
 * below the top one are modelled per length, the rest are direct bits. */

enum { RC_LENGTH_BITS = 7, RC_NUMBER_MODELLED = 2 };

typedef struct rc_number_model {
    uint16_t length[1 << RC_LENGTH_BITS];
    uint16_t high[65][1 << RC_NUMBER_MODELLED];
} rc_number_model;

static inline void rc_number_model_init(rc_number_model *m)
{
    rc_probs_init(m->length, sizeof m->length / sizeof *m->length);
    rc_probs_init(&m->high[0][0], sizeof m->high / sizeof m->high[0][0]);
}

static inline unsigned rc_bit_length(uint64_t v)
{
    unsigned n = 0;
    for (; v; v >>= 1)
        n++;
    return n;
}

static inline void rc_encode_number(rc_encoder *e, rc_number_model *m, uint64_t v)
{
    unsigned len = rc_bit_length(v);
    rc_encode_tree(e, m->length, RC_LENGTH_BITS, len);
    if (len < 2)
        return; /* 0 and 1 are their length */
    unsigned below = len - 1;
    unsigned modelled = below < RC_NUMBER_MODELLED ? below : RC_NUMBER_MODELLED;
    rc_encode_tree(e, m->high[len], modelled, (uint32_t)(v >> (below - modelled)) &
                                                  ((1u << modelled) - 1));
    rc_encode_direct(e, v, below - modelled);
}

/* Decode a number; false if its length is over 64. */
static inline bool rc_decode_number(rc_decoder *d, rc_number_model *m, uint64_t *v)
{
    unsigned len = rc_decode_tree(d, m->length, RC_LENGTH_BITS);
    if (len > 64)
        return false;
    if (len < 2) {
        *v = len;
        return true;
    }
    unsigned below = len - 1;
    unsigned modelled = below < RC_NUMBER_MODELLED ? below : RC_NUMBER_MODELLED;
    uint64_t high = ((uint64_t)1 << modelled) | rc_decode_tree(d, m->high[len], modelled);
    unsigned rest = below - modelled;
    *v = (high << rest) | rc_decode_direct(d, rest);
    return true;
}

#endif
