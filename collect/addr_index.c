/*
 * addr_index.c - non-overlapping address ranges in a treap (see
 * addr_index.h): a binary search tree by start whose nodes also form a
 * heap by a random priority, kept so by splitting and merging.
 */
#include "addr_index.h"

#include "base/grow.h"

static addr_node *node(const addr_index *x, uint32_t i) { return &x->nodes[i]; }

/* Split tree t into the ranges starting below key (*l) and the others (*r). */
static void split(addr_index *x, uint32_t t, uintptr_t key, uint32_t *l, uint32_t *r)
{
    if (!t) {
        *l = *r = 0;
        return;
    }
    if (node(x, t)->start < key) {
        split(x, node(x, t)->right, key, &node(x, t)->right, r);
        *l = t;
    } else {
        split(x, node(x, t)->left, key, l, &node(x, t)->left);
        *r = t;
    }
}

/* Join trees l and r, every start of l below every start of r. */
static uint32_t merge(addr_index *x, uint32_t l, uint32_t r)
{
    if (!l || !r)
        return l ? l : r;
    if (node(x, l)->prio > node(x, r)->prio) {
        node(x, l)->right = merge(x, node(x, l)->right, r);
        return l;
    }
    node(x, r)->left = merge(x, l, node(x, r)->left);
    return r;
}

static uint32_t next_prio(addr_index *x)
{
    uint32_t s = x->seed ? x->seed : 0x9e3779b9u; /* xorshift32 */
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return x->seed = s;
}

int pp__addr_index_insert(addr_index *x, uintptr_t start, uintptr_t end, uint32_t value)
{
    uint32_t i = x->free;
    if (i) {
        x->free = node(x, i)->left;
    } else {
        if (x->n >= UINT32_MAX - 1 || BASE_GROW(x->nodes, x->cap, x->n + 2, 64) != 0)
            return -1;
        if (x->n == 0)
            x->n = 1; /* node 0 means none */
        i = (uint32_t)x->n++;
    }
    *node(x, i) = (addr_node){start, end, value, 0, 0, next_prio(x)};
    uint32_t l, r;
    split(x, x->root, start, &l, &r);
    x->root = merge(x, merge(x, l, i), r);
    return 0;
}

void pp__addr_index_remove(addr_index *x, uintptr_t start)
{
    uint32_t l, mid, r;
    split(x, x->root, start, &l, &r);
    split(x, r, start + 1, &mid, &r); /* mid: the range starting at start, or none */
    if (mid) {
        node(x, mid)->left = x->free;
        x->free = mid;
    }
    x->root = merge(x, l, r);
}

/* The range with the greatest start <= pc, or NULL. */
static const addr_node *at_or_below(const addr_index *x, uintptr_t pc)
{
    const addr_node *best = NULL;
    for (uint32_t t = x->root; t;) {
        const addr_node *n = node(x, t);
        if (n->start <= pc) {
            best = n;
            t = n->right;
        } else {
            t = n->left;
        }
    }
    return best;
}

const addr_node *pp__addr_index_find(const addr_index *x, uintptr_t pc)
{
    const addr_node *n = at_or_below(x, pc);
    return n && pc < n->end ? n : NULL;
}

const addr_node *pp__addr_index_overlap(const addr_index *x, uintptr_t start, uintptr_t end)
{
    /* Ranges do not overlap each other, so the last one starting before
     * end is the only one that can reach into [start, end). */
    const addr_node *n = at_or_below(x, end - 1);
    return n && n->end > start ? n : NULL;
}

void pp__addr_index_free(addr_index *x)
{
    free(x->nodes);
    *x = (addr_index){0};
}
