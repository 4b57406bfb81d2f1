/*
 * run_args.c - choosing the function to run, parsing its arguments into
 * registers, printing its results (argument and result k in x[k] or f[k],
 * as translated Wasm passes them) and reporting how the call ended, for
 * pulley-run and pulley-collect.
 */
#include "run_args.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm_lexer.h"

int run_pick_function(const cli_tool *t, const pvm_module *m, const char *invoke)
{
    if (invoke) {
        int index = pvm_module_find_function(m, invoke);
        if (index < 0)
            cli_error(t, "no function named \"%s\"", invoke);
        return index;
    }
    if (m->entry != PVM_NO_ENTRY)
        return (int)m->entry;
    int index = pvm_module_find_function(m, "main");
    if (index < 0)
        cli_error(t, "the module has no entry function and no \"main\" (use --invoke NAME)");
    return index;
}

/* Parse one argument of type letter t into register k of its class
 * (references are written as their 64-bit values). */
static int set_argument(pvm_vm *vm, char t, const char *s, size_t k)
{
    char *end;
    errno = 0;
    if (*s == '\0' || isspace((unsigned char)*s))
        return -1;
    if (t != 'f' && t != 'd') {
        int64_t lo = t == 'i' ? INT32_MIN : INT64_MIN;
        uint64_t hi = t == 'i' ? UINT32_MAX : UINT64_MAX;
        uint64_t v;
        if (*s == '-') {
            long long neg = strtoll(s, &end, 0);
            if (neg < lo)
                errno = ERANGE;
            v = (uint64_t)neg;
        } else {
            v = strtoull(s, &end, 0);
            if (v > hi)
                errno = ERANGE;
        }
        if (errno || end == s || *end)
            return -1;
        vm->x[k] = t == 'i' ? (uint32_t)v : v;
        return 0;
    }
    if (t == 'f') {
        float f = strtof(s, &end);
        uint32_t bits;
        memcpy(&bits, &f, sizeof bits);
        vm->f[k].bits = bits;
    } else {
        double d = strtod(s, &end);
        memcpy(&vm->f[k].bits, &d, sizeof d);
    }
    return *end ? -1 : 0;
}

/* NULL if fn's parameters and results all travel in registers, else why
 * it cannot be called from here, in buf. */
static const char *check_registers(const pvm_function *fn, char *buf, size_t cap)
{
    size_t np = strlen(fn->params), nr = strlen(fn->results);
    if (np <= RUN_ARG_REGS && nr <= RUN_ARG_REGS)
        return NULL;
    snprintf(buf, cap,
             "function %s has %zu %s: it cannot be called from the command line (those past "
             "%d travel in memory)",
             fn->name, np > RUN_ARG_REGS ? np : nr, np > RUN_ARG_REGS ? "parameters" : "results",
             RUN_ARG_REGS);
    return buf;
}

const char *run_set_arguments(pvm_vm *vm, const pvm_function *fn, char **args, int nargs,
                              char *buf, size_t cap)
{
    if (check_registers(fn, buf, cap))
        return buf;
    size_t want = strlen(fn->params);
    if ((size_t)nargs != want) {
        snprintf(buf, cap, "function %s takes %zu argument%s, got %d", fn->name, want,
                 want == 1 ? "" : "s", nargs);
        return buf;
    }
    for (size_t k = 0; k < want; k++) {
        if (set_argument(vm, fn->params[k], args[k], k) != 0) {
            snprintf(buf, cap, "argument %zu of %s: \"%s\" is not a valid %s", k + 1, fn->name,
                     args[k], pasm_type_name(fn->params[k]));
            return buf;
        }
    }
    return NULL;
}

void run_print_results(const pvm_vm *vm, const char *results)
{
    for (size_t k = 0; results[k]; k++) {
        switch (results[k]) {
        case 'i': printf("%" PRId32 "\n", (int32_t)(uint32_t)vm->x[k]); break;
        case 'l': printf("%" PRId64 "\n", (int64_t)vm->x[k]); break;
        case 'r':
        case 'e': printf("%" PRIu64 "\n", vm->x[k]); break;
        case 'f': {
            float f;
            uint32_t bits = (uint32_t)vm->f[k].bits;
            memcpy(&f, &bits, sizeof f);
            printf("%.9g\n", f);
            break;
        }
        default: {
            double d;
            memcpy(&d, &vm->f[k].bits, sizeof d);
            printf("%.17g\n", d);
            break;
        }
        }
    }
}

int run_ending(const cli_tool *t, const pvm_vm *vm, pvm_trap_kind trap, const pvm_function *fn,
               char outcome[64])
{
    if (trap == PVM_TRAP_NONE) {
        run_print_results(vm, fn->results);
        snprintf(outcome, 64, "return");
        return CLI_OK;
    }
    if (trap == PVM_TRAP_EXIT) {
        snprintf(outcome, 64, "exit");
        return vm->exit_status;
    }
    fflush(stdout); /* the program's output comes before the trap */
    cli_error(t, "trap: %s (%s) in function %s at offset 0x%04" PRIx32, pvm_trap_message(trap),
              pvm_trap_name(trap), vm->module->funcs[vm->trap_func].name, vm->trap_offset);
    snprintf(outcome, 64, "trap: %s", pvm_trap_name(trap));
    return CLI_TRAP;
}
