/*
 * pc_hist.c - the pc -> sample count map (linear probing, grown at half
 * full).
 */
#include "pc_hist.h"

#include <stdlib.h>

static size_t slot_of(uint64_t pc, size_t cap)
{
    pc *= UINT64_C(0x9E3779B97F4A7C15); /* Fibonacci hashing */
    return (size_t)(pc >> 32) & (cap - 1);
}

static int grow(pc_hist *h)
{
    size_t cap = h->cap ? h->cap * 2 : 1024;
    pc_hist_entry *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < h->cap; i++) {
        if (!h->slots[i].count)
            continue;
        size_t j = slot_of(h->slots[i].pc, cap);
        while (slots[j].count)
            j = (j + 1) & (cap - 1);
        slots[j] = h->slots[i];
    }
    free(h->slots);
    h->slots = slots;
    h->cap = cap;
    return 0;
}

int pp__pc_hist_add(pc_hist *h, uint64_t pc, uint64_t count)
{
    if ((h->used + 1) * 2 > h->cap && grow(h) != 0)
        return -1;
    size_t j = slot_of(pc, h->cap);
    while (h->slots[j].count && h->slots[j].pc != pc)
        j = (j + 1) & (h->cap - 1);
    if (!h->slots[j].count) {
        h->slots[j].pc = pc;
        h->used++;
    }
    h->slots[j].count += count;
    return 0;
}

void pp__pc_hist_free(pc_hist *h)
{
    free(h->slots);
    *h = (pc_hist){0};
}
