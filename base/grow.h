/*
 * base/grow.h - growing an array: the one place that computes a new
 * capacity, checks it for overflow and calls realloc.
 *
 * base_grow(&items, &cap, need, item_size, first_cap) makes room for need
 * items: when need > cap the capacity becomes twice cap (first_cap when cap
 * is 0), or need if that is more.  0, or -1 when the size overflows or
 * realloc fails: then items and cap are unchanged.
 *
 * BASE_GROW(p, cap, need, first_cap) does the same for a typed pointer p
 * and a size_t cap, both lvalues; each argument is evaluated more than
 * once, and need is read again after cap changed: pass plain names and a
 * need that does not depend on cap.  Models: Lua's luaM_growvector,
 * libuv's uv__reallocf.
 */
#ifndef PULLEY_BASE_GROW_H
#define PULLEY_BASE_GROW_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

static inline int base_grow(void **items, size_t *cap, size_t need, size_t item_size,
                            size_t first_cap)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap == 0 ? first_cap : *cap <= SIZE_MAX / 2 ? 2 * *cap : SIZE_MAX;
    if (n < need)
        n = need;
    if (item_size == 0 || n > SIZE_MAX / item_size)
        return -1;
    void *grown = realloc(*items, n * item_size);
    if (!grown)
        return -1;
    *items = grown;
    *cap = n;
    return 0;
}

/* For BASE_GROW: p's new value (the old one on failure, with cap unchanged). */
static inline void *base_grow_ptr_(void *items, size_t *cap, size_t need, size_t item_size,
                                   size_t first_cap)
{
    (void)base_grow(&items, cap, need, item_size, first_cap);
    return items;
}

#define BASE_GROW(p, cap, need, first_cap)                                                        \
    ((p) = base_grow_ptr_((p), &(cap), (need), sizeof *(p), (first_cap)), (need) <= (cap) ? 0 : -1)

#endif
