/*
 * wasm_builder.h - hand-made Wasm binaries for the decoder and validator
 * tests: sections get their sizes computed, so that a test spells only the
 * bytes it is about.
 *
 *   wb w;
 *   wb_func_module(&w, WB_MEMORY, T("\x60\x00\x01\x7f"), T("\x00" "\x41\x01\x0b"));
 *   EXPECT_ERROR(&w, w.body + 1, "type mismatch");
 *
 * T("...") passes a string literal with its length (embedded NULs kept).
 */
#ifndef PULLEY_TEST_WASM_BUILDER_H
#define PULLEY_TEST_WASM_BUILDER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "wasm_module.h"

#define T(lit) (lit), (sizeof(lit) - 1)

typedef struct wb {
    uint8_t b[1 << 16];
    size_t n;
    size_t body; /* offset of the first instruction of wb_func_module's body */
} wb;

static inline void wb_bytes(wb *w, const void *p, size_t n)
{
    if (n)
        memcpy(w->b + w->n, p, n);
    w->n += n;
}

/* v as unsigned LEB128 into out; returns its length. */
static inline size_t wb_leb(uint8_t *out, uint32_t v)
{
    size_t n = 0;
    do {
        uint8_t byte = v & 0x7F;
        v >>= 7;
        out[n++] = byte | (v ? 0x80 : 0);
    } while (v);
    return n;
}

/* v as signed LEB128 (an iNN.const immediate) into out; returns its length. */
static inline size_t wb_sleb(uint8_t *out, int64_t v)
{
    size_t n = 0;
    for (;;) {
        uint8_t byte = v & 0x7f;
        v >>= 7; /* arithmetic: the sign stays */
        if ((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40))) {
            out[n++] = byte;
            return n;
        }
        out[n++] = byte | 0x80;
    }
}

static inline void wb_u32(wb *w, uint32_t v)
{
    w->n += wb_leb(w->b + w->n, v);
}

static inline void wb_header(wb *w)
{
    w->n = 0;
    wb_bytes(w, "\0asm\1\0\0\0", 8);
}

static inline void wb_section(wb *w, uint8_t id, const void *payload, size_t n)
{
    w->b[w->n++] = id;
    wb_u32(w, (uint32_t)n);
    wb_bytes(w, payload, n);
}

/* A code section of one entry (local declarations and instructions); the
 * offset of the entry's first byte goes to w->body. */
static inline void wb_code(wb *w, const char *code, size_t ncode)
{
    uint8_t head[16];
    size_t n = 1;
    head[0] = 1; /* one entry */
    n += wb_leb(head + n, (uint32_t)ncode);
    w->b[w->n++] = 10;
    wb_u32(w, (uint32_t)(n + ncode));
    wb_bytes(w, head, n);
    w->body = w->n;
    wb_bytes(w, code, ncode);
}

enum { WB_MEMORY = 1, WB_TABLE = 2, WB_DATACOUNT = 4, WB_EXPORT = 8 };

/* A module with one type, one function of that type whose code entry is
 * `code`, and, by flags, a memory of one page, a funcref table of one
 * element, the function exported as "f", and a data count section of 0. */
static inline void wb_func_module(wb *w, unsigned flags, const char *type, size_t ntype,
                                  const char *code, size_t ncode)
{
    uint8_t sec[256];
    wb_header(w);
    sec[0] = 1; /* one type */
    memcpy(sec + 1, type, ntype);
    wb_section(w, 1, sec, ntype + 1);
    wb_section(w, 3, "\x01\x00", 2);
    if (flags & WB_TABLE)
        wb_section(w, 4, "\x01\x70\x00\x01", 4);
    if (flags & WB_MEMORY)
        wb_section(w, 5, "\x01\x00\x01", 3);
    if (flags & WB_EXPORT)
        wb_section(w, 7, "\x01\x01" "f" "\x00\x00", 5);
    if (flags & WB_DATACOUNT)
        wb_section(w, 12, "\x00", 1);
    wb_code(w, code, ncode);
}

/* ---- assertions (include cmocka.h first) ------------------------------- */
#ifdef cmocka_unit_test
#include <stdio.h>

/* bytes must be rejected with a message "at byte <offset>...<what>...". */
static inline void wb_expect_error(const uint8_t *bytes, size_t n, size_t offset,
                                   const char *what)
{
    pvm_error err = {{0}};
    pvm_wasm_module *m = pvm_wasm_decode(bytes, n, &err);
    if (m) {
        pvm_wasm_module_free(m);
        fail_msg("module accepted; expected \"%s\" at byte %zu", what, offset);
    }
    char at[64];
    snprintf(at, sizeof at, "at byte %zu ", offset);
    if (strncmp(err.msg, at, strlen(at)) != 0 || !strstr(err.msg, what))
        fail_msg("expected \"%s...%s...\", got \"%s\"", at, what, err.msg);
}

static inline pvm_wasm_module *wb_expect_ok(const uint8_t *bytes, size_t n)
{
    pvm_error err = {{0}};
    pvm_wasm_module *m = pvm_wasm_decode(bytes, n, &err);
    if (!m)
        fail_msg("module rejected: %s", err.msg);
    return m;
}

#define EXPECT_ERROR(w, offset, what) wb_expect_error((w)->b, (w)->n, offset, what)
#define EXPECT_OK(w) pvm_wasm_module_free(wb_expect_ok((w)->b, (w)->n))
#endif

#endif
