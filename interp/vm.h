/*
 * vm.h - the virtual machine: state of one VM instance, the objects VMs may
 * share (memories, globals, tables), and the embedding API.
 *
 * A VM runs one verified module.  Its data space is two ranges: its private
 * stack at addresses [0, stack_size) (growing down from stack_size), and
 * its heap, a pvm_memory mapped at [heap_base, heap_base + memory->size)
 * with heap_base == stack_size.  Every load and store is checked against
 * the two ranges (an access straddling them traps), so guest code can never
 * touch host memory; Wasm's heap bounds are checked by the explicit
 * bcheck32 instruction.  Return addresses (lr) are code offsets plus one
 * (0 means "return to the embedder"), and `ret` checks them against the
 * verifier's map of instruction starts.
 *
 * Memories, globals and tables are reference-counted objects, so that one
 * object can serve several VMs (a Wasm import is the exporter's object).
 * Each _new returns an object holding one reference; _retain adds one and
 * returns the object; _release drops one and frees the object with the
 * last (NULL is ignored).  Counts are not atomic: a set of VMs sharing
 * objects runs on one thread at a time.
 *
 * Build-time hooks (see vm_hooks.h): PULLEY_TRACE prints every instruction
 * and the registers it changed; PULLEY_PROFILE stores into pc_slot the pc
 * where each straight-line run of instructions starts (what that is:
 * vm_hooks.h) and 0 whenever control leaves bytecode;
 * PULLEY_COUNT counts every instruction's executions and every taken
 * control transfer (read with pvm_vm_exec_counts and pvm_vm_edge_next).
 * The struct layout is the same in every build.
 */
#ifndef PULLEY_VM_H
#define PULLEY_VM_H

#include <stdalign.h>
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
 * results there; heap byte i is vm->memory->bytes[i] (i < vm->memory->size;
 * both may change when the memory grows).  Returns PVM_TRAP_NONE, or a trap
 * kind to stop the VM (PVM_TRAP_EXIT with vm->exit_status set for a clean
 * exit). */
typedef pvm_trap_kind (*pvm_host_fn)(pvm_vm *vm, void *ctx);

typedef struct pvm_host_binding {
    pvm_host_fn fn;   /* NULL: unbound; calling it traps with HOST_ERROR */
    void *ctx;
} pvm_host_binding;

/* ---- memories ------------------------------------------------------------ */

/* A linear memory: the heap of each VM created with it.  Its address
 * space (max bytes) is reserved when it is made and made accessible as it
 * grows, so its bytes never move, and pages are committed only when first
 * touched: a memory.grow of gigabytes never used costs nothing. */
typedef struct pvm_memory {
    uint8_t *bytes;   /* `size` accessible bytes of a reservation of `max` */
    uint64_t size;    /* bytes */
    uint64_t max;     /* bytes; size <= max <= PVM_MAX_HEAP */
    uint64_t cap;     /* the embedder's limit: grows past it are refused */
    uint64_t refused; /* the largest size a grow asked for past cap (0: none) */
    size_t reserved;  /* bytes of address space mapped */
    unsigned refs;
} pvm_memory;

/* A zeroed memory of `size` bytes that may grow to `max`.  NULL with err
 * if size > max, max > PVM_MAX_HEAP, or its address space cannot be
 * reserved. */
pvm_memory *pvm_memory_new(uint64_t size, uint64_t max, pvm_error *err);
pvm_memory *pvm_memory_retain(pvm_memory *mem);
void pvm_memory_release(pvm_memory *mem);
/* Grow by `bytes` zeroed bytes.  Returns the old size, or UINT64_MAX (and
 * nothing grown) past the maximum, past the cap (then noted in refused)
 * or when the system refuses. */
uint64_t pvm_memory_grow(pvm_memory *mem, uint64_t bytes);
/* Refuse to grow past cap bytes from now on (the memory keeps what it
 * has). */
void pvm_memory_set_cap(pvm_memory *mem, uint64_t cap);

/* ---- globals ------------------------------------------------------------- */

/* A global: one 64-bit cell (an i32 zero-extended, an f32 in the low half,
 * a reference, ...), read and written by xglobal_get/set, fglobal_get/set. */
typedef struct pvm_global {
    uint64_t value;
    unsigned refs;
} pvm_global;

/* A global holding `value`; NULL with err when out of memory. */
pvm_global *pvm_global_new(uint64_t value, pvm_error *err);
pvm_global *pvm_global_retain(pvm_global *g);
void pvm_global_release(pvm_global *g);

/* ---- tables and references ----------------------------------------------- */

/* A table: `size` references, growable to `max` (at most
 * PVM_MAX_TABLE_SIZE of them ever exist). */
typedef struct pvm_table {
    uint64_t *elems;
    uint32_t size, max;
    unsigned refs;
} pvm_table;

#define PVM_MAX_TABLE_SIZE PVM_MAX_TABLE_ENTRIES

/* A table of `size` entries set to `init`, growable to `max`.  NULL with
 * err if size > max, size > PVM_MAX_TABLE_SIZE, or out of memory. */
pvm_table *pvm_table_new(uint32_t size, uint32_t max, uint64_t init, pvm_error *err);
pvm_table *pvm_table_retain(pvm_table *t);
void pvm_table_release(pvm_table *t);
/* Grow by n entries set to `init`.  Returns the old size, or UINT32_MAX
 * (and nothing grown) past the maximum, past PVM_MAX_TABLE_SIZE or out of
 * memory. */
uint32_t pvm_table_grow(pvm_table *t, uint32_t n, uint64_t init);

/* References (table entries, call_indirect's operand): 0 is null; f + 1 is
 * bytecode function f of the VM; HOST_BIT | k is the VM's host reference k
 * (pvm_vm_add_host_ref).  Anything else refers to no function. */
#define PVM_REF_NULL UINT64_C(0)
#define PVM_REF_FUNC(f) ((uint64_t)(f) + 1)
#define PVM_REF_HOST_BIT (UINT64_C(1) << 63)

/* A host function that references can point at, with its signature. */
typedef struct pvm_host_ref {
    pvm_host_fn fn;
    void *ctx;
    char *params, *results; /* type letters */
    uint32_t sig;           /* signature id (see type_sigs below) */
} pvm_host_ref;

/* ---- the VM -------------------------------------------------------------- */

/* A taken control transfer of a counting build: from the instruction at
 * module code offset `from` to the one at `to`, `count` times (jump, taken
 * br_if/br_if_not, br_table, call, call_indirect to bytecode, ret to
 * bytecode).  In the VM's edge table, count 0 marks an empty entry. */
typedef struct pvm_edge_count {
    uint32_t from, to;
    uint64_t count;
} pvm_edge_count;

/* The edge table's hash of (from, to): Fibonacci hashing, high bits. */
static inline size_t pvm_edge_hash(uint32_t from, uint32_t to)
{
    uint64_t key = ((uint64_t)from << 32 | to) * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(key >> 32);
}

typedef struct pvm_vm_config {
    uint64_t stack_size;   /* bytes; 0: PVM_DEFAULT_STACK */
    /* The heap.  NULL: the VM creates a memory of the module's heap_min
     * and heap_max; otherwise the VM shares (retains) this one, and the
     * module's heap limits are not used. */
    pvm_memory *memory;
    /* 0, or the cap (pvm_memory_set_cap) of the memory the VM creates. */
    uint64_t heap_cap;
} pvm_vm_config;

#define PVM_DEFAULT_STACK (UINT64_C(1) << 20)
#define PVM_MAX_STACK (UINT64_C(1) << 30) /* stack sizes are multiples of 16 */
/* The signature id of a host reference whose signature is no module type. */
#define PVM_NO_SIG UINT32_MAX

/* The tracer's view of the machine before the instruction it printed last,
 * so that it can print the registers that instruction changed. */
typedef struct pvm_trace_state {
    const uint8_t *pc;        /* that instruction; NULL: nothing pending */
    uint64_t x[PVM_NUM_XREGS];
    pvm_freg f[PVM_NUM_FREGS];
    uint64_t sp, fp, lr;
    /* The global or table that instruction names (imm_kind GLOBAL or
     * TABLEIDX, index imm): the global's value; or the table's size, and
     * `entry` = u32(x[a]) and that entry's value if the table has it. */
    uint8_t imm_kind;
    uint32_t imm, table_size, entry;
    uint64_t value;
} pvm_trace_state;

struct pvm_vm {
    /* Registers and machine state; valid between calls and inside host
     * functions. */
    uint64_t x[PVM_NUM_XREGS];
    pvm_freg f[PVM_NUM_FREGS];
    uint64_t sp, fp, lr;

    /* The data space: the private stack (`stack`, the last member), then
     * the heap. */
    uint64_t stack_size;
    uint64_t heap_base;    /* == stack_size: data-space address of heap byte 0 */
    uint64_t stack_fast_end; /* stack_size - 7: an access of at most 8 bytes
                                that starts below it is inside the stack */
    uint64_t frame_limit;    /* stack_size - 16: the highest fp a frame fits */
    pvm_memory *memory;    /* the heap (possibly shared with other VMs) */
    uint8_t *heap_bytes;   /* memory->bytes as the tail build's ops last loaded
                              it (vm_dispatch.h, AFTER_SHIFT) */

    const pvm_module *module;
    pvm_host_binding *hosts;  /* one per module import */
    pvm_global **globals;     /* module->nglobals cells */
    pvm_table **tables;       /* module->ntables tables */
    pvm_host_ref *host_refs;  /* host reference k is host_refs[k] */
    uint32_t nhost_refs, host_refs_cap;
    /* Canonical signature ids: two signatures have the same id iff their
     * params and results are equal.  type_sigs[t] for module type t,
     * func_sigs[f] for function f; sigcheck compares these integers. */
    uint32_t *type_sigs, *func_sigs;

    /* The last trap: its kind, the function and the byte offset in it. */
    pvm_trap_kind trap;
    uint32_t trap_func;
    uint32_t trap_offset;
    int exit_status;          /* for PVM_TRAP_EXIT */

    /* Profiling hook (PULLEY_PROFILE): the pc of the first instruction of
     * the run the VM is in (0 while control is outside bytecode), which a
     * sampler reads. */
    _Atomic(uintptr_t) pc_slot;
    /* Tracer output (PULLEY_TRACE); NULL: stderr. */
    FILE *trace_out;
    pvm_trace_state trace;
    void *user;               /* for the embedder */

    /* Calls of pvm_vm_call in progress (host functions may call back). */
    unsigned depth;

    /* Exact counts (PULLEY_COUNT builds; NULL and 0 in the others), over
     * the VM's life.  exec_counts[off]: how often the instruction at module
     * code offset off ran (module->code_size entries).  edges: the taken
     * transfers, an open-addressing table of edge_cap (a power of two)
     * entries, nedges of them used, never more than half.  edges_lost:
     * transfers not counted because the table could not grow. */
    uint64_t *exec_counts;
    pvm_edge_count *edges;
    size_t edge_cap, nedges;
    uint64_t edges_lost;

    /* stack_size bytes, data-space addresses 0..; allocated with the VM,
     * so that the interpreter finds it at a fixed offset from vm. */
    alignas(16) uint8_t stack[];
};

/* Create a VM for a verified module, which must outlive it unchanged.  The
 * heap is cfg->memory or a new memory of m->heap_min bytes (see
 * pvm_vm_config); either way the data segments are copied into it, and
 * must fit its current size.  The VM has m->nglobals new globals (0) and
 * m->ntables new tables (size 0, max 0), to be replaced by bindings as
 * needed.  The stack size must be a multiple of 16 up to PVM_MAX_STACK.
 * Returns NULL with err on failure. */
pvm_vm *pvm_vm_new(const pvm_module *m, const pvm_vm_config *cfg, pvm_error *err);
/* Free the VM and release its memory, globals and tables. */
void pvm_vm_free(pvm_vm *vm);

/* Bind the import called `name` (no-op if the module does not import it). */
void pvm_vm_bind_host(pvm_vm *vm, const char *name, pvm_host_fn fn, void *ctx);
/* 0 if every import is bound; otherwise -1 and err names the first one. */
int pvm_vm_check_imports(const pvm_vm *vm, pvm_error *err);

/* Make global i (< module->nglobals) the cell g: retains g, releases the
 * cell it replaces.  Returns 0, or -1 if i is out of range. */
int pvm_vm_bind_global(pvm_vm *vm, uint32_t i, pvm_global *g);
/* Make table i (< module->ntables) the table t, likewise. */
int pvm_vm_bind_table(pvm_vm *vm, uint32_t i, pvm_table *t);

/* Register a host function that references can point at: returns its
 * reference (PVM_REF_HOST_BIT | k), or PVM_REF_NULL if params or results
 * are not type letters or memory runs out.  call_indirect calls it as
 * call_host would (arguments and results in the registers); sigcheck
 * accepts it for the module types whose params and results equal these. */
uint64_t pvm_vm_add_host_ref(pvm_vm *vm, pvm_host_fn fn, void *ctx, const char *params,
                             const char *results);

/* Call function `func` with the arguments already in vm->x / vm->f.
 * Returns PVM_TRAP_NONE when it returns (results in the registers), else
 * the trap kind, with vm->trap_func / trap_offset naming the instruction.
 * sp and fp are reset to the stack top when the outermost call starts; a
 * call made from a host function runs below the caller's frame and gives
 * it back its sp, fp and lr when it ends. */
pvm_trap_kind pvm_vm_call(pvm_vm *vm, uint32_t func);

/* Index of the function whose code contains module code offset `off`. */
uint32_t pvm_vm_func_at(const pvm_vm *vm, size_t off);

/* Exact counts of a counting build (pvm_built_with_count()), accumulated
 * over every call since the VM was created.  pvm_vm_exec_counts: the
 * execution count of each module code offset (0 where no instruction
 * starts), *n = module->code_size entries; NULL and *n = 0 in other
 * builds.  pvm_vm_edge_next: the next taken transfer after *iter (start
 * with *iter = 0) into *out; 1 while there is one, 0 at the end (at once
 * in other builds); edges come in no particular order.  pvm_vm_edges_lost:
 * transfers that could not be counted (out of memory), normally 0. */
const uint64_t *pvm_vm_exec_counts(const pvm_vm *vm, size_t *n);
int pvm_vm_edge_next(const pvm_vm *vm, size_t *iter, pvm_edge_count *out);
uint64_t pvm_vm_edges_lost(const pvm_vm *vm);
/* Counting builds' slow path: a transfer not yet in the edge table. */
void pvm_vm_count_edge_new(pvm_vm *vm, uint32_t from, uint32_t to);

/* Name of the dispatch mode this VM was built with: "switch", "goto" or
 * "tail"; and whether the hooks are compiled in. */
const char *pvm_dispatch_mode(void);
int pvm_built_with_trace(void);
int pvm_built_with_profile(void);
int pvm_built_with_count(void);

#endif
