/*
 * wasm_instance.c - instantiation as Wasm orders it: decode and validate,
 * resolve and type-check every import (unlinkable), translate and verify
 * (by default each function when first called, lazy.h), create the VM on
 * the imported or a new memory, bind function imports, globals and
 * tables, then run the element segments, the data segments and the start
 * function (a trap: uninstantiable).
 */
#include <stdlib.h>
#include <string.h>

#include "lazy.h"
#include "translate.h"
#include "wasm_instance_internal.h"

void pvm_wasm_instance_free(pvm_wasm_instance *inst)
{
    if (!inst)
        return;
    pvm_vm_free(inst->vm);
    pvm_module_free(inst->module);
    if (inst->elems)
        for (uint32_t i = 0; i < inst->wm->nelems; i++)
            free(inst->elems[i].refs);
    free(inst->elems);
    free(inst->data_dropped);
    free(inst->calls);
    free(inst->host_of);
    free(inst->func_refs);
    pvm_wasm_module_free(inst->wm);
    free(inst);
}

/* ---- linking ------------------------------------------------------------ */

static bool same_types(const uint8_t *a, uint32_t na, const uint8_t *b, uint32_t nb)
{
    return na == nb && (na == 0 || memcmp(a, b, na) == 0);
}

/* Do the limits of an object of `size` that may grow to `max` (UINT32_MAX:
 * unlimited) match the import's? */
static bool limits_match(uint64_t size, uint64_t max, uint64_t unlimited,
                         const pvm_wasm_limits *want)
{
    if (size < want->min)
        return false;
    return !want->has_max || (max != unlimited && max <= want->max);
}

/* Does ext match import i of the module? */
static bool import_matches(const pvm_wasm_module *wm, const pvm_wasm_import *imp,
                           const pvm_wasm_extern *ext)
{
    if (ext->kind != imp->kind)
        return false;
    switch (imp->kind) {
    case PVM_WASM_EXTERN_FUNC: {
        const pvm_wasm_functype *ft = pvm_wasm_func_type(wm, imp->index);
        return same_types(ft->params, ft->nparams, ext->params, ext->nparams) &&
               same_types(ft->results, ft->nresults, ext->results, ext->nresults);
    }
    case PVM_WASM_EXTERN_GLOBAL: {
        const pvm_wasm_global *g = &wm->globals[imp->index];
        return g->type == ext->type && g->is_mutable == ext->is_mutable;
    }
    case PVM_WASM_EXTERN_TABLE: {
        const pvm_wasm_table *t = &wm->tables[imp->index];
        return t->elemtype == ext->type &&
               limits_match(ext->table->size, ext->table->max, UINT32_MAX, &t->limits);
    }
    default: {
        const pvm_wasm_memory *m = &wm->memories[imp->index];
        uint64_t page = PVM_WASM_PAGE;
        return limits_match(ext->memory->size / page, ext->memory->max / page,
                            PVM_WASM_MAX_PAGES, &m->limits);
    }
    }
}

/* Resolve every import into externs[] (binders[] for binder-linked ones). */
static int link(pvm_wasm_instance *inst, pvm_wasm_extern *externs,
                const host_binder **binders, pvm_error *err)
{
    const pvm_wasm_module *wm = inst->wm;
    for (uint32_t i = 0; i < wm->nimports; i++) {
        const pvm_wasm_import *imp = &wm->imports[i];
        if (pvm_wasm_resolve(inst->store, imp, &externs[i], &binders[i], err) != 0)
            return -1;
        if (!binders[i] && !import_matches(wm, imp, &externs[i]))
            return pvm_errorf(err, "incompatible import type for %.*s.%.*s (%s)",
                              (int)imp->module.len, imp->module.str, (int)imp->name.len,
                              imp->name.str, pvm_wasm_extern_kind_name(imp->kind));
    }
    return 0;
}

/* Bind Wasm function import f to ext (imports of one module and name share
 * a host import and resolve alike). */
static void bind_func(pvm_wasm_instance *inst, uint32_t f, const pvm_wasm_extern *ext)
{
    pvm_host_binding *host = &inst->vm->hosts[inst->host_of[f]];
    if (ext->owner) {
        inst->calls[f] = (cross_call){ext->owner, ext->index};
        *host = (pvm_host_binding){pvm_wasm_cross_call, &inst->calls[f]};
    } else {
        *host = ext->binding;
    }
}

/* Give the VM its imports, globals and tables. */
static int bind(pvm_wasm_instance *inst, const pvm_wasm_extern *externs,
                const host_binder **binders, pvm_error *err)
{
    const pvm_wasm_module *wm = inst->wm;
    pvm_vm *vm = inst->vm;
    for (uint32_t i = 0; i < wm->nimports; i++) {
        const pvm_wasm_import *imp = &wm->imports[i];
        const pvm_wasm_extern *ext = &externs[i];
        if (binders[i])
            continue;
        if (imp->kind == PVM_WASM_EXTERN_FUNC)
            bind_func(inst, imp->index, ext);
        else if (imp->kind == PVM_WASM_EXTERN_GLOBAL)
            pvm_vm_bind_global(vm, imp->index, ext->global);
        else if (imp->kind == PVM_WASM_EXTERN_TABLE)
            pvm_vm_bind_table(vm, imp->index, ext->table);
    }
    for (uint32_t i = 0; i < wm->nimports; i++) { /* each binder once */
        bool first = binders[i] != NULL;
        for (uint32_t j = 0; j < i && first; j++)
            first = binders[j] != binders[i];
        if (first && binders[i]->bind(vm, binders[i]->ctx, err) != 0)
            return -1;
    }
    for (uint32_t t = wm->ntable_imports; t < wm->ntables; t++) {
        const pvm_wasm_limits *lim = &wm->tables[t].limits;
        pvm_table *table = pvm_table_new(lim->min, lim->max, PVM_REF_NULL, err);
        if (!table)
            return -1;
        pvm_vm_bind_table(vm, t, table);
        pvm_table_release(table);
    }
    pvm_wasm_bind_bulk(inst);
    return pvm_vm_check_imports(vm, err);
}

/* ---- initialisation ---------------------------------------------------- */

static uint64_t const_value(const pvm_wasm_instance *inst, const pvm_wasm_const *c)
{
    switch (c->kind) {
    case PVM_WASM_CONST_NUM: return c->bits;
    case PVM_WASM_CONST_REF_FUNC:
        return inst->func_refs ? inst->func_refs[c->index] : PVM_REF_FUNC(c->index);
    case PVM_WASM_CONST_GLOBAL: return inst->vm->globals[c->index]->value;
    default: return PVM_REF_NULL;
    }
}

static int init_globals_and_elems(pvm_wasm_instance *inst, pvm_error *err)
{
    const pvm_wasm_module *wm = inst->wm;
    for (uint32_t g = wm->nglobal_imports; g < wm->nglobals; g++)
        inst->vm->globals[g]->value = const_value(inst, &wm->globals[g].init);
    for (uint32_t i = 0; i < wm->nelems; i++) {
        const pvm_wasm_elem *e = &wm->elems[i];
        inst->elems[i].refs = calloc((size_t)e->count + 1, sizeof(uint64_t));
        if (!inst->elems[i].refs)
            return pvm_errorf(err, "out of memory");
        for (uint32_t k = 0; k < e->count; k++)
            inst->elems[i].refs[k] = const_value(inst, &e->items[k]);
        inst->elems[i].count = e->mode == PVM_WASM_SEG_PASSIVE ? e->count : 0;
    }
    return 0;
}

/* Active segments, then the start function. */
static int run_initialisers(pvm_wasm_instance *inst, pvm_error *err)
{
    const pvm_wasm_module *wm = inst->wm;
    pvm_trap_kind trap = PVM_TRAP_NONE;
    for (uint32_t i = 0; i < wm->nelems && !trap; i++) {
        const pvm_wasm_elem *e = &wm->elems[i];
        if (e->mode != PVM_WASM_SEG_ACTIVE)
            continue;
        inst->elems[i].count = e->count; /* table.init, then elem.drop */
        trap = pvm_wasm_table_init(inst, e->table, i, const_value(inst, &e->offset), 0,
                                   e->count);
        inst->elems[i].count = 0;
    }
    for (uint32_t i = 0; i < wm->ndatas && !trap; i++) {
        const pvm_wasm_data *d = &wm->datas[i];
        if (d->mode != PVM_WASM_SEG_ACTIVE)
            continue;
        trap = pvm_wasm_memory_init(inst, i, const_value(inst, &d->offset), 0, d->size);
        inst->data_dropped[i] = true;
    }
    if (!trap && wm->start != PVM_WASM_NONE)
        trap = pvm_wasm_call_func(inst, wm->start, NULL, NULL);
    if (trap)
        return pvm_errorf(err, "%s", pvm_trap_message(trap));
    return 0;
}

/* ---- instantiate -------------------------------------------------------- */

static pvm_wasm_instance *new_instance(pvm_wasm_store *s, pvm_wasm_module *wm, pvm_error *err)
{
    pvm_wasm_instance *inst = calloc(1, sizeof *inst);
    pvm_wasm_instance **all = pvm_wasm_grow(s->instances, s->ninstances, sizeof *all);
    if (!inst || !all) {
        free(inst);
        pvm_wasm_module_free(wm);
        pvm_errorf(err, "out of memory");
        return NULL;
    }
    s->instances = all;
    all[s->ninstances++] = inst; /* the store frees it from now on */
    inst->store = s;
    inst->wm = wm;
    inst->calls = calloc((size_t)wm->nfunc_imports + 1, sizeof *inst->calls);
    inst->elems = calloc((size_t)wm->nelems + 1, sizeof *inst->elems);
    inst->data_dropped = calloc((size_t)wm->ndatas + 1, sizeof *inst->data_dropped);
    if (!inst->calls || !inst->elems || !inst->data_dropped) {
        pvm_errorf(err, "out of memory");
        return NULL;
    }
    inst->host_of = pvm_wasm_host_imports(wm, &inst->nhosts, err);
    return inst->host_of ? inst : NULL;
}

/* Translate and create the VM on the imported memory, if any. */
static int create_vm(pvm_wasm_instance *inst, const pvm_wasm_extern *externs, pvm_error *err)
{
    const pvm_wasm_module *wm = inst->wm;
    if (pvm_wasm_refs_assign(inst, err) != 0)
        return -1;
    bool fuse = !inst->store->no_fuse;
    if (inst->store->eager || pvm_built_with_count() || pvm_built_with_trace())
        inst->module = pvm_wasm_translate_all(wm, inst->func_refs, fuse, err);
    else
        inst->module = pvm_wasm_translate_lazy(wm, inst->func_refs, fuse, err);
    if (!inst->module)
        return -1;
    pvm_vm_config cfg = {.stack_size = inst->store->stack_size,
                         .heap_cap = inst->store->max_memory};
    for (uint32_t i = 0; i < wm->nimports; i++)
        if (wm->imports[i].kind == PVM_WASM_EXTERN_MEMORY)
            cfg.memory = externs[i].memory;
    inst->vm = pvm_vm_new(inst->module, &cfg, err);
    if (!inst->vm)
        return -1;
    inst->vm->user = inst;
    if (pvm_wasm_refs_bind(inst, err) != 0)
        return -1;
    pvm_wasm_store *s = inst->store;
    return s->on_vm ? s->on_vm(inst->vm, inst->module, s->on_vm_ctx, err) : 0;
}

pvm_wasm_instance *pvm_wasm_instantiate(pvm_wasm_store *s, const uint8_t *bytes, size_t size,
                                        pvm_wasm_status *status, pvm_error *err)
{
    *status = PVM_WASM_MALFORMED;
    pvm_wasm_module *wm = pvm_wasm_decode(bytes, size, err);
    if (!wm)
        return NULL;
    *status = PVM_WASM_FAILED;
    pvm_wasm_instance *inst = new_instance(s, wm, err);
    if (!inst)
        return NULL;
    pvm_wasm_extern *externs = calloc((size_t)wm->nimports + 1, sizeof *externs);
    const host_binder **binders = calloc((size_t)wm->nimports + 1, sizeof *binders);
    if (!externs || !binders) {
        pvm_errorf(err, "out of memory");
        inst = NULL;
    } else if (link(inst, externs, binders, err) != 0) {
        *status = PVM_WASM_UNLINKABLE;
        inst = NULL;
    } else if (create_vm(inst, externs, err) != 0) {
        inst = NULL;
    } else if (bind(inst, externs, binders, err) != 0) {
        *status = PVM_WASM_UNLINKABLE;
        inst = NULL;
    } else if (init_globals_and_elems(inst, err) != 0) {
        inst = NULL;
    } else if (run_initialisers(inst, err) != 0) {
        *status = PVM_WASM_UNINSTANTIABLE;
        inst = NULL;
    } else {
        *status = PVM_WASM_OK;
    }
    free(externs);
    free(binders);
    return inst;
}

/* ---- accessors ------------------------------------------------------------ */

const char *pvm_wasm_trap_function(const pvm_wasm_instance *inst)
{
    const pvm_vm *vm = inst->vm;
    return vm->trap_func < inst->module->nfuncs ? inst->module->funcs[vm->trap_func].name : "?";
}

const char *pvm_wasm_translation_error(const pvm_wasm_instance *inst)
{
    /* A trap in a function still a stub is its translation's failure. */
    const pvm_vm *vm = inst->vm;
    return vm->trap == PVM_TRAP_HOST_ERROR && pvm_lazy_pending(inst->module, vm->trap_func)
               ? pvm_lazy_error(inst->module)
               : "";
}

uint64_t pvm_wasm_memory_refused(const pvm_wasm_instance *inst)
{
    return inst->vm && inst->vm->memory ? inst->vm->memory->refused : 0;
}

uint32_t pvm_wasm_trap_offset(const pvm_wasm_instance *inst)
{
    return inst->vm->trap_offset;
}

int pvm_wasm_exit_status(const pvm_wasm_instance *inst)
{
    return inst->vm->exit_status;
}

pvm_vm *pvm_wasm_instance_vm(pvm_wasm_instance *inst)
{
    return inst->vm;
}

const pvm_wasm_module *pvm_wasm_instance_module(const pvm_wasm_instance *inst)
{
    return inst->wm;
}
