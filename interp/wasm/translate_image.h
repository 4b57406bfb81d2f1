/*
 * translate_image.h - a translation that runs on its own: the Wasm
 * module's initial state (globals' values, table sizes, active element and
 * data segments, the start function, and `_start` as the entry) written
 * into the translated pvm_module, so that a .pasm or .pbc saved from a
 * WebAssembly program runs under pulley-run with the same WASI host,
 * without the Wasm instance layer.
 */
#ifndef PULLEY_WASM_TRANSLATE_IMAGE_H
#define PULLEY_WASM_TRANSLATE_IMAGE_H

#include <stddef.h>

#include "error.h"
#include "module.h"
#include "wasm_module.h"

/* Write wm's initial state into m, its translation (pvm_wasm_translate
 * with no store-wide references).  Returns 0; 1 with `why` saying what
 * the module needs that a standalone module cannot hold (an imported
 * memory, table or global, a passive segment, a segment that does not
 * fit: instantiating it would trap), m then left as it was; or -1 with
 * err (out of memory). */
int pvm_wasm_translation_image(const pvm_wasm_module *wm, pvm_module *m, char *why, size_t cap,
                               pvm_error *err);

#endif
