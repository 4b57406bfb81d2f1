/*
 * wasm_refs.c - function references that cross instances.  A VM's own
 * references (f + 1) mean nothing to another VM, so a module whose
 * references can reach another instance (it imports or exports a table, a
 * funcref global, or a function with a funcref in its type) uses
 * store-wide references instead: each of its referenced functions becomes
 * entry k of the store's list, and every VM of the store has host
 * reference k calling it (PVM_REF_HOST_BIT | k means the same function in
 * all of them).  A call through one is a host call into the owning VM:
 * slower than a VM's own reference, and only used where references cross.
 */
#include <stdlib.h>

#include "translate.h"
#include "wasm_instance_internal.h"

static bool has_funcref(const pvm_wasm_functype *ft)
{
    for (uint32_t i = 0; i < ft->nparams; i++)
        if (ft->params[i] == PVM_WASM_FUNCREF)
            return true;
    for (uint32_t i = 0; i < ft->nresults; i++)
        if (ft->results[i] == PVM_WASM_FUNCREF)
            return true;
    return false;
}

/* Can a reference of this module reach another instance, or one of
 * another instance reach it?  (kind, index) name an import or export. */
static bool crosses(const pvm_wasm_module *wm, unsigned kind, uint32_t index)
{
    switch (kind) {
    case PVM_WASM_EXTERN_TABLE: return true;
    case PVM_WASM_EXTERN_GLOBAL: return wm->globals[index].type == PVM_WASM_FUNCREF;
    case PVM_WASM_EXTERN_FUNC: return has_funcref(pvm_wasm_func_type(wm, index));
    default: return false;
    }
}

static bool needs_store_refs(const pvm_wasm_module *wm)
{
    for (uint32_t i = 0; i < wm->nimports; i++)
        if (crosses(wm, wm->imports[i].kind, wm->imports[i].index))
            return true;
    for (uint32_t i = 0; i < wm->nexports; i++)
        if (crosses(wm, wm->exports[i].kind, wm->exports[i].index))
            return true;
    return false;
}

/* Give vm host reference k for store entry k. */
static int add_ref(pvm_vm *vm, uint32_t k, cross_call *c, pvm_error *err)
{
    const pvm_wasm_functype *ft = pvm_wasm_func_type(c->callee->wm, c->func);
    char params[PVM_MAX_TYPES + 1], results[PVM_MAX_TYPES + 1];
    if (ft->nparams > PVM_MAX_TYPES || ft->nresults > PVM_MAX_TYPES)
        return pvm_errorf(err, "a referenced function has more than %d parameters or results",
                          PVM_MAX_TYPES);
    for (uint32_t i = 0; i < ft->nparams; i++)
        params[i] = pvm_wasm_type_letter(ft->params[i]);
    for (uint32_t i = 0; i < ft->nresults; i++)
        results[i] = pvm_wasm_type_letter(ft->results[i]);
    params[ft->nparams] = results[ft->nresults] = '\0';
    if (pvm_vm_add_host_ref(vm, pvm_wasm_cross_call, c, params, results) !=
        (PVM_REF_HOST_BIT | k))
        return pvm_errorf(err, "out of memory for references");
    return 0;
}

int pvm_wasm_refs_assign(pvm_wasm_instance *inst, pvm_error *err)
{
    const pvm_wasm_module *wm = inst->wm;
    pvm_wasm_store *s = inst->store;
    if (!needs_store_refs(wm))
        return 0;
    inst->func_refs = calloc((size_t)wm->nfuncs + 1, sizeof *inst->func_refs);
    if (!inst->func_refs)
        return pvm_errorf(err, "out of memory");
    for (uint32_t f = 0; f < wm->nfuncs; f++) {
        if (!wm->funcs[f].referenced)
            continue;
        cross_call **list = pvm_wasm_grow(s->refs, s->nrefs, sizeof *list);
        cross_call *c = malloc(sizeof *c);
        if (!list || !c) {
            free(c);
            if (list)
                s->refs = list;
            return pvm_errorf(err, "out of memory");
        }
        *c = (cross_call){inst, f};
        s->refs = list;
        list[s->nrefs] = c;
        inst->func_refs[f] = PVM_REF_HOST_BIT | s->nrefs++;
    }
    return 0;
}

int pvm_wasm_refs_bind(pvm_wasm_instance *inst, pvm_error *err)
{
    pvm_wasm_store *s = inst->store;
    /* The new VM gets every entry; the others, the entries they lack. */
    for (uint32_t i = 0; i < s->ninstances; i++) {
        pvm_vm *vm = s->instances[i]->vm;
        for (uint32_t k = vm ? vm->nhost_refs : s->nrefs; k < s->nrefs; k++)
            if (add_ref(vm, k, s->refs[k], err) != 0)
                return -1;
    }
    return 0;
}
