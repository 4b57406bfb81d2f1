/*
 * func_rows.h - one function decoded, in memory: its instruction rows as
 * the database stores them (offset, length, opcode, text and the operand
 * lists), packed in one buffer until they are written, the checksum of its
 * code and rows (format/func_checksum.h), and bitmaps of the offsets
 * where its instructions start, which the exact counts are checked
 * against and the samples placed by, and of those that end a run, over
 * which a sample of an interpreter publishing run starts is spread.  Decoding happens while the decode
 * context is known to be valid (see registry.h), writing later.
 */
#ifndef PULLEY_FUNC_ROWS_H
#define PULLEY_FUNC_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "isa_rows.h"

typedef struct func_rows {
    uint8_t *buf;      /* the packed rows; NULL once released */
    size_t len, cap;
    uint32_t nrows;
    uint64_t checksum; /* of the code and every row */
    bool cut_short;    /* its bytes stopped decoding before the end */
} func_rows;

/* One row, its strings pointing into the buffer. */
typedef struct func_row {
    uint32_t offset, length, opcode;
    const char *text, *regs, *imms, *targets;
} func_row;

/* Scratch space one decoder call needs, reused across functions. */
typedef struct func_decoder {
    pulleyprof_insn insn;
    char text[512];
    char *targets;
    size_t targets_cap;
} func_decoder;
void pp__func_decoder_free(func_decoder *d);

/* Decode code[0..size) with isa and ctx into *out, mark each
 * instruction's start in starts and each one that ends a straight-line
 * run (its opcode flagged BRANCH, TERMINATOR, CALL or RETURN) in ends
 * (size bits each, zeroed by the caller).  0, or -1 when out of memory
 * (out then holds nothing). */
int pp__func_rows_decode(func_rows *out, uint8_t *starts, uint8_t *ends, const isa_rows *isa,
                         const void *ctx, const uint8_t *code, size_t size, func_decoder *d);
/* The row at position *pos (0 for the first) into *row, advancing *pos;
 * false after the last. */
bool pp__func_rows_next(const func_rows *f, size_t *pos, func_row *row);
void pp__func_rows_release(func_rows *f);

/* The start of the instruction holding byte off: the last start at or
 * before it, or off itself when there is none. */
size_t pp__func_rows_start_at(const uint8_t *starts, size_t off);

/* Instructions flagged so end a straight-line run (pulleyprof_publish). */
#define PP_RUN_END_FLAGS                                                      \
    (PULLEYPROF_BRANCH | PULLEYPROF_TERMINATOR | PULLEYPROF_CALL | PULLEYPROF_RETURN)

#endif
