/*
 * test_tracer.c - the PULLEY_TRACE tracer (linked against pulley_vm_traced):
 * each executed instruction appears as "function+offset: disassembly",
 * followed by the registers it changed and their new values.
 */
#include "test_vm_util.h"

#include <stdio.h>

/* Run function 0 of a module holding `code` with tracing into a temporary
 * file; returns the trap kind and fills `out` with the trace. */
static pvm_trap_kind run_traced(const tvm_insn *code, size_t n, char *out, size_t cap)
{
    pvm_module *m = tvm_module();
    tvm_add(m, "main", code, n);
    pvm_vm *vm = tvm_vm(m);
    vm->trace_out = tmpfile();
    assert_non_null(vm->trace_out);
    pvm_trap_kind kind = pvm_vm_call(vm, 0);
    rewind(vm->trace_out);
    size_t len = fread(out, 1, cap - 1, vm->trace_out);
    out[len] = 0;
    fclose(vm->trace_out);
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
                        "main+0006: ret\n");
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
                        "    trap: unreachable executed\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_built_with_trace),
        cmocka_unit_test(test_three_instructions),
        cmocka_unit_test(test_float_registers_stack_and_traps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
