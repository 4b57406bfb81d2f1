/*
 * host_builtins.c - print_i64, print_f64, print_char and exit: the host
 * functions of pulley-run and the program tests.  A failed write stops the
 * program with HOST_ERROR.
 */
#include "host_builtins.h"

#include <inttypes.h>
#include <string.h>

static pvm_trap_kind print_i64(pvm_vm *vm, void *out)
{
    return fprintf(out, "%" PRId64 "\n", (int64_t)vm->x[0]) < 0 ? PVM_TRAP_HOST_ERROR
                                                                 : PVM_TRAP_NONE;
}

static pvm_trap_kind print_f64(pvm_vm *vm, void *out)
{
    double d;
    memcpy(&d, &vm->f[0].bits, sizeof d);
    return fprintf(out, "%.17g\n", d) < 0 ? PVM_TRAP_HOST_ERROR : PVM_TRAP_NONE;
}

static pvm_trap_kind print_char(pvm_vm *vm, void *out)
{
    return fputc((unsigned char)vm->x[0], out) == EOF ? PVM_TRAP_HOST_ERROR : PVM_TRAP_NONE;
}

static pvm_trap_kind exit_program(pvm_vm *vm, void *out)
{
    (void)out;
    vm->exit_status = (int)vm->x[0];
    return PVM_TRAP_EXIT;
}

void pulley_bind_builtins(pvm_vm *vm, FILE *out)
{
    static const struct {
        const char *name;
        pvm_host_fn fn;
    } builtins[] = {
        {"print_i64", print_i64},
        {"print_f64", print_f64},
        {"print_char", print_char},
        {"exit", exit_program},
    };
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        pvm_vm_bind_host(vm, builtins[i].name, builtins[i].fn, out);
}
