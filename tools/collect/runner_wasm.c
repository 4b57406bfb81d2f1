/*
 * runner_wasm.c - running a .wasm program on the profiling VM (or the
 * counting VM, in pulley-collect-exact; its counts are reported after the
 * program ends, while its VMs still exist): a store
 * whose "wasi_snapshot_preview1" is the WASI host (the program's
 * arguments, --dir preopens, stdin/stdout/stderr passed through), a hook
 * that registers every translated module and its functions (with their
 * Wasm names; a function translated on its first call, then) and each new
 * VM's PC slot with the agent before anything runs in it, then _start (or
 * the export --invoke names, with no arguments).  The session ends with "return", "exit" (proc_exit, its
 * status) or "trap: KIND" (status 134), as collect_run_pulley does, before
 * the store is freed: the agent decodes with the translated code.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "isa_cli.h"
#include "lazy.h"
#include "runner.h"
#include "wasi.h"
#include "wasm_instance.h"
#include "wasm_values.h"

/* What the store's VM hook needs: the session, the module's name, the
 * slots registered so far (unregistered before the VMs are freed), and
 * (counting build) every VM with the agent handles of its functions, for
 * its counts at the end. */
/* A module whose functions are translated as they are first called
 * (lazy.h): each is registered then. */
typedef struct lazy_module {
    collect_session *s;
    int module;         /* the agent's handle */
    uint64_t refused;   /* functions the agent did not take */
} lazy_module;

typedef struct wasm_ctx {
    collect_session *s;
    const char *name;
    lazy_module **lazy;
    size_t nlazy, lazy_cap;
    _Atomic(uintptr_t) **slots;
    size_t nslots, cap;
    pvm_vm **vms;
    int **handles;
    size_t nvms, vcap;
} wasm_ctx;

/* Remember vm and its function handles (taken over).  0 or -1. */
static int add_vm(wasm_ctx *c, pvm_vm *vm, int *handles)
{
    size_t vms_cap = c->vcap; /* c->vcap grows with handles, once vms did */
    if (BASE_GROW(c->vms, vms_cap, c->nvms + 1, 4) != 0 ||
        BASE_GROW(c->handles, c->vcap, c->nvms + 1, 4) != 0) {
        free(handles);
        return -1;
    }
    c->vms[c->nvms] = vm;
    c->handles[c->nvms++] = handles;
    return 0;
}

/* Forget the VMs (their instances are gone, or their counts reported). */
static void drop_vms(wasm_ctx *c)
{
    for (size_t i = 0; i < c->nvms; i++)
        free(c->handles[i]);
    c->nvms = 0;
}

/* The store's binder of "wasi_snapshot_preview1": every import bound, or
 * the first unsupported one named. */
static int bind_wasi(pvm_vm *vm, void *ctx, pvm_error *err)
{
    (void)pvm_wasi_bind(ctx, vm); /* the count is not needed: missing ones are named below */
    const char *missing = pvm_wasi_unsupported_import(vm->module);
    if (missing)
        return pvm_errorf(err, "unsupported import %s", missing);
    return 0;
}

static void on_translated(void *ctx, const pvm_module *m, uint32_t func)
{
    lazy_module *z = ctx;
    if (collect_register_function(z->s, z->module, m, func) < 0)
        z->refused++;
}

/* Register the functions of m translated from now on. */
static int follow_translation(wasm_ctx *c, const pvm_module *m, int module)
{
    lazy_module *z = malloc(sizeof *z);
    if (!z || BASE_GROW(c->lazy, c->lazy_cap, c->nlazy + 1, 4) != 0) {
        free(z);
        return -1;
    }
    *z = (lazy_module){c->s, module, 0};
    c->lazy[c->nlazy++] = z;
    pvm_lazy_observe(m, on_translated, z);
    return 0;
}

/* The functions translated during the run that the agent did not take
 * (its catalog lacks them: said, and the run fails). */
static uint64_t refused_functions(const wasm_ctx *c)
{
    uint64_t n = 0;
    for (size_t i = 0; i < c->nlazy; i++)
        n += c->lazy[i]->refused;
    return n;
}

/* Each new VM: register its module's functions and its PC slot. */
static int on_vm(pvm_vm *vm, const pvm_module *m, void *ctx, pvm_error *err)
{
    wasm_ctx *c = ctx;
    if (BASE_GROW(c->slots, c->cap, c->nslots + 1, 4) != 0)
        return pvm_errorf(err, "out of memory");
    int *handles = malloc((m->nfuncs ? m->nfuncs : 1) * sizeof *handles);
    if (!handles)
        return pvm_errorf(err, "out of memory");
    int module = collect_register_module(c->s, c->name, m, handles);
    if (module < 0) {
        free(handles);
        return pvm_errorf(err, "cannot register the module with the profiling agent");
    }
    if (m->lazy && follow_translation(c, m, module) != 0) {
        free(handles);
        return pvm_errorf(err, "out of memory");
    }
    if (!pvm_built_with_profile()) /* the counting build: no pc slot to sample */
        return add_vm(c, vm, handles) == 0 ? 0 : pvm_errorf(err, "out of memory");
    free(handles);
    _Atomic(uintptr_t) *slot = &vm->pc_slot;
    pulleyprof_agent *a = session_lock(c->s);
    int registered = a && pulleyprof_register_slot(a, slot) == 0;
    session_unlock(c->s);
    if (!registered)
        return pvm_errorf(err, "cannot register the VM with the profiling agent");
    c->slots[c->nslots++] = slot;
    return 0;
}

/* Stop sampling every registered VM (before they are freed). */
static void unregister_slots(wasm_ctx *c)
{
    pulleyprof_agent *a = session_lock(c->s);
    for (size_t i = 0; a && i < c->nslots; i++)
        if (pulleyprof_unregister_slot(a, c->slots[i]) != 0)
            fprintf(stderr, "%s: cannot unregister a VM from the profiling agent\n", c->s->tool);
    session_unlock(c->s);
    c->nslots = 0;
}

/* Instantiate and run; the session is ended on return, the store not yet
 * freed.  Returns the exit status. */
static int run(const cli_tool *t, wasm_ctx *c, pvm_wasm_store *store, pvm_wasi *wasi,
               const collect_program *p, const uint8_t *bytes, size_t size)
{
    pvm_error err;
    pvm_wasm_status st;
    char outcome[128];
    int status = CLI_FAILURE;
    snprintf(outcome, sizeof outcome, "not run");
    pvm_wasm_store_on_vm(store, on_vm, c);
    if (pvm_wasm_host_binder(store, PVM_WASI_MODULE, bind_wasi, wasi, &err) != 0) {
        cli_error(t, "%s", err.msg);
        goto done;
    }
    pvm_wasm_instance *inst = pvm_wasm_instantiate(store, bytes, size, &st, &err);
    if (!inst) {
        drop_vms(c); /* freed with the instance: a trap in the start function loses its counts */
        fflush(stdout);
        if (st == PVM_WASM_UNINSTANTIABLE) {
            cli_error(t, "trap: %s in the start function", err.msg);
            snprintf(outcome, sizeof outcome, "trap: start function");
            status = CLI_TRAP;
        } else {
            cli_error(t, "%s: %s", p->path, err.msg);
        }
        goto done;
    }
    const char *name = p->invoke ? p->invoke : "_start";
    uint32_t nres = 0, nargs = p->invoke ? (uint32_t)p->nargs : 0;
    pvm_wasm_value results[PVM_WASM_MAX_RESULTS];
    pvm_wasm_value *args = calloc(nargs + 1, sizeof *args);
    if (!args) {
        cli_error(t, "out of memory");
        goto done;
    }
    if (p->invoke && (status = pvm_wasm_invoke_arguments(pvm_wasm_instance_module(inst), name,
                                                         p->args, p->nargs, args, &err)) != 0) {
        cli_error(t, "%s", err.msg);
        free(args);
        goto done;
    }
    int trap = pvm_wasm_invoke(inst, name, strlen(name), args, nargs, results,
                               PVM_WASM_MAX_RESULTS, &nres, &err);
    free(args);
    if (trap < 0) {
        status = CLI_FAILURE;
        cli_error(t, "%s: %s", p->path, err.msg);
    } else if (trap == PVM_TRAP_NONE) {
        for (uint32_t i = 0; i < nres; i++)
            pvm_wasm_print_value(stdout, &results[i]);
        snprintf(outcome, sizeof outcome, "return");
        status = CLI_OK;
    } else if (trap == PVM_TRAP_EXIT) {
        snprintf(outcome, sizeof outcome, "exit");
        status = pvm_wasm_exit_status(inst);
    } else {
        fflush(stdout);
        cli_error(t, "trap: %s (%s) in function %s at offset 0x%04" PRIx32,
                  pvm_trap_message((unsigned)trap), pvm_trap_name((unsigned)trap),
                  pvm_wasm_trap_function(inst), pvm_wasm_trap_offset(inst));
        if (*pvm_wasm_translation_error(inst))
            cli_error(t, "the function could not be translated: %s",
                      pvm_wasm_translation_error(inst));
        snprintf(outcome, sizeof outcome, "trap: %s", pvm_trap_name((unsigned)trap));
        status = CLI_TRAP;
    }
    pvm_wasm_report_refused_growth(t->name, pvm_wasm_memory_refused(inst), p->max_memory);
    for (size_t i = 0; i < c->nvms; i++)
        if (collect_report_counts(c->s, c->vms[i], c->handles[i]) != 0)
            status = CLI_FAILURE;
    uint64_t refused = refused_functions(c);
    if (refused) {
        cli_error(t, "%" PRIu64 " functions translated during the run could not be registered "
                     "with the profiling agent: their samples are not attributed", refused);
        status = CLI_FAILURE;
    }
done:
    drop_vms(c);
    unregister_slots(c);
    fflush(stdout);
    return session_finish(c->s, outcome, status);
}

int collect_run_wasm(collect_session *s, const collect_program *p)
{
    cli_tool t = {s->tool, "", ""};
    pvm_error err;
    size_t size = 0;
    uint8_t *bytes = pvm_read_file(p->path, &size, &err);
    if (!bytes) {
        cli_error(&t, "%s: %s", p->path, err.msg);
        session_finish(s, "not run", CLI_FAILURE);
        return CLI_FAILURE;
    }
    /* WASI's argv: the program, then its arguments. */
    char **argv = calloc((size_t)p->nargs + 2, sizeof *argv);
    pvm_wasi *wasi = NULL;
    pvm_wasm_store *store = NULL;
    wasm_ctx c = {.s = s, .name = p->path};
    int status = CLI_FAILURE;
    if (!argv) {
        cli_error(&t, "out of memory");
        session_finish(s, "not run", status);
        goto out;
    }
    argv[0] = (char *)p->path;
    for (int i = 0; i < p->nargs; i++)
        argv[i + 1] = p->args[i];
    wasi = pvm_wasi_new(p->nargs + 1, argv, p->envp, p->dirs, (size_t)(p->ndirs > 0 ? p->ndirs : 0),
                        &err);
    store = wasi ? pvm_wasm_store_new(0) : NULL;
    if (store) {
        pvm_wasm_store_set_fusion(store, !p->no_fuse);
        pvm_wasm_store_set_lazy(store, !p->translate_all);
        pvm_wasm_store_set_max_memory(store, p->max_memory);
    }
    if (!wasi || !store) {
        cli_error(&t, "%s", wasi ? "out of memory" : err.msg);
        session_finish(s, "not run", status);
        goto out;
    }
    status = run(&t, &c, store, wasi, p, bytes, size);
out:
    /* After the session ended: the agent decodes with the translated code. */
    pvm_wasm_store_free(store);
    pvm_wasi_free(wasi);
    free(c.slots);
    for (size_t i = 0; i < c.nlazy; i++)
        free(c.lazy[i]);
    free(c.lazy);
    free(c.vms);
    free(c.handles);
    free(argv);
    free(bytes);
    return status;
}
