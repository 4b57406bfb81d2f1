/*
 * wasm_run.h - what `pulley-run prog.wasm` does, as a library the command
 * line calls: run a WebAssembly program's _start under WASI (stdin, stdout
 * and stderr passed through, directories granted with --dir), or invoke an
 * export with numeric arguments and print its results, or print the
 * translated module as .pasm.
 *
 * Exit statuses: the program's own (proc_exit, or 0 when _start returns),
 * PVM_WASM_RUN_TRAP after a trap ("TOOL: trap: MESSAGE (KIND) in FUNCTION
 * at offset 0xN" on stderr), PVM_WASM_RUN_FAILURE when the module cannot be loaded (its
 * unsupported or unknown imports are named), PVM_WASM_RUN_USAGE for bad
 * --invoke arguments.
 */
#ifndef PULLEY_WASM_RUN_H
#define PULLEY_WASM_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "exit_status.h"

enum {
    PVM_WASM_RUN_FAILURE = PVM_EXIT_FAILURE,
    PVM_WASM_RUN_USAGE = PVM_EXIT_USAGE,
    PVM_WASM_RUN_TRAP = PVM_EXIT_TRAP
};

typedef struct pvm_wasm_run_options {
    const char *tool;        /* program name for messages */
    const char *path;        /* the .wasm file */
    const uint8_t *bytes;    /* its contents */
    size_t size;
    const char *invoke;      /* export to call; NULL: _start with WASI */
    char **args;             /* program arguments, or the export's */
    int nargs;
    const char *const *dirs; /* directories granted to WASI (HOST[::GUEST]) */
    size_t ndirs;
    char *const *envp;       /* the guest's environment (NULL: empty) */
    uint64_t stack;          /* VM stack bytes (0: PVM_WASM_STACK) */
    uint64_t max_memory;     /* cap of the program's memory (0: its own maximum) */
    bool emit_pasm;          /* print the code (fused unless no_fuse) instead of running */
    bool no_fuse;            /* run the translation without the build's macro ops */
    bool translate_all;      /* translate every function before running (not lazily) */
} pvm_wasm_run_options;

/* Does the file start with the Wasm magic bytes? */
bool pvm_wasm_is_binary(const uint8_t *bytes, size_t size);

/* Run as the options say; returns the exit status.  A memory.grow past
 * max_memory fails in the program and is reported on stderr at the end. */
int pvm_wasm_run(const pvm_wasm_run_options *o);

#endif
