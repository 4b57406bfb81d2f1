/*
 * pc_map.h - which function of a run a sampled pc falls in: the functions'
 * address ranges (functions.address, functions.size), sorted, searched the
 * way the collector maps samples to pc_samples rows.  Pure C.
 */
#ifndef SX_PC_MAP_H
#define SX_PC_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct sx_range {
    uint64_t address, size;
    int64_t function_id;
} sx_range;

typedef struct sx_pc_map {
    sx_range *items;
    size_t n, cap;
} sx_pc_map;

/* Add a function's range; 0, or -1 when out of memory. */
int sx_pc_map_add(sx_pc_map *m, int64_t function_id, uint64_t address, uint64_t size);
/* Sort the ranges (after the last add, before the first find). */
void sx_pc_map_sort(sx_pc_map *m);
/* The range holding pc (the one starting last at or below pc), or NULL. */
const sx_range *sx_pc_map_find(const sx_pc_map *m, uint64_t pc);
void sx_pc_map_free(sx_pc_map *m);

#endif
