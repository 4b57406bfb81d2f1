/*
 * vm.c - the life of a VM outside the interpreter loop: creating it for a
 * verified module (data space, data segments), host bindings, heap growth,
 * mapping code offsets to functions, and what the build compiled in.
 */
#include "vm.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

pvm_vm *pvm_vm_new(const pvm_module *m, const pvm_vm_config *cfg, pvm_error *err)
{
    if (!m->verified || !m->insn_starts) {
        pvm_errorf(err, "module is not verified");
        return NULL;
    }
    uint64_t stack = cfg && cfg->stack_size ? cfg->stack_size : PVM_DEFAULT_STACK;
    if (stack % 16 != 0 || stack > PVM_MAX_STACK) {
        pvm_errorf(err, "stack size %" PRIu64 " is not a multiple of 16 up to %" PRIu64,
                   stack, PVM_MAX_STACK);
        return NULL;
    }
    if (m->heap_min > m->heap_max || m->heap_max > PVM_MAX_HEAP) {
        pvm_errorf(err, "heap limits %" PRIu64 "..%" PRIu64 " are not within 0..%" PRIu64,
                   m->heap_min, m->heap_max, PVM_MAX_HEAP);
        return NULL;
    }
    for (uint32_t i = 0; i < m->ndata; i++) {
        const pvm_data_segment *d = &m->data[i];
        if (d->offset > m->heap_min || d->size > m->heap_min - d->offset) {
            pvm_errorf(err, "data segment %" PRIu32 " (%" PRIu32 " bytes at heap offset %"
                       PRIu64 ") does not fit the initial heap of %" PRIu64 " bytes",
                       i, d->size, d->offset, m->heap_min);
            return NULL;
        }
    }
    uint64_t mem_size = stack + m->heap_min;
    if (mem_size > SIZE_MAX) {
        pvm_errorf(err, "data space of %" PRIu64 " bytes does not fit in memory", mem_size);
        return NULL;
    }

    pvm_vm *vm = calloc(1, sizeof *vm);
    if (!vm) {
        pvm_errorf(err, "out of memory");
        return NULL;
    }
    vm->mem = calloc(1, (size_t)mem_size);
    vm->hosts = calloc(m->nimports ? m->nimports : 1, sizeof *vm->hosts);
    if (!vm->mem || !vm->hosts) {
        pvm_vm_free(vm);
        pvm_errorf(err, "out of memory for a data space of %" PRIu64 " bytes", mem_size);
        return NULL;
    }
    vm->mem_size = mem_size;
    vm->stack_size = stack;
    vm->heap_base = stack;
    vm->heap_size = m->heap_min;
    vm->heap_max = m->heap_max;
    for (uint32_t i = 0; i < m->ndata; i++)
        if (m->data[i].size)
            memcpy(vm->mem + vm->heap_base + m->data[i].offset, m->data[i].bytes,
                   m->data[i].size);
    vm->sp = vm->fp = stack;
    vm->module = m;
    vm->pc_slot = &vm->pc_slot_own;
    return vm;
}

void pvm_vm_free(pvm_vm *vm)
{
    if (!vm)
        return;
    free(vm->mem);
    free(vm->hosts);
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

uint64_t pvm_vm_heap_grow(pvm_vm *vm, uint64_t bytes)
{
    uint64_t old = vm->heap_size;
    if (bytes > vm->heap_max - old)
        return UINT64_MAX;
    if (bytes == 0)
        return old;
    uint64_t mem_size = vm->mem_size + bytes; /* at most stack + heap maxima */
    if (mem_size > SIZE_MAX)
        return UINT64_MAX;
    uint8_t *mem = realloc(vm->mem, (size_t)mem_size);
    if (!mem)
        return UINT64_MAX;
    memset(mem + vm->mem_size, 0, (size_t)bytes);
    vm->mem = mem;
    vm->mem_size = mem_size;
    vm->heap_size = old + bytes;
    return old;
}

uint32_t pvm_vm_func_at(const pvm_vm *vm, size_t off)
{
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
