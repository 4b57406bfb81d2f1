/*
 * test_tracer.c - the PULLEY_TRACE tracer (linked against pulley_vm_traced):
 * each executed instruction appears as "function+offset: disassembly",
 * followed by the registers it changed and their new values, and the
 * global or table entry it changed.
 */
#include "test_vm_util.h"

#include <stdio.h>

/* Run function 0 of vm's module with tracing into a temporary file; returns
 * the trap kind and fills `out` with the trace. */
static pvm_trap_kind trace_vm(pvm_vm *vm, char *out, size_t cap)
{
    vm->trace_out = tmpfile();
    assert_non_null(vm->trace_out);
    pvm_trap_kind kind = pvm_vm_call(vm, 0);
    rewind(vm->trace_out);
    size_t len = fread(out, 1, cap - 1, vm->trace_out);
    out[len] = 0;
    fclose(vm->trace_out);
    return kind;
}

/* The same for a module holding just `code`. */
static pvm_trap_kind run_traced(const tvm_insn *code, size_t n, char *out, size_t cap)
{
    pvm_module *m = tvm_module();
    tvm_add(m, "main", code, n);
    pvm_vm *vm = tvm_vm(m);
    pvm_trap_kind kind = trace_vm(vm, out, cap);
    pvm_vm_free(vm);
    pvm_module_free(m);
    return kind;
}

static void test_built_with_trace(void **state)
{
    (void)state;
    assert_int_equal(pvm_built_with_trace(), 1);
}

static void test_three_instructions(void **state)
{
    (void)state;
    static const tvm_insn code[] = {
        INSI(xconst8, 5, 0),  /* +0000, 3 bytes */
        INS(xadd64, 1, 0, 0), /* +0003, 3 bytes */
        INS(ret),             /* +0006 */
    };
    char trace[1024];
    assert_int_equal(run_traced(code, COUNT_OF(code), trace, sizeof trace), PVM_TRAP_NONE);
    assert_string_equal(trace,
                        "main+0000: xconst8 x0, 5\n"
                        "    x0 = 0x5 (5)\n"
                        "main+0003: xadd64 x1, x0, x0\n"
                        "    x1 = 0xa (10)\n"
                        "main+0007: ret\n");
}

static void test_float_registers_stack_and_traps(void **state)
{
    (void)state;
    static const tvm_insn code[] = {
        INSI(fconst64, 0x3ff8000000000000, 2), /* f2 = 1.5 */
        INSI(fconst32, 0xc0200000, 3),         /* f3 = -2.5f */
        INS(xpush, 0),
        INSI(trap, PVM_TRAP_UNREACHABLE),
    };
    char trace[1024];
    assert_int_equal(run_traced(code, COUNT_OF(code), trace, sizeof trace),
                     PVM_TRAP_UNREACHABLE);
    assert_string_equal(trace,
                        "main+0000: fconst64 f2, 1.5\n"
                        "    f2 = 0x3ff8000000000000 (f64 1.5)\n"
                        "main+000a: fconst32 f3, -2.5\n"
                        "    f3 = 0xc0200000 (f32 -2.5)\n"
                        "main+0010: xpush x0\n"
                        "    sp = 0xff8 (4088)\n"
                        "main+0012: trap unreachable\n"
                        "    trap: unreachable\n");
}

static void test_globals_tables_and_references(void **state)
{
    (void)state;
    static const tvm_insn code[] = {
        INSI(xconst8, 7, 1),          /* +0000, 3 bytes */
        INSI(xglobal_set, 0, 1),      /* +0003, 6 bytes */
        INSI(xconst8, 2, 2),          /* +0009 */
        INSI(table_grow, 0, 0, 1, 2), /* +000c, 9 bytes */
        INSI(xconst8, 1, 3),          /* +0015 */
        INSI(table_set, 0, 3, 2),     /* +0018 */
        INSI(func_ref, 0, 4),         /* +0021, 6 bytes */
        INSI(sigcheck, 0, 4),         /* +0027 */
        INS(ret),                     /* +002d */
    };
    pvm_module *m = tvm_module();
    tvm_add(m, "main", code, COUNT_OF(code));
    assert_int_equal(pvm_module_add_type(m, "", "", NULL), 0);
    m->nglobals = 1;
    m->ntables = 1;
    pvm_vm *vm = tvm_vm(m);
    pvm_table *t = pvm_table_new(1, 4, 0, NULL);
    assert_non_null(t);
    assert_int_equal(pvm_vm_bind_table(vm, 0, t), 0);
    pvm_table_release(t);
    char trace[1024];
    assert_int_equal(trace_vm(vm, trace, sizeof trace), PVM_TRAP_NONE);
    assert_string_equal(trace,
                        "main+0000: xconst8 x1, 7\n"
                        "    x1 = 0x7 (7)\n"
                        "main+0003: xglobal_set x1, #0\n"
                        "    global #0 = 0x7 (7)\n"
                        "main+0009: xconst8 x2, 2\n"
                        "    x2 = 0x2 (2)\n"
                        "main+000c: table_grow x0, x1, x2, #0\n"
                        "    x0 = 0x1 (1)\n"
                        "    table #0 size = 3\n"
                        "main+0016: xconst8 x3, 1\n"
                        "    x3 = 0x1 (1)\n"
                        "main+0019: table_set x3, x2, #0\n"
                        "    table #0[1] = 0x2 (2)\n"
                        "main+0022: func_ref x4, main\n"
                        "    x4 = 0x1 (1)\n"
                        "main+0028: sigcheck x4, #0\n"
                        "main+002e: ret\n");
    pvm_vm_free(vm);
    pvm_module_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_built_with_trace),
        cmocka_unit_test(test_three_instructions),
        cmocka_unit_test(test_float_registers_stack_and_traps),
        cmocka_unit_test(test_globals_tables_and_references),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
