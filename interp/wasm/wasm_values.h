/*
 * wasm_values.h - Wasm values on the command line: the arguments of an
 * export from their text, results printed one a line, and the note that
 * --max-memory refused a grow.  Shared by
 * `pulley-run --invoke` (wasm_run.c) and `pulley-collect --invoke`.
 */
#ifndef PULLEY_WASM_VALUES_H
#define PULLEY_WASM_VALUES_H

#include <stdio.h>

#include "error.h"
#include "wasm_instance.h"
#include "wasm_module.h"

/* The arguments of export `name` of wm from their command-line text
 * (integers decimal or 0x hex, negative allowed; floats as strtod reads
 * them) into args[0..argc).  Returns 0, or PVM_EXIT_FAILURE (no such
 * export) or PVM_EXIT_USAGE (wrong count, bad value) with err. */
int pvm_wasm_invoke_arguments(const pvm_wasm_module *wm, const char *name, char *const *argv,
                              int argc, pvm_wasm_value *args, pvm_error *err);

/* A result on its own line: integers signed, floats to round-trip,
 * references as "ref" or "null". */
void pvm_wasm_print_value(FILE *out, const pvm_wasm_value *v);

/* After a run: say on stderr (as TOOL) that a memory.grow to `asked`
 * bytes was refused past the cap (nothing when asked is 0). */
void pvm_wasm_report_refused_growth(const char *tool, uint64_t asked, uint64_t cap);

#endif
