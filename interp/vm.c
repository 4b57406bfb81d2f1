/*
 * vm.c - the life of a VM outside the interpreter loop: creating it for a
 * verified module (stack, heap, data segments, globals, tables, signature
 * ids), bindings of imports, globals and tables, host references, mapping
 * code offsets to functions, and what the build compiled in.
 */
#include "vm.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/hash.h"
#include "lazy.h"

/* Entry k of a module's signatures: type k, then function k - ntypes. */
static void signature(const pvm_module *m, size_t k, const char **params, const char **results)
{
    if (k < m->ntypes) {
        *params = m->types[k].params;
        *results = m->types[k].results;
    } else {
        *params = m->funcs[k - m->ntypes].params;
        *results = m->funcs[k - m->ntypes].results;
    }
}

/* Give every module type and function its signature id: the index of the
 * first entry, types then functions, with the same params and results
 * (a hash of the two finds it). */
static int assign_signature_ids(pvm_vm *vm, pvm_error *err)
{
    const pvm_module *m = vm->module;
    size_t n = (size_t)m->ntypes + m->nfuncs, cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    vm->type_sigs = malloc((n ? n : 1) * sizeof *vm->type_sigs);
    uint32_t *first = calloc(cap, sizeof *first); /* entry + 1; 0: free */
    if (!vm->type_sigs || !first) {
        free(first);
        return pvm_errorf(err, "out of memory");
    }
    vm->func_sigs = vm->type_sigs + m->ntypes;
    for (size_t k = 0; k < n; k++) {
        const char *params, *results, *p2, *r2;
        signature(m, k, &params, &results);
        uint64_t h = base_fnv1a64_str(BASE_FNV1A64_INIT, params);
        h = base_fnv1a64_str(base_fnv1a64_step(h, '>'), results);
        size_t i = h & (cap - 1);
        for (; first[i]; i = (i + 1) & (cap - 1)) {
            signature(m, first[i] - 1, &p2, &r2);
            if (!strcmp(params, p2) && !strcmp(results, r2))
                break;
        }
        if (!first[i])
            first[i] = (uint32_t)k + 1;
        vm->type_sigs[k] = first[i] - 1;
    }
    free(first);
    return 0;
}

/* The heap: cfg's memory (shared) or a new one; the data segments copied
 * in.  Returns 0 or -1 with err. */
static int set_up_heap(pvm_vm *vm, const pvm_vm_config *cfg, pvm_error *err)
{
    const pvm_module *m = vm->module;
    if (cfg && cfg->memory)
        vm->memory = pvm_memory_retain(cfg->memory);
    else if (!(vm->memory = pvm_memory_new(m->heap_min, m->heap_max, err)))
        return -1;
    else if (cfg && cfg->heap_cap)
        pvm_memory_set_cap(vm->memory, cfg->heap_cap);
    uint64_t size = vm->memory->size;
    for (uint32_t i = 0; i < m->ndata; i++) {
        const pvm_data_segment *d = &m->data[i];
        if (d->offset > size || d->size > size - d->offset)
            return pvm_errorf(err, "data segment %" PRIu32 " (%" PRIu32 " bytes at heap offset %"
                              PRIu64 ") does not fit the heap of %" PRIu64 " bytes",
                              i, d->size, d->offset, size);
    }
    for (uint32_t i = 0; i < m->ndata; i++)
        if (m->data[i].size)
            memcpy(vm->memory->bytes + m->data[i].offset, m->data[i].bytes, m->data[i].size);
    return 0;
}

/* New globals and tables for the module's counts, in the module's initial
 * state (module.h; the verifier checked the element segments fit). */
static int create_globals_and_tables(pvm_vm *vm, pvm_error *err)
{
    const pvm_module *m = vm->module;
    vm->globals = calloc(m->nglobals ? m->nglobals : 1, sizeof *vm->globals);
    vm->tables = calloc(m->ntables ? m->ntables : 1, sizeof *vm->tables);
    if (!vm->globals || !vm->tables)
        return pvm_errorf(err, "out of memory");
    for (uint32_t i = 0; i < m->nglobals; i++)
        if (!(vm->globals[i] = pvm_global_new(m->global_init ? m->global_init[i] : 0, err)))
            return -1;
    for (uint32_t i = 0; i < m->ntables; i++) {
        pvm_table_decl d = m->table_decl ? m->table_decl[i] : (pvm_table_decl){0, 0};
        if (!(vm->tables[i] = pvm_table_new(d.size, d.max, PVM_REF_NULL, err)))
            return -1;
    }
    for (uint32_t i = 0; i < m->nelems; i++) {
        const pvm_elem_segment *e = &m->elems[i];
        for (uint32_t k = 0; k < e->count; k++)
            vm->tables[e->table]->elems[e->offset + k] =
                e->funcs[k] == PVM_NO_ENTRY ? PVM_REF_NULL : PVM_REF_FUNC(e->funcs[k]);
    }
    return 0;
}

/* Counting builds: the count array and an empty edge table. */
enum { EDGE_TABLE_MIN = 256 };

static int set_up_counts(pvm_vm *vm, pvm_error *err)
{
#ifdef PULLEY_COUNT
    size_t n = vm->module->code_size;
    vm->exec_counts = calloc(n ? n : 1, sizeof *vm->exec_counts);
    vm->edges = calloc(EDGE_TABLE_MIN, sizeof *vm->edges);
    vm->edge_cap = EDGE_TABLE_MIN;
    if (!vm->exec_counts || !vm->edges)
        return pvm_errorf(err, "out of memory for the execution counts");
#else
    (void)vm;
    (void)err;
#endif
    return 0;
}

/* Put (from, to, count) into the empty entry its probe sequence finds. */
static void edge_insert(pvm_edge_count *t, size_t cap, uint32_t from, uint32_t to, uint64_t count)
{
    size_t i = pvm_edge_hash(from, to) & (cap - 1);
    while (t[i].count != 0)
        i = (i + 1) & (cap - 1);
    t[i] = (pvm_edge_count){from, to, count};
}

void pvm_vm_count_edge_new(pvm_vm *vm, uint32_t from, uint32_t to)
{
    if (2 * (vm->nedges + 1) > vm->edge_cap) { /* keep it at most half full */
        size_t cap = 2 * vm->edge_cap;
        pvm_edge_count *t = cap > vm->edge_cap ? calloc(cap, sizeof *t) : NULL;
        if (!t) {
            if (vm->nedges + 1 >= vm->edge_cap) { /* one entry must stay empty */
                vm->edges_lost++;
                return;
            }
        } else {
            for (size_t i = 0; i < vm->edge_cap; i++)
                if (vm->edges[i].count)
                    edge_insert(t, cap, vm->edges[i].from, vm->edges[i].to, vm->edges[i].count);
            free(vm->edges);
            vm->edges = t;
            vm->edge_cap = cap;
        }
    }
    edge_insert(vm->edges, vm->edge_cap, from, to, 1);
    vm->nedges++;
}

const uint64_t *pvm_vm_exec_counts(const pvm_vm *vm, size_t *n)
{
    *n = vm->exec_counts ? vm->module->code_size : 0;
    return vm->exec_counts;
}

int pvm_vm_edge_next(const pvm_vm *vm, size_t *iter, pvm_edge_count *out)
{
    for (size_t i = *iter; i < vm->edge_cap; i++)
        if (vm->edges[i].count) {
            *out = vm->edges[i];
            *iter = i + 1;
            return 1;
        }
    *iter = vm->edge_cap;
    return 0;
}

uint64_t pvm_vm_edges_lost(const pvm_vm *vm)
{
    return vm->edges_lost;
}

pvm_vm *pvm_vm_new(const pvm_module *m, const pvm_vm_config *cfg, pvm_error *err)
{
    if (!m->verified || !m->insn_starts) {
        pvm_errorf(err, "module is not verified");
        return NULL;
    }
    uint64_t stack = cfg && cfg->stack_size ? cfg->stack_size : PVM_DEFAULT_STACK;
    if (stack > PVM_MAX_STACK) {
        pvm_errorf(err, "stack size %" PRIu64 " is above the maximum of %" PRIu64 " bytes (%" PRIu64
                        " MiB)",
                   stack, PVM_MAX_STACK, PVM_MAX_STACK >> 20);
        return NULL;
    }
    if (stack % 16 != 0) {
        pvm_errorf(err, "stack size %" PRIu64 " is not a multiple of 16 bytes", stack);
        return NULL;
    }
    pvm_vm *vm = calloc(1, sizeof *vm + (size_t)stack);
    if (!vm) {
        pvm_errorf(err, "out of memory for a stack of %" PRIu64 " bytes", stack);
        return NULL;
    }
    vm->module = m;
    vm->stack_size = vm->heap_base = stack;
    vm->stack_fast_end = stack - 7;
    vm->frame_limit = stack - 16;
    vm->sp = vm->fp = stack;
    vm->hosts = calloc(m->nimports ? m->nimports : 1, sizeof *vm->hosts);
    int r = vm->hosts ? 0 : pvm_errorf(err, "out of memory");
    if (r == 0)
        r = set_up_heap(vm, cfg, err);
    if (r == 0)
        r = create_globals_and_tables(vm, err);
    if (r == 0)
        r = assign_signature_ids(vm, err);
    if (r == 0)
        r = set_up_counts(vm, err);
    if (r) {
        pvm_vm_free(vm);
        return NULL;
    }
    return vm;
}

void pvm_vm_free(pvm_vm *vm)
{
    if (!vm)
        return;
    const pvm_module *m = vm->module;
    for (uint32_t i = 0; vm->globals && i < m->nglobals; i++)
        pvm_global_release(vm->globals[i]);
    for (uint32_t i = 0; vm->tables && i < m->ntables; i++)
        pvm_table_release(vm->tables[i]);
    for (uint32_t i = 0; i < vm->nhost_refs; i++) {
        free(vm->host_refs[i].params);
        free(vm->host_refs[i].results);
    }
    pvm_memory_release(vm->memory);
    free(vm->globals);
    free(vm->tables);
    free(vm->host_refs);
    free(vm->type_sigs);
    free(vm->hosts);
    free(vm->exec_counts);
    free(vm->edges);
    free(vm);
}

void pvm_vm_bind_host(pvm_vm *vm, const char *name, pvm_host_fn fn, void *ctx)
{
    int i = pvm_module_find_import(vm->module, name);
    if (i >= 0)
        vm->hosts[i] = (pvm_host_binding){fn, ctx};
}

int pvm_vm_check_imports(const pvm_vm *vm, pvm_error *err)
{
    for (uint32_t i = 0; i < vm->module->nimports; i++)
        if (!vm->hosts[i].fn)
            return pvm_errorf(err, "host import %s is not bound", vm->module->imports[i]);
    return 0;
}

int pvm_vm_bind_global(pvm_vm *vm, uint32_t i, pvm_global *g)
{
    if (i >= vm->module->nglobals)
        return -1;
    pvm_global_retain(g);
    pvm_global_release(vm->globals[i]);
    vm->globals[i] = g;
    return 0;
}

int pvm_vm_bind_table(pvm_vm *vm, uint32_t i, pvm_table *t)
{
    if (i >= vm->module->ntables)
        return -1;
    pvm_table_retain(t);
    pvm_table_release(vm->tables[i]);
    vm->tables[i] = t;
    return 0;
}

uint64_t pvm_vm_add_host_ref(pvm_vm *vm, pvm_host_fn fn, void *ctx, const char *params,
                             const char *results)
{
    if (!pvm_valid_types(params) || !pvm_valid_types(results) ||
        vm->nhost_refs == INT32_MAX)
        return PVM_REF_NULL;
    size_t cap = vm->host_refs_cap; /* stays below 2^32: nhost_refs < INT32_MAX */
    if (BASE_GROW(vm->host_refs, cap, (size_t)vm->nhost_refs + 1, 8) != 0)
        return PVM_REF_NULL;
    vm->host_refs_cap = (uint32_t)cap;
    pvm_host_ref *h = &vm->host_refs[vm->nhost_refs];
    *h = (pvm_host_ref){fn, ctx, strdup(params), strdup(results), PVM_NO_SIG};
    if (!h->params || !h->results) {
        free(h->params);
        free(h->results);
        return PVM_REF_NULL;
    }
    const pvm_module *m = vm->module;
    for (uint32_t t = 0; t < m->ntypes && h->sig == PVM_NO_SIG; t++)
        if (!strcmp(params, m->types[t].params) && !strcmp(results, m->types[t].results))
            h->sig = vm->type_sigs[t];
    return PVM_REF_HOST_BIT | vm->nhost_refs++;
}

uint32_t pvm_vm_func_at(const pvm_vm *vm, size_t off)
{
    if (vm->module->lazy) /* functions appended as translated */
        return pvm_lazy_func_at(vm->module, off);
    /* The last function starting at or before off (functions are laid out
     * in order; an empty one shares its offset with the next). */
    const pvm_function *funcs = vm->module->funcs;
    uint32_t lo = 0, hi = vm->module->nfuncs;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (funcs[mid].offset <= off)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

const char *pvm_dispatch_mode(void)
{
#if defined(PULLEY_DISPATCH_SWITCH)
    return "switch";
#elif defined(PULLEY_DISPATCH_GOTO)
    return "goto";
#else
    return "tail";
#endif
}

int pvm_built_with_trace(void)
{
#ifdef PULLEY_TRACE
    return 1;
#else
    return 0;
#endif
}

int pvm_built_with_profile(void)
{
#ifdef PULLEY_PROFILE
    return 1;
#else
    return 0;
#endif
}

int pvm_built_with_count(void)
{
#ifdef PULLEY_COUNT
    return 1;
#else
    return 0;
#endif
}
