/*
 * bytes.c - the growable byte buffer.
 */
#include "bytes.h"

#include <stdlib.h>

#include "base/grow.h"

uint8_t *pvm_buf_reserve(pvm_buf *b, size_t n)
{
    if (b->failed)
        return NULL;
    if (n > SIZE_MAX / 2 - b->len) {
        b->failed = true;
        return NULL;
    }
    size_t need = b->len + n ? b->len + n : 1; /* data even for nothing */
    if (BASE_GROW(b->data, b->cap, need, 64) != 0) {
        b->failed = true;
        return NULL;
    }
    uint8_t *p = b->data + b->len;
    b->len += n;
    return p;
}

void pvm_buf_append(pvm_buf *b, const void *data, size_t n)
{
    uint8_t *p = pvm_buf_reserve(b, n);
    if (p && n)
        memcpy(p, data, n);
}

void pvm_buf_u8(pvm_buf *b, uint8_t v) { pvm_buf_append(b, &v, 1); }

void pvm_buf_u16(pvm_buf *b, uint16_t v)
{
    uint8_t *p = pvm_buf_reserve(b, 2);
    if (p)
        pvm_wr16(p, v);
}

void pvm_buf_u32(pvm_buf *b, uint32_t v)
{
    uint8_t *p = pvm_buf_reserve(b, 4);
    if (p)
        pvm_wr32(p, v);
}

void pvm_buf_u64(pvm_buf *b, uint64_t v)
{
    uint8_t *p = pvm_buf_reserve(b, 8);
    if (p)
        pvm_wr64(p, v);
}

void pvm_buf_free(pvm_buf *b)
{
    free(b->data);
    *b = (pvm_buf){0};
}
