/*
 * host_builtins.h - the host functions that .pasm programs can import by
 * name, so that they can print and exit:
 *
 *   print_i64    prints x0 as a signed decimal and a newline
 *   print_f64    prints f0 (an f64) with %.17g and a newline
 *   print_char   prints the low byte of x0
 *   exit         stops the program with exit status x0 (trap EXIT)
 */
#ifndef PULLEY_HOST_BUILTINS_H
#define PULLEY_HOST_BUILTINS_H

#include <stdio.h>

#include "vm.h"

/* Bind every builtin that vm's module imports; output goes to `out`, which
 * must outlive the VM.  Imports with other names stay unbound. */
void pulley_bind_builtins(pvm_vm *vm, FILE *out);

#endif
