/*
 * run_args.c - choosing the function to run, parsing its arguments into
 * registers and printing its results, for pulley-run and pulley-collect.
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

/* Parse one argument of type letter t into vm's next x or f register
 * (references are written as their 64-bit values). */
static int set_argument(pvm_vm *vm, char t, const char *s, unsigned *nx, unsigned *nf)
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
        vm->x[(*nx)++] = t == 'i' ? (uint32_t)v : v;
        return 0;
    }
    if (t == 'f') {
        float f = strtof(s, &end);
        uint32_t bits;
        memcpy(&bits, &f, sizeof bits);
        vm->f[*nf].bits = bits;
    } else {
        double d = strtod(s, &end);
        memcpy(&vm->f[*nf].bits, &d, sizeof d);
    }
    (*nf)++;
    return *end ? -1 : 0;
}

const char *run_set_arguments(pvm_vm *vm, const pvm_function *fn, char **args, int nargs,
                              char *buf, size_t cap)
{
    size_t want = strlen(fn->params);
    if ((size_t)nargs != want) {
        snprintf(buf, cap, "function %s takes %zu argument%s, got %d", fn->name, want,
                 want == 1 ? "" : "s", nargs);
        return buf;
    }
    unsigned nx = 0, nf = 0;
    for (size_t i = 0; i < want; i++) {
        if (set_argument(vm, fn->params[i], args[i], &nx, &nf) != 0) {
            snprintf(buf, cap, "argument %zu of %s: \"%s\" is not a valid %s", i + 1, fn->name,
                     args[i], pasm_type_name(fn->params[i]));
            return buf;
        }
    }
    return NULL;
}

void run_print_results(const pvm_vm *vm, const char *results)
{
    unsigned nx = 0, nf = 0;
    for (const char *t = results; *t; t++) {
        switch (*t) {
        case 'i': printf("%" PRId32 "\n", (int32_t)(uint32_t)vm->x[nx++]); break;
        case 'l': printf("%" PRId64 "\n", (int64_t)vm->x[nx++]); break;
        case 'r':
        case 'e': printf("%" PRIu64 "\n", vm->x[nx++]); break;
        case 'f': {
            float f;
            uint32_t bits = (uint32_t)vm->f[nf++].bits;
            memcpy(&f, &bits, sizeof f);
            printf("%.9g\n", f);
            break;
        }
        default: {
            double d;
            memcpy(&d, &vm->f[nf++].bits, sizeof d);
            printf("%.17g\n", d);
            break;
        }
        }
    }
}
