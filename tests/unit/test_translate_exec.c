/*
 * test_translate_exec.c - translated code runs as Wasm says: one test per
 * feature of tests/wasm/features.wat (segments, host calls, globals,
 * indirect calls, multi-value, br_table, typed select, memory.grow to the
 * maximum, bulk memory, tables, sign extension, saturating conversions,
 * arguments and results past the registers, recursion), and every trap of
 * tests/wasm/traps.wat, memory accesses of each width at each edge of
 * memory included.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_wasm_instance_util.h"

static pvm_trap_kind add3(pvm_vm *vm, void *ctx)
{
    (void)ctx;
    vm->x[0] = (uint32_t)(vm->x[0] + vm->x[1] + vm->x[2]);
    return PVM_TRAP_NONE;
}

/* A store with the "host" module features.wasm imports. */
static int setup(void **state)
{
    pvm_wasm_store *s = pvm_wasm_store_new(0);
    pvm_error err;
    assert_int_equal(pvm_wasm_host_func(s, "host", "add3", "iii", "i", add3, NULL, &err), 0);
    assert_int_equal(pvm_wasm_host_global(s, "host", "counter", PVM_WASM_I32, true, 10, &err), 0);
    *state = s;
    return 0;
}

static int teardown(void **state)
{
    pvm_wasm_store_free(*state);
    return 0;
}

static pvm_wasm_instance *features(void **state)
{
    return wt_instance(*state, "features");
}

/* ---- features ------------------------------------------------------------- */

static void data_segments_and_host_functions(void **state)
{
    pvm_wasm_instance *inst = features(state);
    assert_int_equal(wt_value(inst, "data", WT_NOARGS), 42);
    assert_int_equal(wt_value(inst, "host_call", WT_NOARGS), 6);
}

static void globals_imported_and_defined(void **state)
{
    pvm_wasm_instance *inst = features(state);
    assert_int_equal(wt_value(inst, "bump", WT_NOARGS), 11);
    assert_int_equal(wt_value(inst, "bump", WT_NOARGS), 12);
    assert_int_equal(wt_value(inst, "global64", WT_NOARGS), 42);
    assert_int_equal(wt_value(inst, "global64", WT_NOARGS), 44);
}

static void call_indirect_checks_index_null_and_type(void **state)
{
    pvm_wasm_instance *inst = features(state);
    assert_int_equal(wt_value(inst, "indirect", WT_ARGS(wt_i32(5), wt_i32(1))), 10);
    assert_int_equal(wt_value(inst, "indirect0", WT_ARGS(wt_i32(0))), 7);
    assert_int_equal(wt_call(inst, "indirect", WT_ARGS(wt_i32(5), wt_i32(0)), NULL),
                     PVM_TRAP_BAD_SIGNATURE);
    assert_int_equal(wt_call(inst, "indirect", WT_ARGS(wt_i32(5), wt_i32(3)), NULL),
                     PVM_TRAP_NULL_REFERENCE);
    assert_int_equal(wt_call(inst, "indirect", WT_ARGS(wt_i32(5), wt_i32(4)), NULL),
                     PVM_TRAP_UNDEFINED_ELEMENT);
}

static void multi_value_results_and_block_parameters(void **state)
{
    pvm_wasm_instance *inst = features(state);
    assert_int_equal(wt_value(inst, "multi", WT_ARGS(wt_i32(17), wt_i32(5))), 203);
}

static void br_table_and_typed_select(void **state)
{
    pvm_wasm_instance *inst = features(state);
    for (uint32_t i = 0; i < 4; i++)
        assert_int_equal(wt_value(inst, "switch", WT_ARGS(wt_i32(i))), 10 + i);
    assert_int_equal(wt_value(inst, "switch", WT_ARGS(wt_i32(99))), 13);
    assert_int_equal(wt_value(inst, "select", WT_ARGS(wt_i32(1))), 5);
    assert_int_equal(wt_value(inst, "select", WT_ARGS(wt_i32(0))), 6);
}

/* (memory 1 3): grows to 3 pages, then memory.grow returns -1. */
static void memory_grows_up_to_its_maximum(void **state)
{
    pvm_wasm_instance *inst = features(state);
    assert_int_equal(wt_value(inst, "size", WT_NOARGS), 1);
    assert_int_equal(wt_value(inst, "grow", WT_ARGS(wt_i32(1))), 1);
    assert_int_equal(wt_value(inst, "grow", WT_ARGS(wt_i32(1))), 2);
    assert_int_equal(wt_value(inst, "grow", WT_ARGS(wt_i32(1))), UINT32_MAX);
    assert_int_equal(wt_value(inst, "grow", WT_ARGS(wt_i32(0x10000))), UINT32_MAX);
    assert_int_equal(wt_value(inst, "size", WT_NOARGS), 3);
}

static void bulk_memory_operations(void **state)
{
    pvm_wasm_instance *inst = features(state);
    assert_int_equal(wt_value(inst, "bulk", WT_NOARGS), 0x41414141u + '!');
    assert_int_equal(wt_call(inst, "init_dropped", WT_NOARGS, NULL), PVM_TRAP_HEAP_OOB);
}

static void table_operations(void **state)
{
    pvm_wasm_instance *inst = features(state);
    assert_int_equal(wt_value(inst, "tables", WT_NOARGS), 6 + 7 + 0);
    assert_int_equal(wt_call(inst, "tables", WT_NOARGS, NULL), PVM_TRAP_TABLE_OOB);
    assert_int_equal(wt_value(inst, "fill", WT_NOARGS), 1);
}

static void sign_extension_and_saturating_conversions(void **state)
{
    pvm_wasm_instance *inst = features(state);
    assert_int_equal(wt_value(inst, "signext", WT_ARGS(wt_i32(0x80))), (uint64_t)-128);
    assert_int_equal(wt_value(inst, "sat", WT_ARGS(wt_f64(1e10))), INT32_MAX);
    assert_int_equal(wt_value(inst, "sat", WT_ARGS(wt_f64(-1e10))), (uint32_t)INT32_MIN);
    assert_int_equal(wt_value(inst, "sat", WT_ARGS(wt_f64(NAN))), 0);
}

/* 20 arguments and 18 results: positions 16 and up travel on the stack. */
static void arguments_and_results_past_the_registers(void **state)
{
    pvm_wasm_instance *inst = features(state);
    assert_int_equal(wt_value(inst, "many", WT_NOARGS), 19 + 1000 * (170));
}

static void recursion(void **state)
{
    pvm_wasm_instance *inst = features(state);
    assert_int_equal(wt_value(inst, "fib", WT_ARGS(wt_i32(20))), 6765);
}

/* ---- traps ----------------------------------------------------------------- */

static void traps_of_arithmetic(void **state)
{
    pvm_wasm_instance *inst = wt_instance(*state, "traps");
    assert_int_equal(wt_call(inst, "unreachable", WT_NOARGS, NULL), PVM_TRAP_UNREACHABLE);
    assert_int_equal(wt_call(inst, "div_by_zero", WT_ARGS(wt_i32(0)), NULL),
                     PVM_TRAP_DIV_BY_ZERO);
    assert_int_equal(wt_value(inst, "div_by_zero", WT_ARGS(wt_i32(2))), 0);
    assert_int_equal(wt_call(inst, "overflow", WT_NOARGS, NULL), PVM_TRAP_INT_OVERFLOW);
    assert_int_equal(wt_call(inst, "conversion", WT_ARGS(wt_f32(NAN)), NULL),
                     PVM_TRAP_BAD_CONVERSION);
    assert_int_equal(wt_call(inst, "conversion", WT_ARGS(wt_f32(3e9f)), NULL),
                     PVM_TRAP_INT_OVERFLOW);
}

/* Every width at the last address it may use and the first it may not. */
static void memory_accesses_trap_at_every_edge(void **state)
{
    pvm_wasm_instance *inst = wt_instance(*state, "traps");
    static const struct {
        const char *name;
        uint32_t width;
    } access[] = {{"load", 8}, {"load8", 1}, {"load16", 2}, {"load32", 4}, {"store64", 8}};
    for (size_t i = 0; i < sizeof access / sizeof access[0]; i++) {
        uint32_t last = 65536 - access[i].width;
        assert_int_equal(wt_call(inst, access[i].name, WT_ARGS(wt_i32(last)), NULL),
                         PVM_TRAP_NONE);
        assert_int_equal(wt_call(inst, access[i].name, WT_ARGS(wt_i32(last + 1)), NULL),
                         PVM_TRAP_HEAP_OOB);
        assert_int_equal(wt_call(inst, access[i].name, WT_ARGS(wt_i32(UINT32_MAX)), NULL),
                         PVM_TRAP_HEAP_OOB);
    }
    assert_int_equal(wt_call(inst, "store_far", WT_ARGS(wt_i32(0)), NULL), PVM_TRAP_HEAP_OOB);
}

static void traps_of_tables_and_calls(void **state)
{
    pvm_wasm_instance *inst = wt_instance(*state, "traps");
    assert_int_equal(wt_value(inst, "call_indirect", WT_ARGS(wt_i32(0))), 1);
    assert_int_equal(wt_call(inst, "call_indirect", WT_ARGS(wt_i32(1)), NULL),
                     PVM_TRAP_NULL_REFERENCE);
    assert_int_equal(wt_call(inst, "call_indirect", WT_ARGS(wt_i32(2)), NULL),
                     PVM_TRAP_UNDEFINED_ELEMENT);
    assert_int_equal(wt_call(inst, "table_get", WT_ARGS(wt_i32(2)), NULL), PVM_TRAP_TABLE_OOB);
    assert_int_equal(wt_call(inst, "bad_type", WT_NOARGS, NULL), PVM_TRAP_BAD_SIGNATURE);
}

/* Unbounded recursion exhausts the VM stack: a trap, in function "deep". */
static void deep_recursion_traps(void **state)
{
    pvm_wasm_instance *inst = wt_instance(*state, "traps");
    assert_int_equal(wt_call(inst, "deep", WT_ARGS(wt_i32(0)), NULL), PVM_TRAP_STACK_OVERFLOW);
    assert_string_equal(pvm_wasm_trap_function(inst), "deep");
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(data_segments_and_host_functions),
        T(globals_imported_and_defined),
        T(call_indirect_checks_index_null_and_type),
        T(multi_value_results_and_block_parameters),
        T(br_table_and_typed_select),
        T(memory_grows_up_to_its_maximum),
        T(bulk_memory_operations),
        T(table_operations),
        T(sign_extension_and_saturating_conversions),
        T(arguments_and_results_past_the_registers),
        T(recursion),
        T(traps_of_arithmetic),
        T(memory_accesses_trap_at_every_edge),
        T(traps_of_tables_and_calls),
        T(deep_recursion_traps),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
