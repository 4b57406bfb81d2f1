/*
 * wasm_instance.h - running WebAssembly modules: a store of instances and
 * host modules, instantiation (link, translate, initialise, start),
 * invoking exports with typed values, and reading exported globals.
 *
 *   pvm_wasm_store *s = pvm_wasm_store_new(0);
 *   pvm_wasm_status st;
 *   pvm_error err;
 *   pvm_wasm_instance *inst = pvm_wasm_instantiate(s, bytes, size, &st, &err);
 *   pvm_wasm_value args[1] = {{PVM_WASM_I32, 20}}, res[1];
 *   uint32_t nres;
 *   int trap = pvm_wasm_invoke(inst, "fib", 3, args, 1, res, 1, &nres, &err);
 *   ...
 *   pvm_wasm_store_free(s); // frees its instances too
 *
 * Each instance is one VM (vm.h) running the module's translation
 * (translate.h).  Imports resolve, by module name, against the instances
 * registered under that name (latest first), then the host modules.  A
 * function of another instance is called through a host function that
 * calls that instance's VM; memories, tables and globals are shared
 * objects.  Values: i32 (zero-extended), i64, f32 and f64 as raw bits;
 * funcref 0 (null) or a reference of the instance's VM; externref 0
 * (null) or host value v as v + 1.
 *
 * A module whose function references can reach other instances (through
 * tables, funcref globals or functions) uses store-wide references: see
 * wasm_refs.c.
 */
#ifndef PULLEY_WASM_INSTANCE_H
#define PULLEY_WASM_INSTANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "vm.h"
#include "wasm_module.h"

#define PVM_WASM_STACK (UINT64_C(8) << 20) /* VM stack per instance: 8 MiB */
/* Nested VM runs (calls through host functions) trap with STACK_OVERFLOW
 * past this depth, or once they have used this much of the host's stack. */
#define PVM_WASM_MAX_HOST_DEPTH 200
#define PVM_WASM_MAX_HOST_STACK (UINT64_C(2) << 20)

typedef struct pvm_wasm_store pvm_wasm_store;
typedef struct pvm_wasm_instance pvm_wasm_instance;

typedef enum pvm_wasm_status {
    PVM_WASM_OK,
    PVM_WASM_MALFORMED,      /* malformed or invalid (the decoder's message) */
    PVM_WASM_UNLINKABLE,     /* an import is missing or does not match */
    PVM_WASM_UNINSTANTIABLE, /* a trap in segment initialisation or start */
    PVM_WASM_FAILED,         /* a VM limit or out of memory */
} pvm_wasm_status;

typedef struct pvm_wasm_value {
    uint8_t type; /* pvm_wasm_valtype */
    uint64_t bits;
} pvm_wasm_value;

/* A store whose VMs get stacks of stack_size bytes (0: PVM_WASM_STACK). */
pvm_wasm_store *pvm_wasm_store_new(uint64_t stack_size);
/* Whether the modules instantiated from now on run fused with the build's
 * macro ops (fuse.h; the default) or as translated. */
void pvm_wasm_store_set_fusion(pvm_wasm_store *s, bool fuse);
/* Whether the modules instantiated from now on translate each function
 * when it is first called (lazy.h; the default) or all of them before
 * anything runs.  Counting and tracing builds always translate all: their
 * counts and traces cover the whole code from the start. */
void pvm_wasm_store_set_lazy(pvm_wasm_store *s, bool lazy);

/* Cap every memory made from now on at `bytes` (0: only the module's own
 * maximum): memory.grow past it returns -1, as past the maximum, and the
 * size asked for is kept (pvm_wasm_memory_refused). */
void pvm_wasm_store_set_max_memory(pvm_wasm_store *s, uint64_t bytes);
/* Free the store, its instances and host items. */
void pvm_wasm_store_free(pvm_wasm_store *s);

/* ---- host modules ------------------------------------------------------- */

/* Host function MODULE.NAME of Wasm type params -> results, as letters:
 * i (i32), I (i64), f (f32), F (f64), r (funcref), e (externref).  fn
 * reads its arguments and writes its results as translated code passes
 * them (position k in x[k] or f[k]; at most 16 of each).  Host globals,
 * tables and memories (sizes in pages) are new objects. */
int pvm_wasm_host_func(pvm_wasm_store *s, const char *module, const char *name,
                       const char *params, const char *results, pvm_host_fn fn, void *ctx,
                       pvm_error *err);
int pvm_wasm_host_global(pvm_wasm_store *s, const char *module, const char *name,
                         uint8_t type, bool is_mutable, uint64_t bits, pvm_error *err);
int pvm_wasm_host_table(pvm_wasm_store *s, const char *module, const char *name,
                        uint8_t elemtype, uint32_t min, uint32_t max, pvm_error *err);
int pvm_wasm_host_memory(pvm_wasm_store *s, const char *module, const char *name,
                         uint32_t min_pages, uint32_t max_pages, pvm_error *err);

/* Function imports from MODULE are bound by `bind`, called with each new
 * VM before anything runs (types are not checked: the binder knows its
 * functions).  It returns 0, or -1 with err naming an import it does not
 * have (the module is then unlinkable).  This is how WASI is linked. */
typedef int (*pvm_wasm_binder)(pvm_vm *vm, void *ctx, pvm_error *err);
int pvm_wasm_host_binder(pvm_wasm_store *s, const char *module, pvm_wasm_binder bind,
                         void *ctx, pvm_error *err);

/* ---- instances ------------------------------------------------------------ */

/* Called with each new instance's VM and bytecode module once the VM
 * exists and before anything runs in it (segments, start): a profiler
 * registers the module and the VM's slot (vm->pc_slot) here.  Returns 0, or -1
 * with err to fail the instantiation (PVM_WASM_FAILED). */
typedef int (*pvm_wasm_vm_hook)(pvm_vm *vm, const pvm_module *m, void *ctx, pvm_error *err);
void pvm_wasm_store_on_vm(pvm_wasm_store *s, pvm_wasm_vm_hook hook, void *ctx);

/* Decode, validate, link, translate and instantiate a binary module.
 * Returns the instance (owned by the store), or NULL with *status and err
 * saying why.  An uninstantiable module's effects on imported objects
 * stay, as Wasm says. */
pvm_wasm_instance *pvm_wasm_instantiate(pvm_wasm_store *s, const uint8_t *bytes, size_t size,
                                        pvm_wasm_status *status, pvm_error *err);
/* Make inst's exports importable under module name `name`. */
int pvm_wasm_store_register(pvm_wasm_store *s, const char *name, pvm_wasm_instance *inst,
                            pvm_error *err);

/* Call export `name` (len bytes: export names may hold NULs) with nargs
 * arguments.  Returns PVM_TRAP_NONE with
 * results[0..*nresults) filled, a trap kind (see pvm_wasm_trap_function),
 * or -1 with err (no such function, wrong arguments, too many results). */
int pvm_wasm_invoke(pvm_wasm_instance *inst, const char *name, size_t len,
                    const pvm_wasm_value *args,
                    uint32_t nargs, pvm_wasm_value *results, uint32_t cap, uint32_t *nresults,
                    pvm_error *err);
/* The value of exported global `name`; 0, or -1 with err. */
int pvm_wasm_global_value(pvm_wasm_instance *inst, const char *name, size_t len,
                          pvm_wasm_value *out, pvm_error *err);

/* The bytecode function the last trap of inst happened in (its name), and
 * the offset of the trapping instruction in it. */
const char *pvm_wasm_trap_function(const pvm_wasm_instance *inst);
uint32_t pvm_wasm_trap_offset(const pvm_wasm_instance *inst);
/* When the last trap of inst is a function that could not be translated
 * on its first call (host_error), why; else "". */
const char *pvm_wasm_translation_error(const pvm_wasm_instance *inst);
/* The largest size (bytes) a memory.grow of inst's memory asked for past
 * the store's cap, or 0. */
uint64_t pvm_wasm_memory_refused(const pvm_wasm_instance *inst);
/* The exit status after PVM_TRAP_EXIT (WASI proc_exit). */
int pvm_wasm_exit_status(const pvm_wasm_instance *inst);
/* The instance's VM and its decoded module. */
pvm_vm *pvm_wasm_instance_vm(pvm_wasm_instance *inst);
const pvm_wasm_module *pvm_wasm_instance_module(const pvm_wasm_instance *inst);

#endif
