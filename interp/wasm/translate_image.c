/*
 * translate_image.c - the Wasm module's initial state written into its
 * translation (translate_image.h), as instantiation would create it: the
 * globals' values, each table's size, the active element and data
 * segments in order, the start function, and `_start` as the entry.
 * Offsets of active segments are constants: the module imports no global
 * they could read (no import but functions is supported).
 */
#include "translate_image.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "translate.h"

/* Why wm cannot run without the instance layer, into why; 0 if it can. */
static int unsupported(const pvm_wasm_module *wm, char *why, size_t cap)
{
    for (uint32_t i = 0; i < wm->nimports; i++)
        if (wm->imports[i].kind != PVM_WASM_EXTERN_FUNC)
            return snprintf(why, cap, "it imports a %s (%.*s.%.*s)",
                            pvm_wasm_extern_kind_name(wm->imports[i].kind),
                            (int)wm->imports[i].module.len, wm->imports[i].module.str,
                            (int)wm->imports[i].name.len, wm->imports[i].name.str), 1;
    for (uint32_t i = 0; i < wm->nelems; i++)
        if (wm->elems[i].mode == PVM_WASM_SEG_PASSIVE)
            return snprintf(why, cap, "element segment %" PRIu32 " is passive", i), 1;
    for (uint32_t i = 0; i < wm->ndatas; i++)
        if (wm->datas[i].mode == PVM_WASM_SEG_PASSIVE)
            return snprintf(why, cap, "data segment %" PRIu32 " is passive", i), 1;
    for (uint32_t t = 0; t < wm->ntables; t++)
        if (wm->tables[t].limits.min > PVM_MAX_TABLE_ENTRIES)
            return snprintf(why, cap, "table %" PRIu32 " has more than %u entries", t,
                            PVM_MAX_TABLE_ENTRIES), 1;
    for (uint32_t i = 0; i < wm->nelems; i++) {
        const pvm_wasm_elem *e = &wm->elems[i];
        uint64_t end = (uint64_t)(uint32_t)e->offset.bits + e->count;
        if (e->mode == PVM_WASM_SEG_ACTIVE && end > wm->tables[e->table].limits.min)
            return snprintf(why, cap, "element segment %" PRIu32 " does not fit table %" PRIu32
                                      " (instantiating the module traps)", i, e->table), 1;
    }
    uint64_t memory = wm->nmemories ? (uint64_t)wm->memories[0].limits.min * PVM_WASM_PAGE : 0;
    for (uint32_t i = 0; i < wm->ndatas; i++)
        if ((uint64_t)(uint32_t)wm->datas[i].offset.bits + wm->datas[i].size > memory)
            return snprintf(why, cap, "data segment %" PRIu32 " does not fit the memory"
                                      " (instantiating the module traps)", i), 1;
    return 0;
}

/* A constant as the module's value: a function reference is the
 * function's own (PVM_REF_FUNC), null is 0. */
static uint64_t value_of(const pvm_wasm_const *c)
{
    return c->kind == PVM_WASM_CONST_REF_FUNC ? (uint64_t)c->index + 1
           : c->kind == PVM_WASM_CONST_NUM    ? c->bits
                                              : 0;
}

static int add_elems(const pvm_wasm_module *wm, pvm_module *m, pvm_error *err)
{
    for (uint32_t i = 0; i < wm->nelems; i++) {
        const pvm_wasm_elem *e = &wm->elems[i];
        if (e->mode != PVM_WASM_SEG_ACTIVE)
            continue;
        uint32_t *funcs = malloc(e->count ? e->count * sizeof *funcs : 1);
        if (!funcs)
            return pvm_errorf(err, "out of memory");
        for (uint32_t k = 0; k < e->count; k++)
            funcs[k] = e->items[k].kind == PVM_WASM_CONST_REF_FUNC ? e->items[k].index
                                                                     : PVM_NO_ENTRY;
        int rc = pvm_module_add_elem(m, e->table, (uint32_t)e->offset.bits, funcs, e->count, err);
        free(funcs);
        if (rc)
            return -1;
    }
    return 0;
}

static int add_data(const pvm_wasm_module *wm, pvm_module *m, pvm_error *err)
{
    for (uint32_t i = 0; i < wm->ndatas; i++) {
        const pvm_wasm_data *d = &wm->datas[i];
        if (pvm_module_add_data(m, (uint32_t)d->offset.bits, wm->bytes + d->start, d->size,
                                err) < 0)
            return -1;
    }
    return 0;
}

static void set_entry(const pvm_wasm_module *wm, pvm_module *m)
{
    m->start = wm->start == PVM_WASM_NONE ? PVM_NO_ENTRY : wm->start;
    for (uint32_t i = 0; i < wm->nexports; i++)
        if (wm->exports[i].kind == PVM_WASM_EXTERN_FUNC &&
            pvm_wasm_name_is(wm->exports[i].name, "_start"))
            m->entry = wm->exports[i].index;
}

int pvm_wasm_translation_image(const pvm_wasm_module *wm, pvm_module *m, char *why, size_t cap,
                               pvm_error *err)
{
    if (unsupported(wm, why, cap))
        return 1;
    for (uint32_t g = 0; g < wm->nglobals; g++)
        if (value_of(&wm->globals[g].init) &&
            pvm_module_set_global(m, g, value_of(&wm->globals[g].init), err))
            return -1;
    for (uint32_t t = 0; t < wm->ntables; t++) {
        const pvm_wasm_limits *lim = &wm->tables[t].limits;
        if (pvm_module_set_table(m, t, lim->min, lim->max, err))
            return -1;
    }
    if (add_elems(wm, m, err) || add_data(wm, m, err))
        return -1;
    set_entry(wm, m);
    return 0;
}
