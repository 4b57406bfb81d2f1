/*
 * wasm_bulk.h - the bulk operations of translated code that need only the
 * VM, host imports "pulley.OP" (translate.h; arguments in x0..x4 as the
 * translator passes them):
 *
 *   memory.copy  (dst, src, n)          memory.fill (dst, byte, n)
 *   table.copy   (dst, src, n, dt, st)  table.fill  (i, ref, n, table)
 *
 * Bounds are checked before anything is written, as Wasm 2.0 says.  The
 * instance layer binds them with the operations on segments
 * (wasm_instance_bulk.c); a saved translation runs with them alone
 * (tools/common/module_host.h).
 */
#ifndef PULLEY_WASM_BULK_H
#define PULLEY_WASM_BULK_H

#include <stdbool.h>
#include <stdint.h>

#include "vm.h"

/* Is [at, at + n) inside [0, size)? (at and n are u32 values) */
static inline bool pvm_wasm_in_range(uint64_t at, uint64_t n, uint64_t size)
{
    return at + n <= size;
}

/* The operation a host import of this name is, or NULL. */
pvm_host_fn pvm_wasm_vm_bulk_op(const char *import);

/* Bind every import of vm's module that is one of them. */
void pvm_wasm_bind_vm_bulk(pvm_vm *vm);

#endif
