/*
 * addr_index.h - non-overlapping address ranges [start, end), each with a
 * value, in a treap: insert, remove, the range holding an address, and a
 * range overlapping a given one, each in O(log n) expected.  The registry
 * keeps two: the live functions by their real address (overlap checks,
 * the sampler's translation) and every function by its stored address
 * (the ranges stored with the run).  Not thread-safe: the agent locks it.
 */
#ifndef PULLEY_ADDR_INDEX_H
#define PULLEY_ADDR_INDEX_H

#include <stddef.h>
#include <stdint.h>

typedef struct addr_node {
    uintptr_t start, end;  /* end > start */
    uint32_t value;
    uint32_t left, right;  /* node numbers, 0: none */
    uint32_t prio;
} addr_node;

typedef struct addr_index {
    addr_node *nodes;      /* nodes[0] unused */
    size_t n, cap;         /* nodes in use or freed, room */
    uint32_t root, free;   /* free: a chain of removed nodes through .left */
    uint32_t seed;
} addr_index;

/* Add [start, end) with value; it must overlap no range of x.  0, or -1
 * when out of memory (x unchanged). */
int pp__addr_index_insert(addr_index *x, uintptr_t start, uintptr_t end, uint32_t value);
/* Remove the range starting at start, if there is one. */
void pp__addr_index_remove(addr_index *x, uintptr_t start);
/* The range holding pc, or NULL. */
const addr_node *pp__addr_index_find(const addr_index *x, uintptr_t pc);
/* A range overlapping [start, end) (end > start), or NULL. */
const addr_node *pp__addr_index_overlap(const addr_index *x, uintptr_t start, uintptr_t end);
void pp__addr_index_free(addr_index *x);

#endif
