/*
 * registry.c - the agent's in-memory record of modules, functions and
 * counts, the live and stored address ranges, and the checks each
 * registration and count gets (see registry.h).
 */
#include "registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/grow.h"

/* Moved functions go from here up (past any range stored there), far from
 * where code lives; stored addresses are SQLite integers, so at most
 * INT64_MAX. */
#if UINTPTR_MAX > 0xFFFFFFFFu
#define FRESH_BASE ((uintptr_t)1 << 62)
#define STORED_LIMIT ((uintptr_t)INT64_MAX)
#else
#define FRESH_BASE ((uintptr_t)1 << 31)
#define STORED_LIMIT UINTPTR_MAX
#endif

void pp__registry_init(registry *r, const isa_rows *isa)
{
    *r = (registry){.isa = isa, .fresh = FRESH_BASE};
}

int pp__registry_add_module(registry *r, const char *name, const void *decode_ctx, char *why,
                            size_t cap)
{
    if (!name)
        return base_fail(why, cap, "no name");
    if (r->nmodules >= INT32_MAX || BASE_GROW(r->modules, r->modules_cap, r->nmodules + 1, 16) != 0)
        return base_fail(why, cap, "out of memory");
    char *copy = strdup(name);
    if (!copy)
        return base_fail(why, cap, "out of memory");
    r->modules[r->nmodules] = (reg_module){copy, decode_ctx};
    return (int)r->nmodules++;
}

/* What is wrong with f as a new function, or NULL (why holds the text). */
static const char *function_problem(const registry *r, const pulleyprof_function *f, char *why,
                                    size_t cap)
{
    if (!f)
        snprintf(why, cap, "no function given");
    else if (!f->name)
        snprintf(why, cap, "a function without a name");
    else if (f->module < 0 || (size_t)f->module >= r->nmodules)
        snprintf(why, cap, "function '%s': unknown module handle %d", f->name, f->module);
    else if (f->size == 0)
        snprintf(why, cap, "function '%s': size 0 (a function has code)", f->name);
    else if (!f->code)
        snprintf(why, cap, "function '%s': no code (code NULL, size %zu)", f->name, f->size);
    else if (f->size > UINT32_MAX || f->address > UINTPTR_MAX - f->size)
        snprintf(why, cap, "function '%s': [%#jx, +%zu) is too large or wraps around", f->name,
                 (uintmax_t)f->address, f->size);
    else
        return NULL;
    return why;
}

/* Refuse f if it overlaps a live function: -1 with why, else 0. */
static int overlap_problem(const registry *r, const pulleyprof_function *f, char *why, size_t cap)
{
    const addr_node *n = pp__addr_index_overlap(&r->live, f->address, f->address + f->size);
    if (!n)
        return 0;
    const reg_function *g = &r->funcs[n->value];
    return base_fail(why, cap,
                     "function '%s' at [%#jx, %#jx) overlaps live function %u '%s' at [%#jx, %#jx)"
                     " (unregister it first, or replace it)",
                     f->name, (uintmax_t)f->address, (uintmax_t)(f->address + f->size), n->value,
                     g->name, (uintmax_t)g->address, (uintmax_t)(g->address + g->size));
}

/* Where a function of `size` bytes registered at `address` is stored: its
 * address, unless that overlaps the stored range of a function registered
 * before; then a fresh range overlapping nothing stored.  0 for its own
 * address, 1 for a fresh range, -1 when no such range is left. */
static int stored_address(registry *r, uintptr_t address, size_t size, uintptr_t *at)
{
    if (address <= STORED_LIMIT && size <= STORED_LIMIT - address &&
        !pp__addr_index_overlap(&r->stored, address, address + size)) {
        *at = address;
        return 0;
    }
    uintptr_t start = r->fresh;
    for (;;) {
        if (start > STORED_LIMIT - 16 || size > STORED_LIMIT - 16 - start)
            return -1;
        const addr_node *n = pp__addr_index_overlap(&r->stored, start, start + size);
        if (!n)
            break;
        start = n->end;
    }
    *at = start; /* the caller moves r->fresh past it once the function is added */
    return 1;
}

int pp__registry_add_function(registry *r, const pulleyprof_function *f, char *why, size_t cap)
{
    if (function_problem(r, f, why, cap) || overlap_problem(r, f, why, cap) != 0)
        return -1;
    if (r->nfuncs >= INT32_MAX || BASE_GROW(r->funcs, r->funcs_cap, r->nfuncs + 1, 16) != 0)
        return base_fail(why, cap, "out of memory");
    uintptr_t stored;
    int moved = stored_address(r, f->address, f->size, &stored);
    if (moved < 0)
        return base_fail(why, cap, "function '%s': no address range left to store it at",
                         f->name);
    reg_function g = {.module = f->module, .index = f->index, .name = strdup(f->name),
                      .address = f->address, .stored = stored, .code = malloc(f->size),
                      .size = f->size, .live = true,
                      .decode_ctx = f->decode_ctx ? f->decode_ctx
                                                  : r->modules[f->module].decode_ctx};
    uint32_t h = (uint32_t)r->nfuncs;
    if (!g.name || !g.code || pp__addr_index_insert(&r->live, f->address, f->address + f->size, h))
        goto oom;
    if (pp__addr_index_insert(&r->stored, stored, stored + f->size, h) != 0) {
        pp__addr_index_remove(&r->live, f->address);
        goto oom;
    }
    memcpy(g.code, f->code, f->size);
    r->funcs[r->nfuncs++] = g;
    if (moved) { /* the sampler translates from now on */
        r->fresh = (stored + f->size + 15) & ~(uintptr_t)15;
        r->moved = true;
    }
    return (int)h;
oom:
    free(g.name);
    free(g.code);
    return base_fail(why, cap, "out of memory");
}

/* f->costs from its rows, just decoded. */
static int keep_costs(const registry *r, reg_function *f)
{
    f->costs = malloc((f->rows.nrows ? f->rows.nrows : 1) * sizeof *f->costs);
    if (!f->costs)
        return -1;
    func_row row;
    uint32_t n = 0;
    for (size_t pos = 0; pp__func_rows_next(&f->rows, &pos, &row); n++) {
        const pulleyprof_opcode *op = pp__isa_rows_find(r->isa, row.opcode, NULL);
        f->costs[n] = (float)(op && op->cost > 0 ? op->cost : r->default_cost);
    }
    f->ncosts = n;
    return 0;
}

int pp__registry_decode(registry *r, size_t i)
{
    reg_function *f = &r->funcs[i];
    if (f->decoded)
        return 0;
    size_t bitmap = f->size / 8 + 1;
    f->starts = calloc(2, bitmap); /* starts, then ends */
    f->ends = f->starts ? f->starts + bitmap : NULL;
    if (!f->starts ||
        pp__func_rows_decode(&f->rows, f->starts, f->ends, r->isa, f->decode_ctx, f->code,
                             f->size, &r->decoder) != 0) {
        free(f->starts);
        f->starts = f->ends = NULL;
        return -1;
    }
    if (r->run_costs && keep_costs(r, f) != 0) {
        free(f->starts);
        f->starts = f->ends = NULL;
        pp__func_rows_release(&f->rows);
        return -1;
    }
    f->decoded = true;
    return 0;
}

void pp__registry_written(registry *r, size_t i)
{
    pp__func_rows_release(&r->funcs[i].rows);
    r->funcs[i].written = true;
}

/* Function handle func, or NULL with why. */
static reg_function *function_of(registry *r, int func, char *why, size_t cap)
{
    if (func >= 0 && (size_t)func < r->nfuncs)
        return &r->funcs[func];
    base_fail(why, cap, "unknown function handle %d", func);
    return NULL;
}

int pp__registry_unregister(registry *r, int func, char *why, size_t cap)
{
    reg_function *f = function_of(r, func, why, cap);
    if (!f)
        return -1;
    if (!f->live)
        return base_fail(why, cap, "function %d '%s' is unregistered already", func, f->name);
    if (pp__registry_decode(r, (size_t)func) != 0)
        return base_fail(why, cap, "out of memory decoding function %d '%s'", func, f->name);
    pp__addr_index_remove(&r->live, f->address);
    f->live = false;
    f->decode_ctx = NULL; /* may be freed from now on */
    return 0;
}

int pp__registry_replace(registry *r, int func, const pulleyprof_function *f, char *why,
                         size_t cap)
{
    if (pp__registry_unregister(r, func, why, cap) != 0)
        return -1;
    int h = pp__registry_add_function(r, f, why, cap);
    if (h < 0) {
        /* Live again; its node was just freed, so this takes no memory. */
        reg_function *g = &r->funcs[func];
        if (pp__addr_index_insert(&r->live, g->address, g->address + g->size, (uint32_t)func) == 0)
            g->live = true;
    }
    return h;
}

/* 0 if offset `off` is an instruction start of function func;
 * REGISTRY_UNMAPPED with why if not; -1 when out of memory. */
static int check_start(registry *r, int func, uint32_t off, char *why, size_t cap)
{
    reg_function *f = function_of(r, func, why, cap);
    if (!f)
        return REGISTRY_UNMAPPED;
    if (off >= f->size) {
        base_fail(why, cap, "offset %u is outside function %d '%s' (%zu bytes)", off, func,
                  f->name, f->size);
        return REGISTRY_UNMAPPED;
    }
    if (pp__registry_decode(r, (size_t)func) != 0)
        return base_fail(why, cap, "out of memory decoding function %d '%s'", func, f->name);
    if (!(f->starts[off / 8] & (1u << (off % 8)))) {
        base_fail(why, cap, "offset %u of function %d '%s' is not the start of an instruction",
                  off, func, f->name);
        return REGISTRY_UNMAPPED;
    }
    return 0;
}

static int append_count(reg_counts *c, reg_count k, char *why, size_t cap)
{
    if (BASE_GROW(c->items, c->cap, c->n + 1, 16) != 0)
        return base_fail(why, cap, "out of memory");
    c->items[c->n++] = k;
    return 0;
}

int pp__registry_add_exec(registry *r, int func, uint32_t offset, uint64_t count, char *why,
                          size_t cap)
{
    int rc = check_start(r, func, offset, why, cap);
    return rc ? rc : append_count(&r->execs, (reg_count){func, -1, offset, 0, count}, why, cap);
}

int pp__registry_add_edge(registry *r, int func, uint32_t from, int to_func, uint32_t to,
                          uint64_t count, char *why, size_t cap)
{
    int rc = check_start(r, func, from, why, cap);
    if (rc == 0 && (rc = check_start(r, to_func, to, why, cap)) != 0 && rc != -1) {
        char target[512];
        snprintf(target, sizeof target, "%s", why);
        base_fail(why, cap, "the transfer's target: %s", target);
    }
    return rc ? rc : append_count(&r->edges, (reg_count){func, to_func, from, to, count}, why, cap);
}

uintptr_t pp__registry_translate(const registry *r, uintptr_t pc)
{
    const addr_node *n = pp__addr_index_find(&r->live, pc);
    if (!n)
        return pc;
    const reg_function *f = &r->funcs[n->value];
    return f->stored + (pc - f->address);
}

int pp__registry_find_stored(const registry *r, uintptr_t pc)
{
    const addr_node *n = pp__addr_index_find(&r->stored, pc);
    return n ? (int)n->value : -1;
}

void pp__registry_free(registry *r)
{
    for (size_t i = 0; i < r->nmodules; i++)
        free(r->modules[i].name);
    for (size_t i = 0; i < r->nfuncs; i++) {
        free(r->funcs[i].name);
        free(r->funcs[i].code);
        free(r->funcs[i].starts);
        free(r->funcs[i].costs);
        pp__func_rows_release(&r->funcs[i].rows);
    }
    free(r->modules);
    free(r->funcs);
    free(r->execs.items);
    free(r->edges.items);
    pp__addr_index_free(&r->live);
    pp__addr_index_free(&r->stored);
    pp__func_decoder_free(&r->decoder);
    *r = (registry){0};
}
