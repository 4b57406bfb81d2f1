/* trees.c - pointer-chasing data structures and the allocator: complete
 * binary trees built and torn down node by node, an unbalanced binary
 * search tree with inserts, lookups, deletes and an in-order walk, and a
 * linked list whose nodes are linked in shuffled order and walked.
 *
 *   trees [ROUNDS]   (default 5) */
#include "bench_util.h"

/* ---- complete binary trees ------------------------------------------- */

struct tnode {
    struct tnode *left, *right;
};

static struct tnode *build(int depth)
{
    struct tnode *n = bench_alloc(sizeof *n);
    if (depth > 0) {
        n->left = build(depth - 1);
        n->right = build(depth - 1);
    } else {
        n->left = n->right = NULL;
    }
    return n;
}

static uint32_t count(const struct tnode *n)
{
    return n->left ? 1 + count(n->left) + count(n->right) : 1;
}

static void destroy(struct tnode *n)
{
    if (n->left) {
        destroy(n->left);
        destroy(n->right);
    }
    free(n);
}

/* ---- binary search tree ---------------------------------------------- */

struct bst {
    uint32_t key;
    uint32_t value;
    struct bst *left, *right;
};

static void bst_insert(struct bst **root, uint32_t key, uint32_t value)
{
    struct bst **at = root;
    while (*at) {
        if (key == (*at)->key) {
            (*at)->value += value;
            return;
        }
        at = key < (*at)->key ? &(*at)->left : &(*at)->right;
    }
    struct bst *n = bench_alloc(sizeof *n);
    n->key = key;
    n->value = value;
    n->left = n->right = NULL;
    *at = n;
}

static const struct bst *bst_find(const struct bst *n, uint32_t key)
{
    while (n && n->key != key)
        n = key < n->key ? n->left : n->right;
    return n;
}

/* Delete key if present: a node with two children takes its successor. */
static int bst_delete(struct bst **root, uint32_t key)
{
    struct bst **at = root;
    while (*at && (*at)->key != key)
        at = key < (*at)->key ? &(*at)->left : &(*at)->right;
    struct bst *n = *at;
    if (!n)
        return 0;
    if (n->left && n->right) {
        struct bst **succ = &n->right;
        while ((*succ)->left)
            succ = &(*succ)->left;
        struct bst *s = *succ;
        *succ = s->right;
        n->key = s->key;
        n->value = s->value;
        free(s);
    } else {
        *at = n->left ? n->left : n->right;
        free(n);
    }
    return 1;
}

/* In-order walk with an explicit stack; folds keys in order. */
static uint64_t bst_walk(const struct bst *root, uint32_t *nodes)
{
    const struct bst *stack[256];
    int sp = 0;
    uint64_t h = BENCH_CHECKSUM_INIT;
    uint32_t prev = 0, seen = 0;
    const struct bst *n = root;
    while (n || sp > 0) {
        while (n) {
            if (sp == 256) { /* never with random keys; fail loudly if it happens */
                fprintf(stderr, "bst too deep\n");
                exit(1);
            }
            stack[sp++] = n;
            n = n->left;
        }
        n = stack[--sp];
        if (seen && n->key <= prev) {
            fprintf(stderr, "bst order broken\n");
            exit(1);
        }
        prev = n->key;
        seen++;
        h = bench_mix(h, (uint64_t)n->key << 32 | n->value);
        n = n->right;
    }
    *nodes = seen;
    return h;
}

static void bst_free(struct bst *n)
{
    while (n) { /* recurse left, loop right */
        bst_free(n->left);
        struct bst *r = n->right;
        free(n);
        n = r;
    }
}

/* ---- shuffled linked list --------------------------------------------- */

struct lnode {
    struct lnode *next;
    uint32_t value;
};

static uint64_t list_round(bench_rng *rng, uint32_t n, int walks)
{
    struct lnode *nodes = bench_alloc(n * sizeof *nodes);
    uint32_t *order = bench_alloc(n * sizeof *order);
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    for (uint32_t i = n - 1; i > 0; i--) { /* Fisher-Yates */
        uint32_t j = bench_rng_below(rng, i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (uint32_t i = 0; i < n; i++) {
        nodes[order[i]].value = i * 2654435761u;
        nodes[order[i]].next = i + 1 < n ? &nodes[order[i + 1]] : NULL;
    }
    uint64_t h = 0;
    for (int w = 0; w < walks; w++) {
        uint32_t acc = (uint32_t)w;
        for (const struct lnode *p = &nodes[order[0]]; p; p = p->next)
            acc = (acc ^ p->value) * 31u + 7u;
        h = bench_mix(h, acc);
    }
    free(order);
    free(nodes);
    return h;
}

int main(int argc, char **argv)
{
    int rounds = bench_scale(argc, argv, 5);
    bench_rng rng = bench_rng_seed(0x7eee5);
    uint64_t sum = BENCH_CHECKSUM_INIT;
    uint32_t tree_nodes = 0, bst_nodes = 0, found = 0, deleted = 0;
    for (int r = 0; r < rounds; r++) {
        /* many short-lived small trees, then one big one */
        for (int i = 0; i < 64; i++) {
            struct tnode *t = build(8 + i % 4);
            tree_nodes += count(t);
            destroy(t);
        }
        struct tnode *big = build(15);
        tree_nodes += count(big);
        destroy(big);

        struct bst *root = NULL;
        const uint32_t keys = 20000, space = 1u << 17;
        for (uint32_t i = 0; i < keys; i++)
            bst_insert(&root, bench_rng_below(&rng, space), i);
        for (uint32_t i = 0; i < keys; i++) {
            const struct bst *n = bst_find(root, bench_rng_below(&rng, space));
            if (n) {
                found++;
                sum = bench_mix(sum, n->value);
            }
        }
        for (uint32_t i = 0; i < keys / 2; i++)
            deleted += (uint32_t)bst_delete(&root, bench_rng_below(&rng, space));
        sum = bench_mix(sum, bst_walk(root, &bst_nodes));
        bst_free(root);

        sum = bench_mix(sum, list_round(&rng, 30000, 8));
    }
    sum = bench_mix(sum, tree_nodes);
    printf("trees: %d rounds, %u tree nodes, %u bst nodes left, %u found, %u deleted\n",
           rounds, tree_nodes, bst_nodes, found, deleted);
    bench_print_checksum(sum);
    return 0;
}
