/*
 * runner_pulley.c - running a .pbc or .pasm program on the profiling VM
 * (or the counting VM, in pulley-collect-exact), as pulley-run does: with
 * the module host (tools/common/module_host.h: the builtins, WASI for a
 * saved translation), its start function, then the entry function (or
 * --invoke NAME, else "main") with the arguments from the command line,
 * its results printed one per line.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuse.h"
#include "isa_cli.h"
#include "lazy.h"
#include "module_host.h"
#include "run_args.h"
#include "runner.h"
#include "verify.h"
#include "vm.h"

/* Under the session's lock: register function i of m. */
static int register_function(pulleyprof_agent *a, int mod, const pvm_module *m, uint32_t i)
{
    const pvm_function *f = &m->funcs[i];
    const uint8_t *code = m->code + f->offset;
    return pulleyprof_register_function(a, mod, i, f->name, (uintptr_t)code, code, f->size);
}

int collect_register_module(collect_session *s, const char *name, const pvm_module *m,
                            int *handles)
{
    const char *slash = strrchr(name, '/');
    pulleyprof_agent *a = session_lock(s);
    int mod = a ? pulleyprof_register_module(a, slash ? slash + 1 : name, m) : -1;
    for (uint32_t i = 0; mod >= 0 && i < m->nfuncs; i++) {
        if (pvm_lazy_pending(m, i)) {
            if (handles)
                handles[i] = -1;
            continue;
        }
        int h = register_function(a, mod, m, i);
        if (h < 0)
            mod = -1;
        else if (handles)
            handles[i] = h;
    }
    /* The stubs as one function of their own (after the module's), so
     * that a pc sampled while a stub traps to be translated is known. */
    size_t begin, end;
    if (mod >= 0 && pvm_lazy_stub_code(m, &begin, &end) &&
        pulleyprof_register_function(a, mod, m->nfuncs, COLLECT_STUBS_NAME,
                                     (uintptr_t)(m->code + begin), m->code + begin,
                                     end - begin) < 0)
        mod = -1;
    session_unlock(s);
    return mod;
}

int collect_register_function(collect_session *s, int module, const pvm_module *m,
                              uint32_t func)
{
    pulleyprof_agent *a = session_lock(s);
    int h = a ? register_function(a, module, m, func) : -1;
    session_unlock(s);
    return h;
}

int collect_report_counts(collect_session *s, const pvm_vm *vm, const int *handles)
{
    size_t n;
    const uint64_t *counts = pvm_vm_exec_counts(vm, &n);
    if (!counts)
        return 0;
    const pvm_module *m = vm->module;
    int rc = 0;
    pulleyprof_agent *a = session_lock(s);
    if (!a) { /* the run already ended (a signal): its counts are lost */
        session_unlock(s);
        return 0;
    }
    /* Every count is offered, also after one is refused; the agent counts
     * those it cannot attribute (runs.counts_unmapped). */
    size_t refused = 0;
    for (size_t off = 0; off < n; off++)
        if (counts[off]) {
            uint32_t f = pvm_vm_func_at(vm, off), at = (uint32_t)(off - m->funcs[f].offset);
            refused += pulleyprof_add_exec_count(a, handles[f], at, counts[off]) != 0;
        }
    pvm_edge_count e;
    for (size_t it = 0; pvm_vm_edge_next(vm, &it, &e);) {
        uint32_t f = pvm_vm_func_at(vm, e.from), g = pvm_vm_func_at(vm, e.to);
        refused += pulleyprof_add_transfer_count(a, handles[f], e.from - m->funcs[f].offset,
                                                handles[g], e.to - m->funcs[g].offset,
                                                e.count) != 0;
    }
    session_unlock(s);
    rc = refused ? -1 : 0;
    if (rc != 0)
        fprintf(stderr, "%s: %zu exact counts could not be recorded\n", s->tool, refused);
    else if (pvm_vm_edges_lost(vm))
        fprintf(stderr, "%s: %llu branch edges were not counted (out of memory)\n", s->tool,
                (unsigned long long)pvm_vm_edges_lost(vm));
    return rc;
}

/* Run the start function, then function `index`, on a VM whose slot the
 * agent samples (profiling build) or whose counts it records (counting
 * build).  A WASI program's arguments are its argv, unless --invoke. */
static int run(collect_session *s, const cli_tool *t, const pvm_module *m, uint32_t index,
               const collect_program *p, const int *handles)
{
    pvm_error err;
    pvm_vm *vm = pvm_vm_new(m, &(pvm_vm_config){.heap_cap = p->max_memory}, &err);
    if (!vm) {
        cli_error(t, "%s", err.msg);
        session_finish(s, "not run", CLI_FAILURE);
        return CLI_FAILURE;
    }
    const pvm_function *fn = &m->funcs[index];
    bool argv_args = module_host_is_wasi(m) && !p->invoke;
    module_host host;
    module_host_options ho = {.path = p->path, .args = p->args, .nargs = argv_args ? p->nargs : 0,
                              .envp = p->envp, .dirs = p->dirs,
                              .ndirs = (size_t)(p->ndirs > 0 ? p->ndirs : 0), .out = stdout};
    int status = CLI_FAILURE;
    if (module_host_bind(&host, vm, &ho, &err) != 0) {
        cli_error(t, "%s: %s", p->path, err.msg);
        goto done;
    }
    char message[300];
    const char *bad = run_set_arguments(vm, fn, argv_args ? NULL : p->args,
                                        argv_args ? 0 : p->nargs, message, sizeof message);
    if (bad) {
        cli_error(t, "%s", bad);
        status = CLI_USAGE;
        goto done;
    }
    _Atomic(uintptr_t) *slot = &vm->pc_slot;
    bool sampled = pvm_built_with_profile(); /* else a counting build */
    pulleyprof_agent *a = session_lock(s);
    int registered = a && (!sampled || pulleyprof_register_slot(a, slot) == 0);
    session_unlock(s);
    if (!registered) {
        cli_error(t, "cannot register the VM with the profiling agent");
        goto done;
    }
    pvm_trap_kind trap = module_host_start(vm);
    if (trap == PVM_TRAP_NONE)
        trap = pvm_vm_call(vm, index);
    else
        fn = &m->funcs[m->start];
    if (sampled) {
        if ((a = session_lock(s)))
            pulleyprof_unregister_slot(a, slot);
        session_unlock(s);
    }
    bool counts_ok = collect_report_counts(s, vm, handles) == 0;
    char outcome[64];
    status = run_ending(t, vm, trap, fn, outcome);
    if (!counts_ok)
        status = CLI_FAILURE;
    module_host_free(&host);
    pvm_vm_free(vm);
    fflush(stdout);
    return session_finish(s, outcome, status);
done:
    module_host_free(&host);
    pvm_vm_free(vm);
    session_finish(s, "not run", status);
    return status;
}

int collect_run_pulley(collect_session *s, const collect_program *p)
{
    cli_tool t = {s->tool, "", ""};
    pvm_error err;
    pvm_module *m = cli_load_module(&t, p->path);
    if (m && pvm_verify_module(m, &err) != 0) {
        cli_error(&t, "%s: verification failed: %s", p->path, err.msg);
        pvm_module_free(m);
        m = NULL;
    }
    if (m && !p->no_fuse && pvm_fuse_module(m, NULL, &err) != 0) {
        cli_error(&t, "%s: %s", p->path, err.msg);
        pvm_module_free(m);
        m = NULL;
    }
    int index = m ? run_pick_function(&t, m, p->invoke) : -1;
    int status = CLI_FAILURE;
    int *handles = m ? malloc((m->nfuncs ? m->nfuncs : 1) * sizeof *handles) : NULL;
    if (index >= 0 && !handles)
        cli_error(&t, "out of memory");
    if (index < 0 || !handles)
        session_finish(s, "not run", status);
    else if (collect_register_module(s, p->path, m, handles) < 0) {
        cli_error(&t, "cannot register the module with the profiling agent");
        session_finish(s, "not run", status);
    } else
        status = run(s, &t, m, (uint32_t)index, p, handles);
    free(handles);
    pvm_module_free(m); /* after the session ended: the agent decodes with it */
    return status;
}
