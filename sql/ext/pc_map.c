/*
 * pc_map.c - function address ranges and pc lookup (pc_map.h).
 */
#include "pc_map.h"

#include <stdlib.h>

#include "base/grow.h"

int sx_pc_map_add(sx_pc_map *m, int64_t function_id, uint64_t address, uint64_t size)
{
    if (BASE_GROW(m->items, m->cap, m->n + 1, 64) != 0)
        return -1;
    m->items[m->n++] = (sx_range){address, size, function_id};
    return 0;
}

static int by_address(const void *a, const void *b)
{
    const sx_range *x = a, *y = b;
    if (x->address != y->address)
        return x->address < y->address ? -1 : 1;
    return (x->function_id > y->function_id) - (x->function_id < y->function_id);
}

void sx_pc_map_sort(sx_pc_map *m)
{
    if (m->n > 1)
        qsort(m->items, m->n, sizeof *m->items, by_address);
}

const sx_range *sx_pc_map_find(const sx_pc_map *m, uint64_t pc)
{
    size_t lo = 0, hi = m->n; /* ranges starting at or below pc: [0, lo) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->items[mid].address <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const sx_range *r = &m->items[lo - 1];
    return pc - r->address < r->size ? r : NULL;
}

void sx_pc_map_free(sx_pc_map *m)
{
    free(m->items);
    *m = (sx_pc_map){0};
}
