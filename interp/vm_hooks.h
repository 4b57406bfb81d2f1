/*
 * vm_hooks.h - the interpreter's compile-time hooks.  Each one expands to
 * nothing unless its build option is on, so a build without hooks runs
 * exactly the plain dispatch loop.
 *
 *   PULLEY_PROFILE  where a straight-line run of instructions starts, a
 *                   relaxed atomic store of its pc into the VM's profiling
 *                   slot (PROFILE_RUN_START); 0 is stored whenever control
 *                   leaves bytecode (host call, return, trap).  A run
 *                   starts where bytecode is entered (pvm_vm_call, the
 *                   return from a host call: at the instruction that made
 *                   it), at the target of every taken transfer (JUMP), and
 *                   after every instruction that ends one: an opcode
 *                   flagged BRANCH, TERM, CALL or RETURN (PVM_FLAGS_END_RUN
 *                   in isa.h), whichever way it went on.  So the slot names
 *                   the first instruction of the run the VM is in, and the
 *                   run is every instruction from there up to the first
 *                   one that ends a run: the collector spreads a sample
 *                   over them (collect/README.md).
 *   PULLEY_TRACE    before every instruction, the tracer (trace.c) prints
 *                   what the previous one changed and then the instruction.
 *   PULLEY_COUNT    exact counts: before every instruction, its execution
 *                   count (vm->exec_counts, one uint64 per code byte,
 *                   indexed by module code offset) is incremented; every
 *                   control transfer made by JUMP (jump, br_if, br_if_not,
 *                   br_table, call, call_indirect, ret; a branch not taken
 *                   falls through and is not an edge, a taken one is, even
 *                   to the next instruction) increments the count of its
 *                   (from, to) code-offset pair in the VM's edge table
 *                   (pvm_count_edge below).
 *
 * The counting build's count array lives in the interpreter: a local of
 * the run function (switch and goto dispatch) or an extra handler argument
 * (tail dispatch), declared by HOOK_LOCALS / HOOK_PARAMS / HOOK_ARGS.  The
 * profiling hook stores into the VM's slot (vm->pc_slot): one store per
 * run (a few instructions of Wasm code), in the handlers of the ops that
 * end runs and in JUMP, while every other handler is the plain build's;
 * see bench/measure_overhead.sh for what that costs in time.
 *
 * The edge table is an open-addressing hash table (linear probing, a
 * power-of-two capacity, at most half full, grown by pvm_vm_count_edge_new
 * in vm.c) keyed by the (from, to) pair: one table serves static branches
 * and the dynamic transfers (br_table, call_indirect, ret) alike, and its
 * size follows the edges actually taken rather than the code size.  An
 * entry with count 0 is empty.
 */
#ifndef PULLEY_VM_HOOKS_H
#define PULLEY_VM_HOOKS_H

#include <stdatomic.h>
#include <stdint.h>

#include "trace.h"
#include "vm.h"

#ifdef PULLEY_PROFILE
/* The slot is a field of the VM, stored at its offset from vm, which every
 * handler has: a pointer to it in a local or a handler argument would
 * take a register from every handler (in tail dispatch the handlers that
 * need three scratch registers would save one). */
#define PROFILE_PC(p)                                                          \
    atomic_store_explicit(&vm->pc_slot, (uintptr_t)(p), memory_order_relaxed)
#else
#define PROFILE_PC(p) ((void)0)
#endif

#ifdef PULLEY_COUNT
/* The count array: a local (switch, goto) or a handler argument (tail). */
#define COUNT_LOCALS uint64_t *const exec_counts_ = vm->exec_counts;
#define COUNT_PARAMS , uint64_t *exec_counts_ __attribute__((unused))
#define COUNT_ARGS , exec_counts_
#define COUNT_INSN(p) (exec_counts_[(p) - vm->module->code]++)
#define COUNT_EDGE(from, to)                                                   \
    pvm_count_edge(vm, (uint32_t)((from) - vm->module->code),                  \
                   (uint32_t)((to) - vm->module->code))

/* One more taken transfer from code offset `from` to `to`. */
static inline void pvm_count_edge(pvm_vm *vm, uint32_t from, uint32_t to)
{
    pvm_edge_count *e = vm->edges;
    size_t mask = vm->edge_cap - 1;
    for (size_t i = pvm_edge_hash(from, to) & mask;; i = (i + 1) & mask) {
        if (e[i].count == 0)
            break;
        if (e[i].from == from && e[i].to == to) {
            e[i].count++;
            return;
        }
    }
    pvm_vm_count_edge_new(vm, from, to);
}
#else
#define COUNT_LOCALS
#define COUNT_PARAMS
#define COUNT_ARGS
#define COUNT_INSN(p) ((void)0)
#define COUNT_EDGE(from, to) ((void)0)
#endif

#ifdef PULLEY_TRACE
#define TRACE_INSN(p) pvm_trace_insn(vm, (p))
#define TRACE_END(kind) pvm_trace_end(vm, (kind))
#else
#define TRACE_INSN(p) ((void)0)
#define TRACE_END(kind) ((void)0)
#endif

#define HOOK_LOCALS COUNT_LOCALS
#define HOOK_PARAMS COUNT_PARAMS
#define HOOK_ARGS COUNT_ARGS

/* Before the instruction at p runs. */
#define HOOK_BEFORE(p) (COUNT_INSN(p), TRACE_INSN(p))
/* A straight-line run starts at p: bytecode entered, a transfer taken, or
 * the instruction before p ended a run. */
#define PROFILE_RUN_START(p) PROFILE_PC(p)
/* Control goes from the instruction at `from` to `to` (not falling through). */
#define HOOK_TRANSFER(from, to) (COUNT_EDGE(from, to), PROFILE_RUN_START(to))
/* Control leaves the interpreter for good, with this trap kind (NONE: a
 * return to the embedder). */
#define HOOK_EXIT(kind) (PROFILE_PC(0), TRACE_END(kind))
/* Control leaves bytecode for a host function and comes back to the
 * instruction at p. */
#define LEAVE_BYTECODE() PROFILE_PC(0)
#define ENTER_BYTECODE(p) PROFILE_RUN_START(p)

#endif
