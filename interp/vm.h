/*
 * vm.h - the virtual machine: state of one VM instance and the embedding API.
 *
 * A VM runs one verified module.  Its data space is one allocation holding
 * the stack (addresses 0 .. stack_size, growing down from stack_size) and
 * then the heap (heap_base .. heap_base + heap_size).  Every load and store
 * is checked against the data space, so guest code can never touch host
 * memory; Wasm's heap bounds are checked by the explicit bcheck32
 * instruction.  Return addresses (lr) are code offsets plus one (0 means
 * "return to the embedder"), and `ret` checks them against the verifier's
 * map of instruction starts.
 *
 * Build-time hooks (see vm_hooks.h): PULLEY_TRACE prints every instruction
 * and the registers it changed; PULLEY_PROFILE stores the current pc into
 * *pc_slot before every instruction and 0 whenever control leaves bytecode.
 */
#ifndef PULLEY_VM_H
#define PULLEY_VM_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "isa.h"
#include "module.h"

typedef union pvm_freg {
    uint64_t bits;    /* an f64's bits, or an f32's bits in the low half */
} pvm_freg;

typedef struct pvm_vm pvm_vm;

/* A host function: reads its arguments from vm->x / vm->f and writes its
 * results there.  Returns PVM_TRAP_NONE, or a trap kind to stop the VM
 * (PVM_TRAP_EXIT with vm->exit_status set for a clean exit). */
typedef pvm_trap_kind (*pvm_host_fn)(pvm_vm *vm, void *ctx);

typedef struct pvm_host_binding {
    pvm_host_fn fn;   /* NULL: unbound; calling it traps with HOST_ERROR */
    void *ctx;
} pvm_host_binding;

typedef struct pvm_vm_config {
    uint64_t stack_size;   /* bytes; 0: PVM_DEFAULT_STACK */
} pvm_vm_config;

#define PVM_DEFAULT_STACK (UINT64_C(1) << 20)
#define PVM_MAX_STACK (UINT64_C(1) << 30) /* stack sizes are multiples of 16 */

/* The tracer's view of the machine before the instruction it printed last,
 * so that it can print the registers that instruction changed. */
typedef struct pvm_trace_state {
    const uint8_t *pc;        /* that instruction; NULL: nothing pending */
    uint64_t x[PVM_NUM_XREGS];
    pvm_freg f[PVM_NUM_FREGS];
    uint64_t sp, fp, lr;
} pvm_trace_state;

struct pvm_vm {
    /* Registers and machine state; valid between calls and inside host
     * functions. */
    uint64_t x[PVM_NUM_XREGS];
    pvm_freg f[PVM_NUM_FREGS];
    uint64_t sp, fp, lr;

    /* The data space. */
    uint8_t *mem;
    uint64_t mem_size;     /* stack_size + heap_size */
    uint64_t stack_size;
    uint64_t heap_base;    /* == stack_size */
    uint64_t heap_size;
    uint64_t heap_max;

    const pvm_module *module;
    pvm_host_binding *hosts;  /* one per module import */

    /* The last trap: its kind, the function and the byte offset in it. */
    pvm_trap_kind trap;
    uint32_t trap_func;
    uint32_t trap_offset;
    int exit_status;          /* for PVM_TRAP_EXIT */

    /* Profiling hook (PULLEY_PROFILE): where the pc is stored before each
     * instruction (0 while control is outside bytecode).  Points at
     * pc_slot_own when the VM is created; a sampler may point it at a slot
     * of its own between calls.  NULL: the VM's own slot. */
    _Atomic(uintptr_t) *pc_slot;
    _Atomic(uintptr_t) pc_slot_own;
    /* Tracer output (PULLEY_TRACE); NULL: stderr. */
    FILE *trace_out;
    pvm_trace_state trace;
    void *user;               /* for the embedder */

    /* Calls of pvm_vm_call in progress (host functions may call back). */
    unsigned depth;
};

/* Create a VM for a verified module, which must outlive it unchanged; the
 * heap starts at m->heap_min bytes with the data segments copied in.  The
 * stack size must be a multiple of 16 up to PVM_MAX_STACK.  Returns NULL
 * with err on failure. */
pvm_vm *pvm_vm_new(const pvm_module *m, const pvm_vm_config *cfg, pvm_error *err);
void pvm_vm_free(pvm_vm *vm);

/* Bind the import called `name` (no-op if the module does not import it). */
void pvm_vm_bind_host(pvm_vm *vm, const char *name, pvm_host_fn fn, void *ctx);
/* 0 if every import is bound; otherwise -1 and err names the first one. */
int pvm_vm_check_imports(const pvm_vm *vm, pvm_error *err);

/* Call function `func` with the arguments already in vm->x / vm->f.
 * Returns PVM_TRAP_NONE when it returns (results in the registers), else
 * the trap kind, with vm->trap_func / trap_offset naming the instruction.
 * sp and fp are reset to the stack top when the outermost call starts; a
 * call made from a host function runs below the caller's frame and gives
 * it back its sp, fp and lr when it ends. */
pvm_trap_kind pvm_vm_call(pvm_vm *vm, uint32_t func);

/* Index of the function whose code contains module code offset `off`. */
uint32_t pvm_vm_func_at(const pvm_vm *vm, size_t off);

/* Grow the heap by `bytes`; returns the old size, or UINT64_MAX. */
uint64_t pvm_vm_heap_grow(pvm_vm *vm, uint64_t bytes);

/* Name of the dispatch mode this VM was built with: "switch", "goto" or
 * "tail"; and whether the hooks are compiled in. */
const char *pvm_dispatch_mode(void);
int pvm_built_with_trace(void);
int pvm_built_with_profile(void);

#endif
