/*
 * wasm_instance_bulk.c - the bulk operations, host imports "pulley.OP" of
 * translated code (arguments in x0..x4 as the translator passes them):
 *
 *   memory.copy  (dst, src, n)          memory.fill (dst, byte, n)
 *   memory.init  (dst, src, n, data)    data.drop   (data)
 *   table.copy   (dst, src, n, dt, st)  table.fill  (i, ref, n, table)
 *   table.init   (dst, src, n, elem, t) elem.drop   (elem)
 *
 * Bounds are checked before anything is written, as Wasm 2.0 says; a
 * dropped segment has size 0.
 */
#include <string.h>

#include "translate.h"
#include "wasm_instance_internal.h"

/* Is [at, at + n) inside [0, size)? (at and n are u32 values) */
static bool in_range(uint64_t at, uint64_t n, uint64_t size)
{
    return at + n <= size;
}

static pvm_wasm_instance *instance(void *ctx)
{
    return ctx;
}

static pvm_trap_kind memory_copy(pvm_vm *vm, void *ctx)
{
    (void)ctx;
    uint64_t dst = (uint32_t)vm->x[0], src = (uint32_t)vm->x[1], n = (uint32_t)vm->x[2];
    pvm_memory *mem = vm->memory;
    if (!in_range(dst, n, mem->size) || !in_range(src, n, mem->size))
        return PVM_TRAP_HEAP_OOB;
    if (n)
        memmove(mem->bytes + dst, mem->bytes + src, (size_t)n);
    return PVM_TRAP_NONE;
}

static pvm_trap_kind memory_fill(pvm_vm *vm, void *ctx)
{
    (void)ctx;
    uint64_t dst = (uint32_t)vm->x[0], n = (uint32_t)vm->x[2];
    pvm_memory *mem = vm->memory;
    if (!in_range(dst, n, mem->size))
        return PVM_TRAP_HEAP_OOB;
    if (n)
        memset(mem->bytes + dst, (uint8_t)vm->x[1], (size_t)n);
    return PVM_TRAP_NONE;
}

pvm_trap_kind pvm_wasm_memory_init(pvm_wasm_instance *inst, uint32_t seg, uint64_t dst,
                                   uint64_t src, uint64_t n)
{
    const pvm_wasm_data *d = &inst->wm->datas[seg];
    uint64_t size = inst->data_dropped[seg] ? 0 : d->size;
    pvm_memory *mem = inst->vm->memory;
    if (!in_range(src, n, size) || !in_range(dst, n, mem->size))
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

static pvm_trap_kind table_copy(pvm_vm *vm, void *ctx)
{
    (void)ctx;
    uint64_t dst = (uint32_t)vm->x[0], src = (uint32_t)vm->x[1], n = (uint32_t)vm->x[2];
    pvm_table *dt = vm->tables[(uint32_t)vm->x[3]], *st = vm->tables[(uint32_t)vm->x[4]];
    if (!in_range(dst, n, dt->size) || !in_range(src, n, st->size))
        return PVM_TRAP_TABLE_OOB;
    if (n)
        memmove(dt->elems + dst, st->elems + src, (size_t)n * sizeof *dt->elems);
    return PVM_TRAP_NONE;
}

static pvm_trap_kind table_fill(pvm_vm *vm, void *ctx)
{
    (void)ctx;
    uint64_t at = (uint32_t)vm->x[0], ref = vm->x[1], n = (uint32_t)vm->x[2];
    pvm_table *t = vm->tables[(uint32_t)vm->x[3]];
    if (!in_range(at, n, t->size))
        return PVM_TRAP_TABLE_OOB;
    for (uint64_t i = 0; i < n; i++)
        t->elems[at + i] = ref;
    return PVM_TRAP_NONE;
}

pvm_trap_kind pvm_wasm_table_init(pvm_wasm_instance *inst, uint32_t table, uint32_t seg,
                                  uint64_t dst, uint64_t src, uint64_t n)
{
    const elem_refs *e = &inst->elems[seg];
    pvm_table *t = inst->vm->tables[table];
    if (!in_range(src, n, e->count) || !in_range(dst, n, t->size))
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
        {PVM_WASM_BULK_PREFIX "memory.copy", memory_copy},
        {PVM_WASM_BULK_PREFIX "memory.fill", memory_fill},
        {PVM_WASM_BULK_PREFIX "memory.init", memory_init},
        {PVM_WASM_BULK_PREFIX "data.drop", data_drop},
        {PVM_WASM_BULK_PREFIX "table.copy", table_copy},
        {PVM_WASM_BULK_PREFIX "table.fill", table_fill},
        {PVM_WASM_BULK_PREFIX "table.init", table_init},
        {PVM_WASM_BULK_PREFIX "elem.drop", elem_drop},
    };
    const pvm_module *m = inst->module;
    /* The bulk imports follow the Wasm function imports (translate.h). */
    for (uint32_t i = inst->wm->nfunc_imports; i < m->nimports; i++)
        for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
            if (strcmp(m->imports[i], ops[k].name) == 0)
                inst->vm->hosts[i] = (pvm_host_binding){ops[k].fn, inst};
}
