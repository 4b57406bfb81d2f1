/*
 * wasm_instance_bulk.c - the bulk operations that need the instance's
 * segments, host imports "pulley.OP" of translated code (arguments in
 * x0..x4 as the translator passes them), beside those that need only the
 * VM (wasm_bulk.h):
 *
 *   memory.init  (dst, src, n, data)    data.drop   (data)
 *   table.init   (dst, src, n, elem, t) elem.drop   (elem)
 *
 * Bounds are checked before anything is written, as Wasm 2.0 says; a
 * dropped segment has size 0.
 */
#include <string.h>

#include "translate.h"
#include "wasm_bulk.h"
#include "wasm_instance_internal.h"

static pvm_wasm_instance *instance(void *ctx)
{
    return ctx;
}

pvm_trap_kind pvm_wasm_memory_init(pvm_wasm_instance *inst, uint32_t seg, uint64_t dst,
                                   uint64_t src, uint64_t n)
{
    const pvm_wasm_data *d = &inst->wm->datas[seg];
    uint64_t size = inst->data_dropped[seg] ? 0 : d->size;
    pvm_memory *mem = inst->vm->memory;
    if (!pvm_wasm_in_range(src, n, size) || !pvm_wasm_in_range(dst, n, mem->size))
        return PVM_TRAP_HEAP_OOB;
    if (n)
        memcpy(mem->bytes + dst, inst->wm->bytes + d->start + src, (size_t)n);
    return PVM_TRAP_NONE;
}

static pvm_trap_kind memory_init(pvm_vm *vm, void *ctx)
{
    return pvm_wasm_memory_init(instance(ctx), (uint32_t)vm->x[3], (uint32_t)vm->x[0],
                                (uint32_t)vm->x[1], (uint32_t)vm->x[2]);
}

static pvm_trap_kind data_drop(pvm_vm *vm, void *ctx)
{
    instance(ctx)->data_dropped[(uint32_t)vm->x[0]] = true;
    return PVM_TRAP_NONE;
}

pvm_trap_kind pvm_wasm_table_init(pvm_wasm_instance *inst, uint32_t table, uint32_t seg,
                                  uint64_t dst, uint64_t src, uint64_t n)
{
    const elem_refs *e = &inst->elems[seg];
    pvm_table *t = inst->vm->tables[table];
    if (!pvm_wasm_in_range(src, n, e->count) || !pvm_wasm_in_range(dst, n, t->size))
        return PVM_TRAP_TABLE_OOB;
    if (n)
        memcpy(t->elems + dst, e->refs + src, (size_t)n * sizeof *t->elems);
    return PVM_TRAP_NONE;
}

static pvm_trap_kind table_init(pvm_vm *vm, void *ctx)
{
    return pvm_wasm_table_init(instance(ctx), (uint32_t)vm->x[4], (uint32_t)vm->x[3],
                               (uint32_t)vm->x[0], (uint32_t)vm->x[1], (uint32_t)vm->x[2]);
}

static pvm_trap_kind elem_drop(pvm_vm *vm, void *ctx)
{
    instance(ctx)->elems[(uint32_t)vm->x[0]].count = 0;
    return PVM_TRAP_NONE;
}

void pvm_wasm_bind_bulk(pvm_wasm_instance *inst)
{
    static const struct {
        const char *name;
        pvm_host_fn fn;
    } ops[] = {
        {PVM_WASM_BULK_PREFIX "memory.init", memory_init},
        {PVM_WASM_BULK_PREFIX "data.drop", data_drop},
        {PVM_WASM_BULK_PREFIX "table.init", table_init},
        {PVM_WASM_BULK_PREFIX "elem.drop", elem_drop},
    };
    const pvm_module *m = inst->module;
    /* Past the function imports' host imports come the bulk operations'
     * (translate.h). */
    for (uint32_t i = inst->nhosts; i < m->nimports; i++) {
        pvm_host_fn fn = pvm_wasm_vm_bulk_op(m->imports[i]);
        for (size_t k = 0; !fn && k < sizeof ops / sizeof ops[0]; k++)
            if (strcmp(m->imports[i], ops[k].name) == 0)
                fn = ops[k].fn;
        if (fn)
            inst->vm->hosts[i] = (pvm_host_binding){fn, inst};
    }
}
