/*
 * runner.h - running a program under the profiling agent.  One runner per
 * kind of program file; each loads the program, registers its module and
 * every bytecode function, registers the VM's PC slot (profiling build) or
 * reports its exact counts when it ends (counting build), runs it, passes
 * its output through, and ends the session with the program's outcome.
 */
#ifndef PULLEY_COLLECT_RUNNER_H
#define PULLEY_COLLECT_RUNNER_H

#include <stdbool.h>
#include <stdint.h>

#include "session.h"

typedef struct collect_program {
    const char *path;
    const char *invoke;      /* function to run; NULL: the entry, else "main" */
    char **args;             /* arguments after the program */
    int nargs;
    const char *const *dirs; /* --dir: directories the program may use (WASI) */
    int ndirs;
    char *const *envp;       /* --env: the program's environment (WASI; NULL: empty) */
    uint64_t max_memory;     /* --max-memory (Wasm; 0: the module's own maximum) */
    bool no_fuse;            /* run without the build's macro ops */
    bool translate_all;      /* a .wasm: every function translated before running */
} collect_program;

/* Each returns the program's exit status (0 after a return, the status it
 * exited with, 134 after a trap) or 1 for a load or collector error, 2
 * for bad --invoke arguments, after reporting it.  The session is ended before they return. */

/* A .pbc module or .pasm assembly, on the profiling VM with the builtin
 * host functions (print_i64, print_f64, print_char, exit). */
int collect_run_pulley(collect_session *s, const collect_program *p);

/* A .wasm module, translated and run with WASI (interp/wasm, interp/wasi). */
int collect_run_wasm(collect_session *s, const collect_program *p);

/* Register a loaded module and its functions with the agent: the load
 * address of a function is its first code byte in m->code.  Functions
 * still to be translated (lazy.h) are left out: each is registered when
 * translated (collect_register_function); their stubs are registered
 * together as one function named COLLECT_STUBS_NAME, index m->nfuncs.  The agent's handle of function
 * i goes into handles[i] (m->nfuncs entries; handles may be NULL).
 * Returns the agent's handle of the module, or -1 if the agent refused
 * (run already ended, out of memory). */
#define COLLECT_STUBS_NAME "(stubs)"
struct pvm_module;
int collect_register_module(collect_session *s, const char *name, const struct pvm_module *m,
                            int *handles);
/* Register function func of m (module: its agent handle).  The handle, or
 * -1 if the agent refused. */
int collect_register_function(collect_session *s, int module, const struct pvm_module *m,
                              uint32_t func);

/* The counting build (pulley-collect-exact): give the agent the exact
 * counts of a VM whose module's functions have the agent handles
 * `handles`: every executed instruction's count, and every taken transfer
 * (branches, br_table, calls, returns) with its source and target
 * function.  A no-op in other builds.  Returns 0, or -1 after reporting
 * an error (counts the agent refused are reported by it, and counted). */
struct pvm_vm;
int collect_report_counts(collect_session *s, const struct pvm_vm *vm, const int *handles);

#endif
