/*
 * wasm_run.c - `pulley-run prog.wasm`: instantiate the program in a store
 * whose "wasi_snapshot_preview1" is the WASI host, then run _start (or
 * invoke an export with arguments parsed by its parameter types and print
 * its results); or print the translation as .pasm.
 */
#include "wasm_run.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disasm.h"
#include "fuse.h"
#include "translate.h"
#include "wasi.h"
#include "wasm_instance.h"

bool pvm_wasm_is_binary(const uint8_t *bytes, size_t size)
{
    return size >= 4 && memcmp(bytes, "\0asm", 4) == 0;
}

static int fail(const pvm_wasm_run_options *o, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(const pvm_wasm_run_options *o, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fflush(stdout); /* the program's output comes first */
    fprintf(stderr, "%s: ", o->tool);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return status;
}

/* ---- --emit-pasm ------------------------------------------------------- */

static int emit_pasm(const pvm_wasm_run_options *o)
{
    pvm_error err;
    pvm_wasm_module *wm = pvm_wasm_decode(o->bytes, o->size, &err);
    pvm_module *m = wm ? pvm_wasm_translate(wm, NULL, &err) : NULL;
    int status = 0;
    if (m && !o->no_fuse && pvm_fuse_module(m, NULL, &err) != 0)
        status = fail(o, PVM_WASM_RUN_FAILURE, "%s: %s", o->path, err.msg);
    else if (!m || pvm_disassemble_module(stdout, m, NULL, &err) != 0)
        status = fail(o, PVM_WASM_RUN_FAILURE, "%s: %s", o->path, err.msg);
    pvm_module_free(m);
    pvm_wasm_module_free(wm);
    return status;
}

/* ---- WASI --------------------------------------------------------------- */

/* The store's binder of "wasi_snapshot_preview1": every import bound, or
 * the first unsupported one named. */
static int bind_wasi(pvm_vm *vm, void *ctx, pvm_error *err)
{
    pvm_wasi_bind(ctx, vm);
    const char *missing = pvm_wasi_unsupported_import(vm->module);
    if (missing)
        return pvm_errorf(err, "unsupported import %s", missing);
    return 0;
}

/* ---- --invoke ----------------------------------------------------------- */

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

static void print_value(const pvm_wasm_value *v)
{
    switch (v->type) {
    case PVM_WASM_I32: printf("%" PRId32 "\n", (int32_t)(uint32_t)v->bits); break;
    case PVM_WASM_I64: printf("%" PRId64 "\n", (int64_t)v->bits); break;
    case PVM_WASM_F32: {
        float f;
        uint32_t bits = (uint32_t)v->bits;
        memcpy(&f, &bits, sizeof f);
        printf("%.9g\n", f);
        break;
    }
    case PVM_WASM_F64: {
        double d;
        memcpy(&d, &v->bits, sizeof d);
        printf("%.17g\n", d);
        break;
    }
    default: /* references */
        printf(v->bits ? "ref\n" : "null\n");
    }
}

/* Arguments of export o->invoke from the command line; 0 or a status. */
static int invoke_arguments(const pvm_wasm_run_options *o, const pvm_wasm_module *wm,
                            pvm_wasm_value *args)
{
    const pvm_wasm_export *e = pvm_wasm_find_export(wm, o->invoke, PVM_WASM_EXTERN_FUNC);
    if (!e)
        return fail(o, PVM_WASM_RUN_FAILURE, "no exported function \"%s\"", o->invoke);
    const pvm_wasm_functype *ft = pvm_wasm_func_type(wm, e->index);
    if ((uint32_t)o->nargs != ft->nparams)
        return fail(o, PVM_WASM_RUN_USAGE, "function %s takes %" PRIu32 " arguments, got %d",
                    o->invoke, ft->nparams, o->nargs);
    for (int i = 0; i < o->nargs; i++)
        if (parse_value(o->args[i], ft->params[i], &args[i]) != 0)
            return fail(o, PVM_WASM_RUN_USAGE, "argument %d of %s: \"%s\" is not a valid %s",
                        i + 1, o->invoke, o->args[i], pvm_wasm_valtype_name(ft->params[i]));
    return 0;
}

/* ---- running --------------------------------------------------------------- */

/* Call the export; returns the exit status. */
static int call(const pvm_wasm_run_options *o, pvm_wasm_instance *inst)
{
    const char *name = o->invoke ? o->invoke : "_start";
    const pvm_wasm_module *wm = pvm_wasm_instance_module(inst);
    uint32_t nargs = o->invoke ? (uint32_t)o->nargs : 0;
    pvm_wasm_value *values = calloc((size_t)nargs + PVM_WASM_MAX_RESULTS, sizeof *values);
    if (!values)
        return fail(o, PVM_WASM_RUN_FAILURE, "out of memory");
    int status = o->invoke ? invoke_arguments(o, wm, values) : 0;
    if (status == 0) {
        pvm_error err;
        uint32_t nres = 0;
        int trap = pvm_wasm_invoke(inst, name, strlen(name), values, nargs, values + nargs,
                                   PVM_WASM_MAX_RESULTS, &nres, &err);
        if (trap < 0)
            status = fail(o, PVM_WASM_RUN_FAILURE, "%s: %s", o->path, err.msg);
        else if (trap == PVM_TRAP_EXIT)
            status = pvm_wasm_exit_status(inst);
        else if (trap != PVM_TRAP_NONE)
            status = fail(o, PVM_WASM_RUN_TRAP, "trap: %s (%s) in function %s at offset 0x%04" PRIx32,
                          pvm_trap_message((unsigned)trap), pvm_trap_name((unsigned)trap),
                          pvm_wasm_trap_function(inst), pvm_wasm_trap_offset(inst));
        for (uint32_t i = 0; i < nres; i++)
            print_value(&values[nargs + i]);
    }
    free(values);
    return status;
}

int pvm_wasm_run(const pvm_wasm_run_options *o)
{
    if (o->emit_pasm)
        return emit_pasm(o);
    /* WASI's argv: the program, then its arguments (none with --invoke). */
    int argc = o->invoke ? 1 : 1 + o->nargs;
    char **argv = calloc((size_t)argc + 1, sizeof *argv);
    if (!argv)
        return fail(o, PVM_WASM_RUN_FAILURE, "out of memory");
    argv[0] = (char *)o->path;
    for (int i = 1; i < argc; i++)
        argv[i] = o->args[i - 1];
    pvm_error err;
    int status = PVM_WASM_RUN_FAILURE;
    pvm_wasi *wasi = pvm_wasi_new(argc, argv, o->envp, o->dirs, o->ndirs, &err);
    pvm_wasm_store *store = wasi ? pvm_wasm_store_new(o->stack) : NULL;
    if (store)
        pvm_wasm_store_set_fusion(store, !o->no_fuse);
    if (!wasi || !store) {
        fail(o, status, "%s", wasi ? "out of memory" : err.msg);
    } else if (pvm_wasm_host_binder(store, PVM_WASI_MODULE, bind_wasi, wasi, &err) != 0) {
        fail(o, status, "%s", err.msg);
    } else {
        pvm_wasm_status st;
        pvm_wasm_instance *inst = pvm_wasm_instantiate(store, o->bytes, o->size, &st, &err);
        if (inst)
            status = call(o, inst);
        else if (st == PVM_WASM_UNINSTANTIABLE)
            status = fail(o, PVM_WASM_RUN_TRAP, "trap: %s in the start function", err.msg);
        else
            fail(o, status, "%s: %s", o->path, err.msg);
    }
    pvm_wasm_store_free(store);
    pvm_wasi_free(wasi);
    free(argv);
    return status;
}
