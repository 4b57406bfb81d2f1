/*
 * module_host.h - what a .pbc or .pasm program runs with in pulley-run,
 * pulley-trace and pulley-collect: the builtin host functions
 * (host_builtins.h), and, for a module that imports
 * "wasi_snapshot_preview1" functions (a translation saved from a
 * WebAssembly program), the WASI host with the program's arguments,
 * environment and granted directories, and the bulk memory and table
 * operations of translated code.  The module's start function runs before
 * the function asked for, as WebAssembly's does.
 */
#ifndef PULLEY_MODULE_HOST_H
#define PULLEY_MODULE_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "vm.h"
#include "wasi.h"

typedef struct module_host_options {
    const char *path;       /* the program, WASI's argv[0] */
    char **args;            /* WASI's further argv (a WASI program's entry) */
    int nargs;
    char *const *envp;      /* WASI environment, NULL-terminated (NULL: empty) */
    const char *const *dirs; /* granted directories (wasi.h) */
    size_t ndirs;
    FILE *out;              /* the builtins' output */
} module_host_options;

typedef struct module_host {
    pvm_wasi *wasi; /* NULL: the module imports no WASI function */
} module_host;

/* Does m import a WASI function (so that its command-line arguments are
 * the program's argv rather than the entry function's parameters)? */
bool module_host_is_wasi(const pvm_module *m);

/* Bind every import of vm's module that this host provides, then check
 * that none is left unbound.  0, or -1 with err (an unsupported or
 * unknown import, a directory that cannot be opened). */
int module_host_bind(module_host *h, pvm_vm *vm, const module_host_options *o, pvm_error *err);

/* Run the module's start function, if it has one. */
pvm_trap_kind module_host_start(pvm_vm *vm);

void module_host_free(module_host *h);

#endif
