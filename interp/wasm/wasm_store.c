/*
 * wasm_store.c - the store: host modules (functions, globals, tables,
 * memories, and binders for whole modules such as WASI), registered
 * instances, resolving an import to an external value, and freeing it all.
 */
#include <stdlib.h>
#include <string.h>

#include "wasm_instance_internal.h"

void *pvm_wasm_grow(void *array, uint32_t count, size_t size)
{
    return realloc(array, ((size_t)count + 1) * size);
}

pvm_wasm_store *pvm_wasm_store_new(uint64_t stack_size)
{
    pvm_wasm_store *s = calloc(1, sizeof *s);
    if (s)
        s->stack_size = stack_size ? stack_size : PVM_WASM_STACK;
    return s;
}

void pvm_wasm_store_set_fusion(pvm_wasm_store *s, bool fuse)
{
    s->no_fuse = !fuse;
}

void pvm_wasm_store_set_lazy(pvm_wasm_store *s, bool lazy)
{
    s->eager = !lazy;
}

void pvm_wasm_store_set_max_memory(pvm_wasm_store *s, uint64_t bytes)
{
    s->max_memory = bytes;
}

void pvm_wasm_store_free(pvm_wasm_store *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; i < s->ninstances; i++)
        pvm_wasm_instance_free(s->instances[i]);
    for (uint32_t i = 0; i < s->nitems; i++) {
        host_item *it = &s->items[i];
        free(it->module);
        free(it->name);
        free(it->type.params);
        free(it->type.results);
        pvm_global_release(it->ext.global);
        pvm_table_release(it->ext.table);
        pvm_memory_release(it->ext.memory);
    }
    for (uint32_t i = 0; i < s->nbinders; i++)
        free(s->binders[i].module);
    for (uint32_t i = 0; i < s->nregs; i++)
        free(s->regs[i].name);
    for (uint32_t i = 0; i < s->nrefs; i++)
        free(s->refs[i]);
    free(s->refs);
    free(s->instances);
    free(s->items);
    free(s->binders);
    free(s->regs);
    free(s);
}

/* ---- host modules --------------------------------------------------------- */

/* A new host item MODULE.NAME (zeroed but for its names), or NULL. */
static host_item *new_item(pvm_wasm_store *s, const char *module, const char *name,
                           pvm_error *err)
{
    host_item *items = pvm_wasm_grow(s->items, s->nitems, sizeof *items);
    if (!items) {
        pvm_errorf(err, "out of memory");
        return NULL;
    }
    s->items = items;
    host_item *it = &items[s->nitems];
    *it = (host_item){.module = strdup(module), .name = strdup(name)};
    if (!it->module || !it->name) {
        free(it->module);
        free(it->name);
        pvm_errorf(err, "out of memory");
        return NULL;
    }
    s->nitems++;
    return it;
}

/* Value types from signature letters; NULL if out of memory or a letter
 * is not a type (err says which). */
static uint8_t *types_of(const char *letters, uint32_t *n, pvm_error *err)
{
    static const char codes[] = "iIfFre";
    static const uint8_t types[] = {PVM_WASM_I32, PVM_WASM_I64, PVM_WASM_F32,
                                    PVM_WASM_F64, PVM_WASM_FUNCREF, PVM_WASM_EXTERNREF};
    size_t len = strlen(letters);
    uint8_t *out = malloc(len + 1);
    if (!out) {
        pvm_errorf(err, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < len; i++) {
        const char *c = strchr(codes, letters[i]);
        if (!c || !*c) {
            free(out);
            pvm_errorf(err, "'%c' is not a type letter (i I f F r e)", letters[i]);
            return NULL;
        }
        out[i] = types[c - codes];
    }
    *n = (uint32_t)len;
    return out;
}

int pvm_wasm_host_func(pvm_wasm_store *s, const char *module, const char *name,
                       const char *params, const char *results, pvm_host_fn fn, void *ctx,
                       pvm_error *err)
{
    ext_functype type = {0};
    type.params = types_of(params, &type.nparams, err);
    type.results = type.params ? types_of(results, &type.nresults, err) : NULL;
    host_item *it = type.results ? new_item(s, module, name, err) : NULL;
    if (!it) {
        free(type.params);
        free(type.results);
        return -1;
    }
    it->type = type;
    it->ext = (pvm_wasm_extern){.kind = PVM_WASM_EXTERN_FUNC, .binding = {fn, ctx},
                                .params = type.params, .nparams = type.nparams,
                                .results = type.results, .nresults = type.nresults};
    return 0;
}

int pvm_wasm_host_global(pvm_wasm_store *s, const char *module, const char *name,
                         uint8_t type, bool is_mutable, uint64_t bits, pvm_error *err)
{
    pvm_global *g = pvm_global_new(bits, err);
    host_item *it = g ? new_item(s, module, name, err) : NULL;
    if (!it) {
        pvm_global_release(g);
        return -1;
    }
    it->ext = (pvm_wasm_extern){.kind = PVM_WASM_EXTERN_GLOBAL, .global = g, .type = type,
                                .is_mutable = is_mutable};
    return 0;
}

int pvm_wasm_host_table(pvm_wasm_store *s, const char *module, const char *name,
                        uint8_t elemtype, uint32_t min, uint32_t max, pvm_error *err)
{
    pvm_table *t = pvm_table_new(min, max, PVM_REF_NULL, err);
    host_item *it = t ? new_item(s, module, name, err) : NULL;
    if (!it) {
        pvm_table_release(t);
        return -1;
    }
    it->ext = (pvm_wasm_extern){.kind = PVM_WASM_EXTERN_TABLE, .table = t, .type = elemtype};
    return 0;
}

int pvm_wasm_host_memory(pvm_wasm_store *s, const char *module, const char *name,
                         uint32_t min_pages, uint32_t max_pages, pvm_error *err)
{
    pvm_memory *m = pvm_memory_new((uint64_t)min_pages * 65536, (uint64_t)max_pages * 65536, err);
    if (m && s->max_memory)
        pvm_memory_set_cap(m, s->max_memory);
    host_item *it = m ? new_item(s, module, name, err) : NULL;
    if (!it) {
        pvm_memory_release(m);
        return -1;
    }
    it->ext = (pvm_wasm_extern){.kind = PVM_WASM_EXTERN_MEMORY, .memory = m};
    return 0;
}

int pvm_wasm_host_binder(pvm_wasm_store *s, const char *module, pvm_wasm_binder bind,
                         void *ctx, pvm_error *err)
{
    host_binder *b = pvm_wasm_grow(s->binders, s->nbinders, sizeof *b);
    if (!b)
        return pvm_errorf(err, "out of memory");
    s->binders = b;
    b[s->nbinders] = (host_binder){strdup(module), bind, ctx};
    if (!b[s->nbinders].module)
        return pvm_errorf(err, "out of memory");
    s->nbinders++;
    return 0;
}

void pvm_wasm_store_on_vm(pvm_wasm_store *s, pvm_wasm_vm_hook hook, void *ctx)
{
    s->on_vm = hook;
    s->on_vm_ctx = ctx;
}

int pvm_wasm_store_register(pvm_wasm_store *s, const char *name, pvm_wasm_instance *inst,
                            pvm_error *err)
{
    registration *r = pvm_wasm_grow(s->regs, s->nregs, sizeof *r);
    if (!r)
        return pvm_errorf(err, "out of memory");
    s->regs = r;
    r[s->nregs] = (registration){strdup(name), inst};
    if (!r[s->nregs].name)
        return pvm_errorf(err, "out of memory");
    s->nregs++;
    return 0;
}

/* ---- resolving imports -------------------------------------------------------- */

void pvm_wasm_export_extern(pvm_wasm_instance *inst, const pvm_wasm_export *e,
                            pvm_wasm_extern *out)
{
    const pvm_wasm_module *wm = inst->wm;
    *out = (pvm_wasm_extern){.kind = e->kind};
    switch (e->kind) {
    case PVM_WASM_EXTERN_FUNC: {
        const pvm_wasm_functype *ft = pvm_wasm_func_type(wm, e->index);
        out->params = ft->params;
        out->nparams = ft->nparams;
        out->results = ft->results;
        out->nresults = ft->nresults;
        if (wm->funcs[e->index].import != PVM_WASM_NONE) /* re-exported: the same binding */
            out->binding = inst->vm->hosts[inst->host_of[e->index]];
        else {
            out->owner = inst;
            out->index = e->index;
        }
        break;
    }
    case PVM_WASM_EXTERN_GLOBAL:
        out->global = inst->vm->globals[e->index];
        out->type = wm->globals[e->index].type;
        out->is_mutable = wm->globals[e->index].is_mutable;
        break;
    case PVM_WASM_EXTERN_TABLE:
        out->table = inst->vm->tables[e->index];
        out->type = wm->tables[e->index].elemtype;
        break;
    default: out->memory = inst->vm->memory; break;
    }
}

int pvm_wasm_resolve(pvm_wasm_store *s, const pvm_wasm_import *imp, pvm_wasm_extern *out,
                     const host_binder **binder, pvm_error *err)
{
    *binder = NULL;
    for (uint32_t i = s->nregs; i-- > 0;) {
        if (!pvm_wasm_name_is(imp->module, s->regs[i].name))
            continue;
        pvm_wasm_instance *inst = s->regs[i].inst;
        for (uint32_t k = 0; k < inst->wm->nexports; k++) {
            const pvm_wasm_export *e = &inst->wm->exports[k];
            if (e->name.len == imp->name.len &&
                memcmp(e->name.str, imp->name.str, imp->name.len) == 0) {
                pvm_wasm_export_extern(inst, e, out);
                return 0;
            }
        }
        break; /* the registered module has no such export */
    }
    for (uint32_t i = 0; i < s->nitems; i++)
        if (pvm_wasm_name_is(imp->module, s->items[i].module) && pvm_wasm_name_is(imp->name, s->items[i].name)) {
            *out = s->items[i].ext;
            return 0;
        }
    for (uint32_t i = 0; i < s->nbinders; i++)
        if (pvm_wasm_name_is(imp->module, s->binders[i].module) && imp->kind == PVM_WASM_EXTERN_FUNC) {
            *binder = &s->binders[i];
            return 0;
        }
    return pvm_errorf(err, "unknown import %.*s.%.*s", (int)imp->module.len, imp->module.str,
                      (int)imp->name.len, imp->name.str);
}
