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
#include "translate_image.h"
#include "verify.h"
#include "wasm_values.h"
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

/* The translation with the module's initial state (translate_image.h), so
 * that pulley-asm and pulley-run take it as it is; a module that needs the
 * instance layer is printed without it, and a note says why. */
static int emit_pasm(const pvm_wasm_run_options *o)
{
    pvm_error err;
    char why[256];
    pvm_wasm_module *wm = pvm_wasm_decode(o->bytes, o->size, &err);
    pvm_module *m = wm ? pvm_wasm_translate(wm, NULL, &err) : NULL;
    int image = m ? pvm_wasm_translation_image(wm, m, why, sizeof why, &err) : -1;
    int status = 0;
    if (image == 1)
        fprintf(stderr, "%s: note: %s: the translation cannot run on its own: %s\n", o->tool,
                o->path, why);
    if (image >= 0 && !o->no_fuse && pvm_fuse_module(m, NULL, &err) != 0)
        status = fail(o, PVM_WASM_RUN_FAILURE, "%s: %s", o->path, err.msg);
    else if (image < 0 || pvm_verify_module(m, &err) != 0 ||
             pvm_disassemble_module(stdout, m, NULL, &err) != 0)
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

/* Arguments of export o->invoke from the command line; 0 or a status. */
static int invoke_arguments(const pvm_wasm_run_options *o, const pvm_wasm_module *wm,
                            pvm_wasm_value *args)
{
    pvm_error err;
    int status = pvm_wasm_invoke_arguments(wm, o->invoke, o->args, o->nargs, args, &err);
    return status ? fail(o, status, "%s", err.msg) : 0;
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
        if (*pvm_wasm_translation_error(inst))
            fail(o, status, "the function could not be translated: %s",
                 pvm_wasm_translation_error(inst));
        for (uint32_t i = 0; i < nres; i++)
            pvm_wasm_print_value(stdout, &values[nargs + i]);
        pvm_wasm_report_refused_growth(o->tool, pvm_wasm_memory_refused(inst), o->max_memory);
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
        pvm_wasm_store_set_max_memory(store, o->max_memory);
    if (store) {
        pvm_wasm_store_set_fusion(store, !o->no_fuse);
        pvm_wasm_store_set_lazy(store, !o->translate_all);
    }
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
