/*
 * wasm_values.c - Wasm values on the command line (see wasm_values.h).
 */
#include "wasm_values.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "exit_status.h"

/* Parse s as a value of `type` (integers: decimal or 0x hex, negative
 * allowed; floats: strtod's syntax). */
static int parse_value(const char *s, uint8_t type, pvm_wasm_value *out)
{
    char *end;
    errno = 0;
    out->type = type;
    if (type == PVM_WASM_F32 || type == PVM_WASM_F64) {
        double d = strtod(s, &end);
        if (type == PVM_WASM_F32) {
            float f = (float)d;
            uint32_t bits;
            memcpy(&bits, &f, sizeof bits);
            out->bits = bits;
        } else {
            memcpy(&out->bits, &d, sizeof d);
        }
        return end == s || *end ? -1 : 0;
    }
    if (type != PVM_WASM_I32 && type != PVM_WASM_I64)
        return -1;
    bool i32 = type == PVM_WASM_I32;
    if (*s == '-') {
        long long v = strtoll(s, &end, 0);
        if (i32 && v < INT32_MIN)
            errno = ERANGE;
        out->bits = i32 ? (uint32_t)v : (uint64_t)v;
    } else {
        unsigned long long v = strtoull(s, &end, 0);
        if (i32 && v > UINT32_MAX)
            errno = ERANGE;
        out->bits = v;
    }
    return errno || end == s || *end ? -1 : 0;
}

void pvm_wasm_print_value(FILE *out, const pvm_wasm_value *v)
{
    switch (v->type) {
    case PVM_WASM_I32: fprintf(out, "%" PRId32 "\n", (int32_t)(uint32_t)v->bits); break;
    case PVM_WASM_I64: fprintf(out, "%" PRId64 "\n", (int64_t)v->bits); break;
    case PVM_WASM_F32: {
        float f;
        uint32_t bits = (uint32_t)v->bits;
        memcpy(&f, &bits, sizeof f);
        fprintf(out, "%.9g\n", f);
        break;
    }
    case PVM_WASM_F64: {
        double d;
        memcpy(&d, &v->bits, sizeof d);
        fprintf(out, "%.17g\n", d);
        break;
    }
    default: /* references */
        fputs(v->bits ? "ref\n" : "null\n", out);
    }
}

int pvm_wasm_invoke_arguments(const pvm_wasm_module *wm, const char *name, char *const *argv,
                              int argc, pvm_wasm_value *args, pvm_error *err)
{
    const pvm_wasm_export *e = pvm_wasm_find_export(wm, name, PVM_WASM_EXTERN_FUNC);
    if (!e) {
        pvm_errorf(err, "no exported function \"%s\"", name);
        return PVM_EXIT_FAILURE;
    }
    const pvm_wasm_functype *ft = pvm_wasm_func_type(wm, e->index);
    if ((uint32_t)argc != ft->nparams) {
        pvm_errorf(err, "function %s takes %" PRIu32 " arguments, got %d", name, ft->nparams, argc);
        return PVM_EXIT_USAGE;
    }
    for (int i = 0; i < argc; i++)
        if (parse_value(argv[i], ft->params[i], &args[i]) != 0) {
            pvm_errorf(err, "argument %d of %s: \"%s\" is not a valid %s", i + 1, name, argv[i],
                       pvm_wasm_valtype_name(ft->params[i]));
            return PVM_EXIT_USAGE;
        }
    return 0;
}

void pvm_wasm_report_refused_growth(const char *tool, uint64_t asked, uint64_t cap)
{
    if (asked)
        fprintf(stderr,
                "%s: note: the program's memory.grow to %" PRIu64 " bytes (%" PRIu64
                " MiB) was refused: --max-memory is %" PRIu64 " bytes (%" PRIu64 " MiB)\n",
                tool, asked, asked >> 20, cap, cap >> 20);
}
