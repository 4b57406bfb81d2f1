/*
 * wasm_bulk.c - memory.copy, memory.fill, table.copy and table.fill for
 * translated code (wasm_bulk.h).
 */
#include "wasm_bulk.h"

#include <string.h>

#include "translate.h"

static pvm_trap_kind memory_copy(pvm_vm *vm, void *ctx)
{
    (void)ctx;
    uint64_t dst = (uint32_t)vm->x[0], src = (uint32_t)vm->x[1], n = (uint32_t)vm->x[2];
    pvm_memory *mem = vm->memory;
    if (!pvm_wasm_in_range(dst, n, mem->size) || !pvm_wasm_in_range(src, n, mem->size))
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
    if (!pvm_wasm_in_range(dst, n, mem->size))
        return PVM_TRAP_HEAP_OOB;
    if (n)
        memset(mem->bytes + dst, (uint8_t)vm->x[1], (size_t)n);
    return PVM_TRAP_NONE;
}

static pvm_trap_kind table_copy(pvm_vm *vm, void *ctx)
{
    (void)ctx;
    uint64_t dst = (uint32_t)vm->x[0], src = (uint32_t)vm->x[1], n = (uint32_t)vm->x[2];
    pvm_table *dt = vm->tables[(uint32_t)vm->x[3]], *st = vm->tables[(uint32_t)vm->x[4]];
    if (!pvm_wasm_in_range(dst, n, dt->size) || !pvm_wasm_in_range(src, n, st->size))
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
    if (!pvm_wasm_in_range(at, n, t->size))
        return PVM_TRAP_TABLE_OOB;
    for (uint64_t i = 0; i < n; i++)
        t->elems[at + i] = ref;
    return PVM_TRAP_NONE;
}

static const struct {
    const char *name;
    pvm_host_fn fn;
} vm_ops[] = {
    {PVM_WASM_BULK_PREFIX "memory.copy", memory_copy},
    {PVM_WASM_BULK_PREFIX "memory.fill", memory_fill},
    {PVM_WASM_BULK_PREFIX "table.copy", table_copy},
    {PVM_WASM_BULK_PREFIX "table.fill", table_fill},
};

pvm_host_fn pvm_wasm_vm_bulk_op(const char *import)
{
    for (size_t k = 0; k < sizeof vm_ops / sizeof vm_ops[0]; k++)
        if (strcmp(import, vm_ops[k].name) == 0)
            return vm_ops[k].fn;
    return NULL;
}

void pvm_wasm_bind_vm_bulk(pvm_vm *vm)
{
    for (uint32_t i = 0; i < vm->module->nimports; i++) {
        pvm_host_fn fn = pvm_wasm_vm_bulk_op(vm->module->imports[i]);
        if (fn)
            vm->hosts[i] = (pvm_host_binding){fn, NULL};
    }
}
