/*
 * wasm_instance_call.c - calling into an instance: arguments and results
 * by position (registers for positions 0..15, the VM stack beyond, as
 * translated code passes them), invoking an export by name with typed
 * values, calls from one instance into another, with the nesting of VM
 * runs in a store bounded (so that recursion through host functions traps
 * instead of exhausting the host's stack), and
 * reading exported globals.
 */
#include <stdlib.h>
#include <string.h>

#include "translate.h"
#include "wasm_instance_internal.h"

enum { ARG_REGS = 16 };

static bool is_float(uint8_t type)
{
    return type == PVM_WASM_F32 || type == PVM_WASM_F64;
}

/* Bytes of stack for positions 16 and above (a multiple of 16). */
static uint64_t stack_area(const pvm_wasm_functype *ft)
{
    uint32_t n = ft->nparams > ft->nresults ? ft->nparams : ft->nresults;
    return n > ARG_REGS ? ((uint64_t)8 * (n - ARG_REGS) + 15) / 16 * 16 : 0;
}

/* Move value k of types[] between the VM (registers or the stack at
 * data-space address sp) and v; to_vm says which way. */
static void transfer(pvm_vm *vm, uint64_t sp, const uint8_t *types, uint32_t k, uint64_t *v,
                     bool to_vm)
{
    uint64_t *reg = k >= ARG_REGS ? NULL : is_float(types[k]) ? &vm->f[k].bits : &vm->x[k];
    uint8_t *mem = k >= ARG_REGS ? vm->stack + sp + 8 * (uint64_t)(k - ARG_REGS) : NULL;
    if (to_vm && reg)
        *reg = *v;
    else if (to_vm)
        pvm_wr64(mem, *v);
    else
        *v = reg ? *reg : pvm_rd64(mem);
}

/* Each nested VM run takes host stack (much of it in sanitizer builds):
 * bound both the nesting and the host stack it has used. */
static bool host_stack_exhausted(pvm_wasm_store *s)
{
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    if (s->depth == 0)
        s->stack_base = here;
    uintptr_t used = s->stack_base > here ? s->stack_base - here : here - s->stack_base;
    return s->depth >= PVM_WASM_MAX_HOST_DEPTH || used > PVM_WASM_MAX_HOST_STACK;
}

pvm_trap_kind pvm_wasm_call_func(pvm_wasm_instance *inst, uint32_t func, const uint64_t *args,
                                 uint64_t *results)
{
    pvm_vm *vm = inst->vm;
    const pvm_wasm_functype *ft = pvm_wasm_func_type(inst->wm, func);
    if (host_stack_exhausted(inst->store))
        return PVM_TRAP_STACK_OVERFLOW;
    uint64_t area = stack_area(ft);
    uint64_t sp = vm->sp, fp = vm->fp, lr = vm->lr;
    uint64_t top = vm->depth == 0 ? vm->stack_size : vm->sp;
    if (area + 16 > top)
        return PVM_TRAP_STACK_OVERFLOW;
    uint64_t base = top - area;
    for (uint32_t k = 0; k < ft->nparams; k++)
        transfer(vm, base, ft->params, k, (uint64_t *)&args[k], true);
    /* Run as if called from a host function, so that the call starts at
     * `base` (below the stack arguments) instead of the stack top. */
    vm->sp = vm->fp = base;
    vm->depth++;
    inst->store->depth++;
    pvm_trap_kind kind = pvm_vm_call(vm, func);
    inst->store->depth--;
    vm->depth--;
    for (uint32_t k = 0; k < ft->nresults && kind == PVM_TRAP_NONE; k++)
        transfer(vm, base, ft->results, k, &results[k], false);
    vm->sp = sp;
    vm->fp = fp;
    vm->lr = lr;
    return kind;
}

/* Can the caller's stack hold its arguments and results past position 15? */
static bool stack_fits(const pvm_vm *vm, const pvm_wasm_functype *ft)
{
    return stack_area(ft) <= vm->stack_size - vm->sp;
}

pvm_trap_kind pvm_wasm_cross_call(pvm_vm *vm, void *ctx)
{
    const cross_call *c = ctx;
    pvm_wasm_instance *callee = c->callee;
    const pvm_wasm_functype *ft = pvm_wasm_func_type(callee->wm, c->func);
    if (!stack_fits(vm, ft))
        return PVM_TRAP_HOST_ERROR;
    uint64_t *values = malloc(((size_t)ft->nparams + ft->nresults + 1) * sizeof *values);
    if (!values)
        return PVM_TRAP_HOST_ERROR;
    uint64_t *results = values + ft->nparams;
    for (uint32_t k = 0; k < ft->nparams; k++)
        transfer(vm, vm->sp, ft->params, k, &values[k], false);
    pvm_trap_kind kind = pvm_wasm_call_func(callee, c->func, values, results);
    if (kind == PVM_TRAP_EXIT)
        vm->exit_status = callee->vm->exit_status;
    for (uint32_t k = 0; k < ft->nresults && kind == PVM_TRAP_NONE; k++)
        transfer(vm, vm->sp, ft->results, k, &results[k], true);
    free(values);
    return kind;
}

/* The export of this kind named name[0..len), or NULL. */
static const pvm_wasm_export *find_export(const pvm_wasm_module *wm, const char *name,
                                          size_t len, unsigned kind)
{
    for (uint32_t i = 0; i < wm->nexports; i++) {
        const pvm_wasm_export *e = &wm->exports[i];
        if (e->kind == kind && e->name.len == len && memcmp(e->name.str, name, len) == 0)
            return e;
    }
    return NULL;
}

int pvm_wasm_invoke(pvm_wasm_instance *inst, const char *name, size_t len,
                    const pvm_wasm_value *args, uint32_t nargs, pvm_wasm_value *results,
                    uint32_t cap, uint32_t *nresults, pvm_error *err)
{
    const pvm_wasm_export *e = find_export(inst->wm, name, len, PVM_WASM_EXTERN_FUNC);
    if (!e)
        return pvm_errorf(err, "no exported function \"%.*s\"", (int)len, name);
    const pvm_wasm_functype *ft = pvm_wasm_func_type(inst->wm, e->index);
    if (nargs != ft->nparams)
        return pvm_errorf(err, "%.*s takes %u arguments, got %u", (int)len, name, ft->nparams,
                          nargs);
    for (uint32_t k = 0; k < nargs; k++)
        if (args[k].type != ft->params[k])
            return pvm_errorf(err, "argument %u of %.*s must be a %s, not a %s", k + 1, (int)len, name,
                              pvm_wasm_valtype_name(ft->params[k]),
                              pvm_wasm_valtype_name(args[k].type));
    if (ft->nresults > cap)
        return pvm_errorf(err, "%.*s has %u results, room for %u", (int)len, name, ft->nresults,
                          cap);
    uint64_t *values = malloc(((size_t)nargs + ft->nresults + 1) * sizeof *values);
    if (!values)
        return pvm_errorf(err, "out of memory");
    for (uint32_t k = 0; k < nargs; k++)
        values[k] = args[k].bits;
    pvm_trap_kind kind = pvm_wasm_call_func(inst, e->index, values, values + nargs);
    *nresults = 0;
    if (kind == PVM_TRAP_NONE) {
        for (uint32_t k = 0; k < ft->nresults; k++) {
            uint8_t type = ft->results[k];
            uint64_t bits = values[nargs + k];
            if (type == PVM_WASM_I32 || type == PVM_WASM_F32)
                bits = (uint32_t)bits;
            results[k] = (pvm_wasm_value){type, bits};
        }
        *nresults = ft->nresults;
    }
    free(values);
    return (int)kind;
}

int pvm_wasm_global_value(pvm_wasm_instance *inst, const char *name, size_t len,
                          pvm_wasm_value *out, pvm_error *err)
{
    const pvm_wasm_export *e = find_export(inst->wm, name, len, PVM_WASM_EXTERN_GLOBAL);
    if (!e)
        return pvm_errorf(err, "no exported global \"%.*s\"", (int)len, name);
    *out = (pvm_wasm_value){inst->wm->globals[e->index].type,
                            inst->vm->globals[e->index]->value};
    return 0;
}
