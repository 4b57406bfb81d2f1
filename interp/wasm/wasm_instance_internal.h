/*
 * wasm_instance_internal.h - the store, instances and external values the
 * instance layer's files share (wasm_store.c, wasm_instance.c,
 * wasm_instance_call.c, wasm_instance_bulk.c).
 */
#ifndef PULLEY_WASM_INSTANCE_INTERNAL_H
#define PULLEY_WASM_INSTANCE_INTERNAL_H

#include "module.h"
#include "wasm_instance.h"

/* A function type owned by whoever holds it. */
typedef struct ext_functype {
    uint8_t *params, *results;
    uint32_t nparams, nresults;
} ext_functype;

/* An external value: what an import resolves to. */
typedef struct pvm_wasm_extern {
    uint8_t kind; /* pvm_wasm_extern_kind */
    /* func: the binding a VM's host import gets (or, when owner is set,
     * function `index` of another instance), and the type */
    pvm_host_binding binding;
    pvm_wasm_instance *owner;
    uint32_t index;
    const uint8_t *params, *results;
    uint32_t nparams, nresults;
    /* global, table, memory */
    pvm_global *global;
    uint8_t type; /* global: value type; table: element type */
    bool is_mutable;
    pvm_table *table;
    pvm_memory *memory;
} pvm_wasm_extern;

/* An item of a host module. */
typedef struct host_item {
    char *module, *name;
    pvm_wasm_extern ext; /* owns its global / table / memory reference */
    ext_functype type;   /* func */
} host_item;

typedef struct host_binder {
    char *module;
    pvm_wasm_binder bind;
    void *ctx;
} host_binder;

typedef struct registration {
    char *name;
    pvm_wasm_instance *inst;
} registration;

/* A call into another instance's function (a host binding's context). */
typedef struct cross_call {
    pvm_wasm_instance *callee;
    uint32_t func;
} cross_call;

/* An element segment, resolved to references; dropped: count 0. */
typedef struct elem_refs {
    uint64_t *refs;
    uint32_t count;
} elem_refs;

struct pvm_wasm_instance {
    pvm_wasm_store *store;
    pvm_wasm_module *wm;
    pvm_module *module;
    pvm_vm *vm;
    cross_call *calls;     /* one per function import (those to instances) */
    uint32_t *host_of;     /* the host import of each function import (translate.h) */
    uint32_t nhosts;       /* host imports of function imports; bulk ones follow */
    elem_refs *elems;      /* per element segment */
    bool *data_dropped;    /* per data segment */
    uint64_t *func_refs;   /* store-wide references (wasm_refs.c), or NULL */
};

struct pvm_wasm_store {
    uint64_t stack_size;
    pvm_wasm_instance **instances;
    uint32_t ninstances;
    host_item *items;
    uint32_t nitems;
    host_binder *binders;
    uint32_t nbinders;
    registration *regs;
    uint32_t nregs;
    cross_call **refs; /* store-wide reference k calls refs[k] */
    uint32_t nrefs;
    pvm_wasm_vm_hook on_vm;
    void *on_vm_ctx;
    bool no_fuse;         /* run translations without the build's macro ops */
    bool eager;           /* translate every function before anything runs */
    uint64_t max_memory;  /* 0, or the cap of every memory the store makes */
    unsigned depth;       /* VM runs in progress (nested through host functions) */
    uintptr_t stack_base; /* host stack address of the outermost run */
};

/* ---- wasm_store.c ------------------------------------------------------- */

/* Append to a store array (count elements of size bytes); NULL if out of
 * memory. */
void *pvm_wasm_grow(void *array, uint32_t count, size_t size);
/* Resolve import `imp` of a module: 0 with *out, or -1 with err (the
 * import is unknown: unlinkable).  *binder is set instead of *out when a
 * host binder handles the module name. */
int pvm_wasm_resolve(pvm_wasm_store *s, const pvm_wasm_import *imp, pvm_wasm_extern *out,
                     const host_binder **binder, pvm_error *err);
/* Export `e` of inst as an external value. */
void pvm_wasm_export_extern(pvm_wasm_instance *inst, const pvm_wasm_export *e,
                            pvm_wasm_extern *out);

/* ---- wasm_instance.c ------------------------------------------------------ */

void pvm_wasm_instance_free(pvm_wasm_instance *inst);

/* ---- wasm_refs.c ----------------------------------------------------------- */

/* Decide whether inst uses store-wide references; if so, number its
 * referenced functions (inst->func_refs), before translation. */
int pvm_wasm_refs_assign(pvm_wasm_instance *inst, pvm_error *err);
/* Register the store's references in inst's new VM, and inst's in the
 * other VMs. */
int pvm_wasm_refs_bind(pvm_wasm_instance *inst, pvm_error *err);

/* ---- wasm_instance_call.c ------------------------------------------------ */

/* Call function func of inst's VM with arguments args (by position; types
 * from the function's Wasm type) and take its results. */
pvm_trap_kind pvm_wasm_call_func(pvm_wasm_instance *inst, uint32_t func, const uint64_t *args,
                                 uint64_t *results);
/* The host function that calls into another instance (ctx: cross_call). */
pvm_trap_kind pvm_wasm_cross_call(pvm_vm *vm, void *ctx);

/* ---- wasm_instance_bulk.c ---------------------------------------------- */

/* Bind the pulley.* bulk-operation imports of inst's VM. */
void pvm_wasm_bind_bulk(pvm_wasm_instance *inst);
/* table.init's and memory.init's bounds rules, shared with instantiation. */
pvm_trap_kind pvm_wasm_table_init(pvm_wasm_instance *inst, uint32_t table, uint32_t seg,
                                  uint64_t dst, uint64_t src, uint64_t n);
pvm_trap_kind pvm_wasm_memory_init(pvm_wasm_instance *inst, uint32_t seg, uint64_t dst,
                                   uint64_t src, uint64_t n);

#endif
