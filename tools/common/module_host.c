/*
 * module_host.c - the host of .pbc and .pasm programs (module_host.h).
 */
#include "module_host.h"

#include <stdlib.h>
#include <string.h>

#include "host_builtins.h"
#include "wasm_bulk.h"

bool module_host_is_wasi(const pvm_module *m)
{
    size_t n = strlen(PVM_WASI_MODULE);
    for (uint32_t i = 0; i < m->nimports; i++)
        if (strncmp(m->imports[i], PVM_WASI_MODULE, n) == 0 && m->imports[i][n] == '.')
            return true;
    return false;
}

int module_host_bind(module_host *h, pvm_vm *vm, const module_host_options *o, pvm_error *err)
{
    h->wasi = NULL;
    pulley_bind_builtins(vm, o->out);
    pvm_wasm_bind_vm_bulk(vm);
    if (module_host_is_wasi(vm->module)) {
        int argc = 1 + o->nargs;
        char **argv = calloc((size_t)argc + 1, sizeof *argv);
        if (!argv)
            return pvm_errorf(err, "out of memory");
        argv[0] = (char *)o->path;
        for (int i = 1; i < argc; i++)
            argv[i] = o->args[i - 1];
        h->wasi = pvm_wasi_new(argc, argv, o->envp, o->dirs, o->ndirs, err);
        free(argv);
        if (!h->wasi)
            return -1;
        pvm_wasi_bind(h->wasi, vm);
        const char *missing = pvm_wasi_unsupported_import(vm->module);
        if (missing)
            return pvm_errorf(err, "unsupported import %s", missing);
    }
    return pvm_vm_check_imports(vm, err);
}

pvm_trap_kind module_host_start(pvm_vm *vm)
{
    uint32_t start = vm->module->start;
    return start == PVM_NO_ENTRY ? PVM_TRAP_NONE : pvm_vm_call(vm, start);
}

void module_host_free(module_host *h)
{
    pvm_wasi_free(h->wasi);
    h->wasi = NULL;
}
