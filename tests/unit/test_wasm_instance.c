/*
 * test_wasm_instance.c - the instance layer: imports resolved against
 * registered instances (functions called across VMs; memories, globals and
 * tables shared), the statuses of modules that cannot run (malformed,
 * unlinkable, uninstantiable, with the effects that stay), host binders,
 * invoke's argument checks, recursion through host functions bounded by a
 * trap instead of a host crash, and a function imported twice under one
 * name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_wasm_instance_util.h"

static int setup(void **state)
{
    *state = pvm_wasm_store_new(0);
    return *state ? 0 : -1;
}

static int teardown(void **state)
{
    pvm_wasm_store_free(*state);
    return 0;
}

/* link_provider registered as "provider". */
static pvm_wasm_instance *provider(pvm_wasm_store *s)
{
    pvm_wasm_instance *p = wt_instance(s, "link_provider");
    pvm_error err;
    assert_int_equal(pvm_wasm_store_register(s, "provider", p, &err), 0);
    return p;
}

static void imports_of_another_instance_are_shared(void **state)
{
    pvm_wasm_store *s = *state;
    pvm_wasm_instance *p = provider(s);
    pvm_wasm_instance *user = wt_instance(s, "link_user");
    /* twice(4) in the provider's VM, plus the shared global 5 + 1 */
    assert_int_equal(wt_value(user, "run", WT_ARGS(wt_i32(4))), 8 + 6);
    pvm_wasm_value g;
    pvm_error err;
    assert_int_equal(pvm_wasm_global_value(p, "g", 1, &g, &err), 0);
    assert_int_equal(g.type, PVM_WASM_I32);
    assert_int_equal(g.bits, 6);
    /* The user's data segment went into the provider's memory. */
    assert_int_equal(wt_value(p, "peek", WT_ARGS(wt_i32(10))), 0x63);
    assert_int_equal(wt_value(user, "twice_again", WT_ARGS(wt_i32(21))), 42);
}

static void missing_or_mismatched_imports_are_unlinkable(void **state)
{
    pvm_wasm_store *s = *state;
    pvm_wasm_instance *inst;
    pvm_error err;
    assert_int_equal(wt_try(s, "link_user", &inst, &err), PVM_WASM_UNLINKABLE);
    assert_null(inst);
    assert_non_null(strstr(err.msg, "unknown import provider.twice"));
    provider(s);
    assert_int_equal(wt_try(s, "link_wrong_type", &inst, &err), PVM_WASM_UNLINKABLE);
    assert_non_null(strstr(err.msg, "incompatible import type"));
}

/* A trapping start function makes the module uninstantiable; what its
 * data segment wrote into the imported memory stays. */
static void traps_while_instantiating_leave_their_effects(void **state)
{
    pvm_wasm_store *s = *state;
    pvm_wasm_instance *p = provider(s), *inst;
    pvm_error err;
    assert_int_equal(wt_try(s, "link_start_trap", &inst, &err), PVM_WASM_UNINSTANTIABLE);
    assert_string_equal(err.msg, "unreachable");
    assert_int_equal(wt_value(p, "peek", WT_ARGS(wt_i32(20))), 7);
    assert_int_equal(wt_try(s, "link_elem_oob", &inst, &err), PVM_WASM_UNINSTANTIABLE);
    assert_string_equal(err.msg, "out of bounds table access");
}

static void malformed_and_invalid_modules(void **state)
{
    pvm_wasm_store *s = *state;
    pvm_wasm_status status;
    pvm_error err;
    static const uint8_t bad_version[] = {0, 'a', 's', 'm', 2, 0, 0, 0};
    assert_null(pvm_wasm_instantiate(s, bad_version, sizeof bad_version, &status, &err));
    assert_int_equal(status, PVM_WASM_MALFORMED);
    /* (func (result i32)) with an empty body: type mismatch */
    static const uint8_t invalid[] = {0, 'a', 's', 'm', 1, 0, 0, 0, 1, 5, 1, 0x60, 0, 1, 0x7f,
                                      3, 2, 1, 0, 10, 4, 1, 2, 0, 0x0b};
    assert_null(pvm_wasm_instantiate(s, invalid, sizeof invalid, &status, &err));
    assert_int_equal(status, PVM_WASM_MALFORMED);
    assert_non_null(strstr(err.msg, "type mismatch"));
}

static void invoke_checks_its_arguments(void **state)
{
    pvm_wasm_instance *p = provider(*state);
    pvm_wasm_value res[1];
    uint32_t n;
    pvm_error err;
    assert_int_equal(pvm_wasm_invoke(p, "nope", 4, NULL, 0, res, 1, &n, &err), -1);
    assert_int_equal(pvm_wasm_invoke(p, "twice", 5, NULL, 0, res, 1, &n, &err), -1);
    pvm_wasm_value wrong = wt_i64(1);
    assert_int_equal(pvm_wasm_invoke(p, "twice", 5, &wrong, 1, res, 1, &n, &err), -1);
    assert_non_null(strstr(err.msg, "must be a i32"));
}

/* ---- host functions calling back ---------------------------------------- */

static pvm_wasm_instance *ping;

/* host.reenter(n): ping(n), from inside ping. */
static pvm_trap_kind reenter(pvm_vm *vm, void *ctx)
{
    (void)ctx;
    pvm_wasm_value arg = wt_i32((uint32_t)vm->x[0]), res;
    uint32_t n;
    pvm_error err;
    int trap = pvm_wasm_invoke(ping, "ping", 4, &arg, 1, &res, 1, &n, &err);
    if (trap != PVM_TRAP_NONE)
        return trap < 0 ? PVM_TRAP_HOST_ERROR : (pvm_trap_kind)trap;
    vm->x[0] = res.bits;
    return PVM_TRAP_NONE;
}

static void recursion_through_the_host_is_bounded(void **state)
{
    pvm_wasm_store *s = *state;
    pvm_error err;
    assert_int_equal(pvm_wasm_host_func(s, "host", "reenter", "i", "i", reenter, NULL, &err), 0);
    ping = wt_instance(s, "link_ping");
    assert_int_equal(wt_value(ping, "ping", WT_ARGS(wt_i32(20))), 20);
    assert_int_equal(wt_call(ping, "ping", WT_ARGS(wt_i32(1000000)), NULL),
                     PVM_TRAP_STACK_OVERFLOW);
    /* The store is usable afterwards. */
    assert_int_equal(wt_value(ping, "ping", WT_ARGS(wt_i32(3))), 3);
}

/* A binder handles a whole host module; its failure makes the module
 * unlinkable. */
static int bind_reenter(pvm_vm *vm, void *ctx, pvm_error *err)
{
    if (ctx)
        return pvm_errorf(err, "unsupported import host.reenter");
    vm->hosts[0] = (pvm_host_binding){reenter, NULL};
    return 0;
}

static void binders_link_whole_modules(void **state)
{
    pvm_wasm_store *s = *state;
    pvm_error err;
    assert_int_equal(pvm_wasm_host_binder(s, "host", bind_reenter, NULL, &err), 0);
    ping = wt_instance(s, "link_ping");
    assert_int_equal(wt_value(ping, "ping", WT_ARGS(wt_i32(5))), 5);

    pvm_wasm_store *refusing = pvm_wasm_store_new(0);
    assert_int_equal(pvm_wasm_host_binder(refusing, "host", bind_reenter, refusing, &err), 0);
    pvm_wasm_instance *inst;
    assert_int_equal(wt_try(refusing, "link_ping", &inst, &err), PVM_WASM_UNLINKABLE);
    assert_string_equal(err.msg, "unsupported import host.reenter");
    pvm_wasm_store_free(refusing);
}

/* ---- one name imported twice --------------------------------------------- */

static pvm_trap_kind host_add(pvm_vm *vm, void *ctx)
{
    (void)ctx;
    vm->x[0] = (uint32_t)(vm->x[0] + vm->x[1]);
    return PVM_TRAP_NONE;
}

static pvm_trap_kind host_sub(pvm_vm *vm, void *ctx)
{
    (void)ctx;
    vm->x[0] = (uint32_t)(vm->x[0] - vm->x[1]);
    return PVM_TRAP_NONE;
}

/* Both imports of host.add reach it (they share a host import), directly,
 * through the table and re-exported; host.sub and the bulk memory.fill
 * keep theirs. */
static void a_function_imported_twice_runs_under_both_indices(void **state)
{
    pvm_wasm_store *s = *state;
    pvm_error err;
    assert_int_equal(pvm_wasm_host_func(s, "host", "add", "ii", "i", host_add, NULL, &err), 0);
    assert_int_equal(pvm_wasm_host_func(s, "host", "sub", "ii", "i", host_sub, NULL, &err), 0);
    pvm_wasm_instance *twice = wt_instance(s, "link_twice");
    assert_int_equal(wt_value(twice, "direct", WT_ARGS(wt_i32(5), wt_i32(3))), 800 + 20 + 8);
    for (uint32_t i = 0; i < 3; i++)
        assert_int_equal(wt_value(twice, "indirect", WT_ARGS(wt_i32(i), wt_i32(5), wt_i32(3))),
                         i == 1 ? 2 : 8);
    assert_int_equal(wt_value(twice, "fill", WT_ARGS(wt_i32(0x5a))), 0x5a);
    assert_int_equal(pvm_wasm_store_register(s, "twice", twice, &err), 0);
    pvm_wasm_instance *user = wt_instance(s, "link_twice_user");
    assert_int_equal(wt_value(user, "run", WT_ARGS(wt_i32(40), wt_i32(2))), 42);
    pvm_wasm_instance *inst;
    assert_int_equal(wt_try(s, "link_twice_wrong_type", &inst, &err), PVM_WASM_UNLINKABLE);
    assert_non_null(strstr(err.msg, "incompatible import type for host.add"));
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(imports_of_another_instance_are_shared),
        T(missing_or_mismatched_imports_are_unlinkable),
        T(traps_while_instantiating_leave_their_effects),
        T(malformed_and_invalid_modules),
        T(invoke_checks_its_arguments),
        T(recursion_through_the_host_is_bounded),
        T(binders_link_whole_modules),
        T(a_function_imported_twice_runs_under_both_indices),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
