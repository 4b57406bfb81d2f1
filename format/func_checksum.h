/*
 * func_checksum.h - the checksum stored in functions.checksum (schema
 * version 4): 64-bit FNV-1a over a function's code bytes, then over each
 * of its `instructions` rows in offset order (offset, length and opcode as
 * 8 little-endian bytes each, then the text and its terminating NUL).  The
 * collector computes it as it writes the rows; the readers recompute it
 * from what they read, so that a byte changed in the file (a damaged disk,
 * a bad copy, a hand edit) is found and named instead of analysed.  It
 * detects damage, it does not authenticate.  Stored as the INTEGER with
 * the same 64 bits.  In a run whose rows store their operands (schema
 * version 6, runs.operands_stored) each row's regs, imms and targets
 * follow its text, each with its terminating NUL.
 */
#ifndef PULLEY_SQL_FUNC_CHECKSUM_H
#define PULLEY_SQL_FUNC_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

#include "base/hash.h"

#define PVM_CHECKSUM_START BASE_FNV1A64_INIT

static inline uint64_t pvm_checksum_bytes(uint64_t h, const void *data, size_t n)
{
    return base_fnv1a64_bytes(h, data, n);
}

static inline uint64_t pvm_checksum_int(uint64_t h, int64_t v)
{
    unsigned char le[8];
    for (int i = 0; i < 8; i++)
        le[i] = (unsigned char)((uint64_t)v >> (8 * i));
    return pvm_checksum_bytes(h, le, sizeof le);
}

static inline uint64_t pvm_checksum_str(uint64_t h, const char *s)
{
    const char *t = s ? s : "";
    size_t n = 0;
    while (t[n])
        n++;
    return pvm_checksum_bytes(h, t, n + 1);
}

/* One instruction row; text NULL counts as "". */
static inline uint64_t pvm_checksum_row(uint64_t h, int64_t offset, int64_t length, int64_t opcode,
                                        const char *text)
{
    h = pvm_checksum_int(h, offset);
    h = pvm_checksum_int(h, length);
    h = pvm_checksum_int(h, opcode);
    return pvm_checksum_str(h, text);
}

/* The stored operands of the row just added (NULL counts as ""). */
static inline uint64_t pvm_checksum_operands(uint64_t h, const char *regs, const char *imms,
                                             const char *targets)
{
    return pvm_checksum_str(pvm_checksum_str(pvm_checksum_str(h, regs), imms), targets);
}

#endif
