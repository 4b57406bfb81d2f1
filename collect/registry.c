/*
 * registry.c - the agent's in-memory record of modules, functions and
 * counts, and the address index that maps sampled pcs to functions.
 */
#include "registry.h"

#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

int pp__registry_add_module(registry *r, const char *name, const void *decode_ctx)
{
    if (!name || r->nmodules >= INT32_MAX ||
        BASE_GROW(r->modules, r->modules_cap, r->nmodules + 1, 16) != 0)
        return -1;
    char *copy = strdup(name);
    if (!copy)
        return -1;
    r->modules[r->nmodules] = (reg_module){copy, decode_ctx};
    return (int)r->nmodules++;
}

int pp__registry_add_function(registry *r, int module, uint32_t index, const char *name,
                          uintptr_t address, const uint8_t *code, size_t size)
{
    if (module < 0 || (size_t)module >= r->nmodules || !name || (!code && size) ||
        r->nfuncs >= INT32_MAX ||
        BASE_GROW(r->funcs, r->funcs_cap, r->nfuncs + 1, 16) != 0)
        return -1;
    char *name_copy = strdup(name);
    uint8_t *code_copy = malloc(size ? size : 1);
    if (!name_copy || !code_copy) {
        free(name_copy);
        free(code_copy);
        return -1;
    }
    if (size)
        memcpy(code_copy, code, size);
    r->funcs[r->nfuncs] = (reg_function){module, index, name_copy, address, code_copy, size};
    free(r->by_address); /* stale */
    r->by_address = NULL;
    return (int)r->nfuncs++;
}

/* Is offset inside the code of function handle func? */
static int inside(const registry *r, int func, uint32_t offset)
{
    return func >= 0 && (size_t)func < r->nfuncs && offset < r->funcs[func].size;
}

static int append_count(reg_counts *c, reg_count k)
{
    if (BASE_GROW(c->items, c->cap, c->n + 1, 16) != 0)
        return -1;
    c->items[c->n++] = k;
    return 0;
}

int pp__registry_add_exec(registry *r, int func, uint32_t offset, uint64_t count)
{
    if (!inside(r, func, offset))
        return REGISTRY_UNMAPPED;
    return append_count(&r->execs, (reg_count){func, -1, offset, 0, count});
}

int pp__registry_add_edge(registry *r, int func, uint32_t from, int to_func, uint32_t to,
                      uint64_t count)
{
    if (!inside(r, func, from) || !inside(r, to_func, to))
        return REGISTRY_UNMAPPED;
    return append_count(&r->edges, (reg_count){func, to_func, from, to, count});
}

static int by_address(const void *a, const void *b)
{
    uintptr_t x = ((const reg_address *)a)->address, y = ((const reg_address *)b)->address;
    return x < y ? -1 : x > y;
}

int pp__registry_sort(registry *r)
{
    free(r->by_address);
    r->by_address = malloc((r->nfuncs ? r->nfuncs : 1) * sizeof *r->by_address);
    if (!r->by_address)
        return -1;
    for (size_t i = 0; i < r->nfuncs; i++)
        r->by_address[i] = (reg_address){r->funcs[i].address, i};
    qsort(r->by_address, r->nfuncs, sizeof *r->by_address, by_address);
    return 0;
}

int pp__registry_find_pc(const registry *r, uintptr_t pc)
{
    size_t lo = 0, hi = r->nfuncs; /* count of functions starting at or below pc */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->by_address[mid].address <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return -1;
    const reg_function *f = &r->funcs[r->by_address[lo - 1].func];
    return pc - f->address < f->size ? (int)r->by_address[lo - 1].func : -1;
}

void pp__registry_free(registry *r)
{
    for (size_t i = 0; i < r->nmodules; i++)
        free(r->modules[i].name);
    for (size_t i = 0; i < r->nfuncs; i++) {
        free(r->funcs[i].name);
        free(r->funcs[i].code);
    }
    free(r->modules);
    free(r->funcs);
    free(r->execs.items);
    free(r->edges.items);
    free(r->by_address);
    *r = (registry){0};
}
