/*
 * bytes.h - little-endian reads and writes of unaligned bytes, the bits of
 * floats (without type punning), and a growable byte buffer that
 * remembers allocation failure.
 */
#ifndef PULLEY_BYTES_H
#define PULLEY_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* On a little-endian host a read or write is one unaligned access
 * (memcpy: no aliasing or alignment assumption; the compiler emits a
 * single move); elsewhere it is assembled byte by byte. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PVM_LE_ACCESS(bits)                                                    \
    static inline uint##bits##_t pvm_rd##bits(const uint8_t *p)               \
    {                                                                          \
        uint##bits##_t v;                                                      \
        memcpy(&v, p, sizeof v);                                               \
        return v;                                                              \
    }                                                                          \
    static inline void pvm_wr##bits(uint8_t *p, uint##bits##_t v) { memcpy(p, &v, sizeof v); }
PVM_LE_ACCESS(16)
PVM_LE_ACCESS(32)
PVM_LE_ACCESS(64)
#undef PVM_LE_ACCESS
#else
static inline uint16_t pvm_rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t pvm_rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t pvm_rd64(const uint8_t *p) { return pvm_rd32(p) | (uint64_t)pvm_rd32(p + 4) << 32; }
static inline void pvm_wr16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void pvm_wr32(uint8_t *p, uint32_t v)
{
    pvm_wr16(p, (uint16_t)v);
    pvm_wr16(p + 2, (uint16_t)(v >> 16));
}
static inline void pvm_wr64(uint8_t *p, uint64_t v)
{
    pvm_wr32(p, (uint32_t)v);
    pvm_wr32(p + 4, (uint32_t)(v >> 32));
}
#endif

static inline uint32_t pvm_f32_bits(float v)
{
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}
static inline uint64_t pvm_f64_bits(double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}
static inline float pvm_f32_from_bits(uint32_t b)
{
    float v;
    memcpy(&v, &b, sizeof v);
    return v;
}
static inline double pvm_f64_from_bits(uint64_t b)
{
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

/* A growable buffer.  After a failed allocation `failed` is set, further
 * appends are ignored, and the caller reports the error once at the end. */
typedef struct pvm_buf {
    uint8_t *data;
    size_t len, cap;
    bool failed;
} pvm_buf;

/* Make room for n more bytes; returns a pointer to them or NULL. */
uint8_t *pvm_buf_reserve(pvm_buf *b, size_t n);
void pvm_buf_append(pvm_buf *b, const void *data, size_t n);
void pvm_buf_u8(pvm_buf *b, uint8_t v);
void pvm_buf_u16(pvm_buf *b, uint16_t v);
void pvm_buf_u32(pvm_buf *b, uint32_t v);
void pvm_buf_u64(pvm_buf *b, uint64_t v);
void pvm_buf_free(pvm_buf *b);

#endif
