/*
 * run_args.h - what the tools that run one function of a bytecode module
 * from the command line (pulley-run, pulley-collect) share: choosing the
 * function, putting its arguments into registers, printing its results and
 * reporting how the call ended.
 * Argument k (0-based position) goes in register k of its class: x[k] for
 * integers and references, f[k] for floats; result k is read from there
 * (the convention of translated Wasm, interp/wasm/TRANSLATION.md).
 */
#ifndef PULLEY_RUN_ARGS_H
#define PULLEY_RUN_ARGS_H

#include <stddef.h>

#include "isa_cli.h"
#include "module.h"
#include "vm.h"

/* --invoke NAME, else the module's entry, else "main"; -1 after reporting. */
int run_pick_function(const cli_tool *t, const pvm_module *m, const char *invoke);

/* Positions 0..RUN_ARG_REGS-1 travel in registers; a function with more
 * parameters or results passes the others in memory and cannot be called
 * from the command line. */
#define RUN_ARG_REGS 16

/* Parse args into the registers of fn's parameters.  Returns NULL, or a
 * message in buf (cap bytes) saying why fn cannot be called with them: too
 * many parameters or results, the wrong number of arguments, or which
 * argument is wrong and why. */
const char *run_set_arguments(pvm_vm *vm, const pvm_function *fn, char **args, int nargs,
                              char *buf, size_t cap);

/* Print each result on its own line: i32 and i64 as signed decimals,
 * references as unsigned, f32 with %.9g, f64 with %.17g (at most
 * RUN_ARG_REGS results, as run_set_arguments checked). */
void run_print_results(const pvm_vm *vm, const char *results);

/* The exit status of a call of fn that ended with `trap`: 0 after a return
 * (its results printed), the program's status after exit, CLI_TRAP after a
 * trap (reported with its kind, function and offset).  outcome (64 bytes)
 * gets "return", "exit" or "trap: KIND". */
int run_ending(const cli_tool *t, const pvm_vm *vm, pvm_trap_kind trap, const pvm_function *fn,
               char outcome[64]);

#endif
