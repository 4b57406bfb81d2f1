/*
 * lazy.h - modules whose functions are translated when first called.
 *
 * A front end (the Wasm translator) builds the module with a stub in place
 * of each function it has not translated yet: one `trap` instruction, so
 * the module verifies and runs as it is.  Attached here, the module keeps
 * its code in a reservation of address space that never moves (return
 * addresses, the sampler's pcs and the profiler's catalog stay valid) and
 * knows which functions are stubs.  When a stub's trap reaches the
 * embedder (pvm_vm_call does this by itself), pvm_lazy_materialize asks
 * the front end for the function's code, fuses it (when the module was
 * attached with fusion and the build has macro ops, as pvm_fuse_module
 * would; the pass refuses code that does not decode or branches into an
 * instruction), verifies what it will run, appends it and points the
 * function at it; the call then goes on at the new code as if it had
 * always been there.  No code runs before it passed the verifier, as for
 * a whole module.
 *
 * The code past the stubs holds functions in the order they were
 * translated; pvm_lazy_func_at finds the function of any offset.
 */
#ifndef PULLEY_LAZY_H
#define PULLEY_LAZY_H

#include <stdbool.h>
#include <stdint.h>

#include "bytes.h"
#include "error.h"
#include "module.h"

/* The front end's translation of function `func` into out (emptied
 * first).  0, or -1 with err. */
typedef int (*pvm_lazy_translate_fn)(void *ctx, uint32_t func, pvm_buf *out, pvm_error *err);
/* Told of each function once its new code is in place (the profiler
 * registers it). */
typedef void (*pvm_lazy_observer_fn)(void *ctx, const pvm_module *m, uint32_t func);

/* Attach to m (verified, and fused already if `fuse`) the translator of
 * the functions whose pending[func] is true: their code is a stub.  The
 * attachment takes ctx (freed with free_ctx when m is freed, also when
 * attaching fails).  Returns 0, or -1 with err (out of memory or address
 * space; m then stays a whole, runnable module of stubs and nothing is
 * attached). */
int pvm_lazy_attach(pvm_module *m, const bool *pending, pvm_lazy_translate_fn translate,
                    void *ctx, void (*free_ctx)(void *), bool fuse, pvm_error *err);
/* Free m's attachment (pvm_module_free calls this). */
void pvm_lazy_free(pvm_module *m);

/* Is function func of m a stub still? */
bool pvm_lazy_pending(const pvm_module *m, uint32_t func);
/* Functions of m translated so far (stubs not counted), and stubs left. */
uint32_t pvm_lazy_translated(const pvm_module *m);
uint32_t pvm_lazy_stubs(const pvm_module *m);

/* The code of the stubs as attached, [*begin, *end) in m's code, when
 * they lie together with no other code between them (a Wasm module's
 * defined functions do): true.  Stubs stay in place when their functions
 * are translated, so a profiler can register this range once, and a pc
 * sampled while a stub's trap runs is in known code. */
bool pvm_lazy_stub_code(const pvm_module *m, size_t *begin, size_t *end);

/* Translate, verify and install pending function func of m (const: what
 * the VM holds; the attachment owns the module).  0, or -1 with err
 * (out of memory, code past PVM_MAX_CODE, or - a bug - code that does not
 * verify); the function then stays a stub. */
int pvm_lazy_materialize(const pvm_module *m, uint32_t func, pvm_error *err);
/* Every pending function: the module becomes whole (for --emit-pasm). */
int pvm_lazy_materialize_all(const pvm_module *m, pvm_error *err);

/* Call observe(ctx, m, func) after each later materialisation (NULL: no
 * one).  One observer per module. */
void pvm_lazy_observe(const pvm_module *m, pvm_lazy_observer_fn observe, void *ctx);

/* The function whose code holds offset off of m's code. */
uint32_t pvm_lazy_func_at(const pvm_module *m, size_t off);

/* The message of the last failed materialisation of m ("" if none). */
const char *pvm_lazy_error(const pvm_module *m);

#endif
