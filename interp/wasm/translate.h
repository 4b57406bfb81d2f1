/*
 * translate.h - the WebAssembly-to-bytecode translator: a validated
 * pvm_wasm_module becomes a verified pvm_module (see TRANSLATION.md for the
 * calling convention and register use).
 *
 * Bytecode function i is Wasm function i.  An imported function becomes a
 * trampoline (`call_host k; ret`) whose host import k is named
 * "MODULE.NAME": function imports of the same module and name share one
 * host import (pvm_wasm_host_imports); the bulk operations (memory.copy
 * ...) call host imports named PVM_WASM_BULK_PREFIX "OP"
 * ("pulley.memory.copy", ...), added after them as needed.  Function names
 * come from the name section, else "func[N]", made unique with "#N".
 * Bytecode global i is Wasm global i, table i is table i; the type table
 * has the Wasm types in order.  The module's heap limits are the memory's
 * (pages of 65536 bytes; no memory: 0 bytes), its heap register x31.
 * Data segments, element segments, globals and the start function are
 * left to the instance layer (wasm_instance.h), which runs them as Wasm
 * orders; translate_image.h writes them into a translation that is to run
 * on its own.
 */
#ifndef PULLEY_WASM_TRANSLATE_H
#define PULLEY_WASM_TRANSLATE_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "module.h"
#include "wasm_module.h"

#define PVM_WASM_PAGE 65536u
#define PVM_WASM_BULK_PREFIX "pulley."

/* Translate and verify.  func_refs: NULL, or the reference value each
 * referenced function's ref.func produces (the instance layer's store-wide
 * references, see wasm_instance.h); NULL: func_ref, the VM's own.  Returns
 * NULL with err naming the function and the problem (a limit of the VM:
 * too many parameters, code too big, ... or out of memory). */
pvm_module *pvm_wasm_translate(const pvm_wasm_module *wm, const uint64_t *func_refs,
                               pvm_error *err);

/* pvm_wasm_translate, then pvm_fuse_module if `fuse`: every function
 * translated (and fused) now.  NULL with err. */
pvm_module *pvm_wasm_translate_all(const pvm_wasm_module *wm, const uint64_t *func_refs,
                                   bool fuse, pvm_error *err);

/* The same module, but each defined function is translated (verified,
 * and fused if `fuse`) when first called (lazy.h): until then its code is
 * a stub.  Every bulk operation's host import is declared up front.  wm
 * and func_refs must outlive the module.  Where the code's address space
 * cannot be reserved, the whole module is translated (and fused) now
 * instead (m->lazy is NULL then).  NULL with err as above. */
pvm_module *pvm_wasm_translate_lazy(const pvm_wasm_module *wm, const uint64_t *func_refs,
                                    bool fuse, pvm_error *err);

/* The host import of each Wasm function import: a malloc'd array of
 * wm->nfunc_imports indices, function imports with the same module and
 * name sharing one, numbered in order of first appearance (the bulk
 * operations' host imports follow them); *nhosts: how many there are.
 * NULL with err when out of memory. */
uint32_t *pvm_wasm_host_imports(const pvm_wasm_module *wm, uint32_t *nhosts, pvm_error *err);

/* The bytecode type letter of a Wasm value type: i, l, f, d (references
 * travel as 64-bit integers, 'l'). */
char pvm_wasm_type_letter(unsigned valtype);

#endif
