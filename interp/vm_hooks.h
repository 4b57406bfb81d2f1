/*
 * vm_hooks.h - the interpreter's compile-time hooks.  Each one expands to
 * nothing unless its build option is on, so a build without hooks runs
 * exactly the plain dispatch loop.
 *
 *   PULLEY_PROFILE  before every instruction, a relaxed atomic store of its
 *                   pc into the VM's profiling slot; 0 is stored whenever
 *                   control leaves bytecode (host call, return, trap).
 *   PULLEY_TRACE    before every instruction, the tracer (trace.c) prints
 *                   what the previous one changed and then the instruction.
 *
 * The slot pointer lives in the interpreter: a local of the run function
 * (switch and goto dispatch) or an extra handler argument (tail dispatch),
 * declared by HOOK_LOCALS / HOOK_PARAMS / HOOK_ARGS.
 */
#ifndef PULLEY_VM_HOOKS_H
#define PULLEY_VM_HOOKS_H

#include <stdatomic.h>
#include <stdint.h>

#include "trace.h"
#include "vm.h"

#ifdef PULLEY_PROFILE
#define HOOK_LOCALS                                                            \
    _Atomic(uintptr_t) *const pc_slot =                                        \
        vm->pc_slot ? vm->pc_slot : &vm->pc_slot_own;
#define HOOK_PARAMS , _Atomic(uintptr_t) *pc_slot
#define HOOK_ARGS , pc_slot
#define PROFILE_PC(p)                                                          \
    atomic_store_explicit(pc_slot, (uintptr_t)(p), memory_order_relaxed)
#else
#define HOOK_LOCALS
#define HOOK_PARAMS
#define HOOK_ARGS
#define PROFILE_PC(p) ((void)0)
#endif

#ifdef PULLEY_TRACE
#define TRACE_INSN(p) pvm_trace_insn(vm, (p))
#define TRACE_END(kind) pvm_trace_end(vm, (kind))
#else
#define TRACE_INSN(p) ((void)0)
#define TRACE_END(kind) ((void)0)
#endif

/* Before the instruction at p runs. */
#define HOOK_BEFORE(p) (PROFILE_PC(p), TRACE_INSN(p))
/* Control leaves the interpreter for good, with this trap kind (NONE: a
 * return to the embedder). */
#define HOOK_EXIT(kind) (PROFILE_PC(0), TRACE_END(kind))
/* Control leaves bytecode for a host function and comes back to the
 * instruction at p. */
#define LEAVE_BYTECODE() PROFILE_PC(0)
#define ENTER_BYTECODE(p) PROFILE_PC(p)

#endif
