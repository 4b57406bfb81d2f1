/*
 * test_traps.c - every trap the VM raises, and where it says it happened.
 *
 * A trap stops the VM cleanly: pvm_vm_call returns the kind, vm->trap_func
 * and vm->trap_offset name the faulting instruction (function index, byte
 * offset in the function), and the VM can be called again.  Programs here
 * run as function 1 "main"; function 0 "divide" (x0 = u32 x0 / u32 x1)
 * gives faults in a callee.  Each module imports four host functions.
 */
#include "test_vm_util.h"

/* ---- host functions --------------------------------------------------- */

static pvm_trap_kind host_exit(pvm_vm *vm, void *ctx)
{
    (void)ctx;
    vm->exit_status = 3;
    return PVM_TRAP_EXIT;
}

static pvm_trap_kind host_interrupt(pvm_vm *vm, void *ctx)
{
    (void)vm, (void)ctx;
    return PVM_TRAP_INTERRUPTED;
}

static pvm_trap_kind host_bogus(pvm_vm *vm, void *ctx)
{
    (void)vm, (void)ctx;
    return (pvm_trap_kind)1000; /* not a trap kind: a host error */
}

enum { HOST_UNBOUND, HOST_EXIT, HOST_INTERRUPT, HOST_BOGUS };

static const tvm_insn divide[] = {INS(xdiv32_u, 0, 0, 1), INS(ret)};

/* A module with "divide" and `main`, and a VM for it. */
static pvm_vm *load(pvm_module **m, const tvm_insn *main_code, size_t n)
{
    *m = tvm_module();
    tvm_add(*m, "divide", divide, COUNT_OF(divide));
    tvm_add(*m, "main", main_code, n);
    static const char *const imports[] = {"unbound", "exit", "interrupt", "bogus"};
    for (size_t i = 0; i < COUNT_OF(imports); i++)
        assert_int_equal(pvm_module_add_import(*m, imports[i], NULL), (int)i);
    pvm_vm *vm = tvm_vm(*m);
    pvm_vm_bind_host(vm, "exit", host_exit, NULL);
    pvm_vm_bind_host(vm, "interrupt", host_interrupt, NULL);
    pvm_vm_bind_host(vm, "bogus", host_bogus, NULL);
    return vm;
}

/* Did the last call trap with `kind` at function func, offset off?  Says
 * why not (with `what`) and returns 1 if not. */
static int check_trap(const pvm_vm *vm, pvm_trap_kind got, pvm_trap_kind kind,
                      uint32_t func, uint32_t off, const char *what)
{
    if (got == kind && vm->trap == kind && vm->trap_func == func && vm->trap_offset == off)
        return 0;
    print_error("%s: trap %s at function %u offset %u, expected %s at %u offset %u\n", what,
                pvm_trap_name(got), vm->trap_func, vm->trap_offset, pvm_trap_name(kind),
                func, off);
    return 1;
}

/* ---- one program per way to trap -------------------------------------- */

typedef struct trap_case {
    const char *what;
    pvm_trap_kind trap;
    size_t fault;         /* index of the faulting instruction of main */
    size_t n;
    tvm_insn code[8];
} trap_case;

#define TRAPS(what, trap, fault, ...)                                          \
    {what, PVM_TRAP_##trap, fault, COUNT_OF(((tvm_insn[]){__VA_ARGS__})),      \
     {__VA_ARGS__}}
/* Overwrite the saved lr of a frame with v, then return through it. */
#define RETURN_TO(v)                                                           \
    INS(push_frame), INS(xget_sp, 1), INSI(xconst64, v, 2),                    \
        INSI(xstore64, 8, 1, 2), INS(pop_frame), INS(ret)

static const trap_case trap_cases[] = {
    TRAPS("trap instruction", UNREACHABLE, 1, INS(nop), INSI(trap, PVM_TRAP_UNREACHABLE)),
    TRAPS("remainder by zero", DIV_BY_ZERO, 2, INSI(xconst8, 7, 1), INSI(xconst8, 0, 2),
          INS(xrem64_u, 0, 1, 2), INS(ret)),
    TRAPS("INT64_MIN / -1", INT_OVERFLOW, 2, INSI(xconst64, INT64_MIN, 1),
          INSI(xconst8, -1, 2), INS(xdiv64_s, 0, 1, 2), INS(ret)),
    TRAPS("2^31 to s32", INT_OVERFLOW, 1, INSI(fconst64, 0x41e0000000000000, 1),
          INS(x32_from_f64_s, 0, 1), INS(ret)),
    TRAPS("NaN to u64", BAD_CONVERSION, 1, INSI(fconst32, 0x7fc00000, 1),
          INS(x64_from_f32_u, 0, 1), INS(ret)),
    TRAPS("bcheck32 past the heap", HEAP_OOB, 1, INSI(xconst32, TVM_HEAP, 1),
          INSI(bcheck32, 1, 1), INS(ret)),
    TRAPS("load past the data space", MEMORY_FAULT, 2, INS(heap_base, 1),
          INSI(xload8_u, TVM_HEAP - 1, 0, 1), INSI(xload8_u, TVM_HEAP, 0, 1), INS(ret)),
    TRAPS("store below address 0", MEMORY_FAULT, 1, INSI(xconst8, 0, 1),
          INSI(xstore32, -1, 1, 1), INS(ret)),
    TRAPS("stack_alloc beyond the stack", STACK_OVERFLOW, 0, INSI(stack_alloc, TVM_STACK + 1),
          INS(ret)),
    TRAPS("xpush on a full stack", STACK_OVERFLOW, 1, INSI(stack_alloc, TVM_STACK),
          INS(xpush, 0), INS(ret)),
    TRAPS("fpush with 7 bytes left", STACK_OVERFLOW, 1, INSI(stack_alloc, TVM_STACK - 7),
          INS(fpush, 0), INS(ret)),
    TRAPS("push_frame with 8 bytes left", STACK_OVERFLOW, 1, INSI(stack_alloc, TVM_STACK - 8),
          INS(push_frame), INS(ret)),
    TRAPS("xpop on an empty stack", STACK_UNDERFLOW, 0, INS(xpop, 0), INS(ret)),
    TRAPS("fpop with 4 bytes pushed", STACK_UNDERFLOW, 1, INSI(stack_alloc, 4), INS(fpop, 0),
          INS(ret)),
    TRAPS("stack_free past the top", STACK_UNDERFLOW, 1, INSI(stack_alloc, 16),
          INSI(stack_free, 17), INS(ret)),
    TRAPS("pop_frame without a frame", STACK_UNDERFLOW, 0, INS(pop_frame), INS(ret)),
    TRAPS("pop_frame with a corrupted saved fp", STACK_UNDERFLOW, 5, INS(push_frame),
          INS(xget_sp, 1), INSI(xconst32, TVM_STACK - 15, 2), INSI(xstore64, 0, 1, 2),
          INS(pop_frame), INS(pop_frame), INS(ret)),
    TRAPS("call_indirect past the function table", BAD_CALL, 1, INSI(xconst8, 2, 1),
          INS(call_indirect, 1), INS(ret)),
    TRAPS("call_indirect to u32 -1", BAD_CALL, 1, INSI(xconst8, -1, 1), INS(call_indirect, 1),
          INS(ret)),
    TRAPS("return into the middle of an instruction", BAD_RETURN, 5, RETURN_TO(2)),
    TRAPS("return far outside the code", BAD_RETURN, 5, RETURN_TO(UINT64_MAX)),
    TRAPS("return past 4 GiB", BAD_RETURN, 5, RETURN_TO(0x100000001)),
    TRAPS("unbound host import", HOST_ERROR, 1, INS(nop), INSI(call_host, HOST_UNBOUND), INS(ret)),
    TRAPS("host returns a trap kind", INTERRUPTED, 0, INSI(call_host, HOST_INTERRUPT), INS(ret)),
    TRAPS("host returns a bad trap kind", HOST_ERROR, 0, INSI(call_host, HOST_BOGUS), INS(ret)),
};

static void test_trap_cases(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t i = 0; i < COUNT_OF(trap_cases); i++) {
        const trap_case *c = &trap_cases[i];
        pvm_module *m;
        pvm_vm *vm = load(&m, c->code, c->n);
        vm->x[0] = UINT64_C(0x5a5a);
        failures += check_trap(vm, pvm_vm_call(vm, 1), c->trap, 1,
                               tvm_offset(c->code, c->fault), c->what);
        /* A trap leaves the VM usable: divide still works. */
        vm->x[0] = 42, vm->x[1] = 6;
        if (pvm_vm_call(vm, 0) != PVM_TRAP_NONE || vm->x[0] != 7 || vm->sp != TVM_STACK) {
            print_error("%s: the VM is not usable after the trap\n", c->what);
            failures++;
        }
        pvm_vm_free(vm);
        pvm_module_free(m);
    }
    assert_int_equal(failures, 0);
}

/* ---- traps named by the table or the embedding ------------------------ */

static void test_trap_instruction_raises_every_kind(void **state)
{
    (void)state;
    int failures = 0;
    for (unsigned k = PVM_TRAP_NONE + 1; k < PVM_TRAP_COUNT; k++) {
        const tvm_insn code[] = {INSI(xconst8, 1, 0), INSI(trap, k)};
        pvm_module *m;
        pvm_vm *vm = load(&m, code, COUNT_OF(code));
        failures += check_trap(vm, pvm_vm_call(vm, 1), (pvm_trap_kind)k, 1,
                               tvm_offset(code, 1), pvm_trap_name(k));
        pvm_vm_free(vm);
        pvm_module_free(m);
    }
    assert_int_equal(failures, 0);
}

static void test_trap_in_a_callee_names_the_callee(void **state)
{
    (void)state;
    const tvm_insn code[] = {INS(push_frame), INSI(xconst8, 0, 1), INSI(call, 0),
                             INS(pop_frame), INS(ret)};
    pvm_module *m;
    pvm_vm *vm = load(&m, code, COUNT_OF(code));
    assert_int_equal(check_trap(vm, pvm_vm_call(vm, 1), PVM_TRAP_DIV_BY_ZERO, 0, 0, "callee"), 0);
    pvm_vm_free(vm);
    pvm_module_free(m);
}

static void test_exit_from_a_host_function(void **state)
{
    (void)state;
    const tvm_insn code[] = {INSI(xconst8, 1, 0), INSI(call_host, HOST_EXIT), INS(ret)};
    pvm_module *m;
    pvm_vm *vm = load(&m, code, COUNT_OF(code));
    assert_int_equal(check_trap(vm, pvm_vm_call(vm, 1), PVM_TRAP_EXIT, 1, tvm_offset(code, 1),
                                "exit"), 0);
    assert_int_equal(vm->exit_status, 3);
    pvm_vm_free(vm);
    pvm_module_free(m);
}

static void test_unbound_import_is_reported(void **state)
{
    (void)state;
    const tvm_insn code[] = {INS(ret)};
    pvm_module *m;
    pvm_error err;
    pvm_vm *vm = load(&m, code, COUNT_OF(code));
    assert_int_equal(pvm_vm_check_imports(vm, &err), -1);
    assert_non_null(strstr(err.msg, "unbound"));
    pvm_vm_free(vm);
    pvm_module_free(m);
}

static void test_call_of_a_missing_function(void **state)
{
    (void)state;
    const tvm_insn code[] = {INS(ret)};
    pvm_module *m;
    pvm_vm *vm = load(&m, code, COUNT_OF(code));
    assert_int_equal(check_trap(vm, pvm_vm_call(vm, 2), PVM_TRAP_BAD_CALL, 2, 0, "call 2"), 0);
    pvm_vm_free(vm);
    pvm_module_free(m);
}

static void test_return_one_past_the_code(void **state)
{
    (void)state;
    /* main is last in the code: lr - 1 == code size is no instruction. */
    const tvm_insn code[] = {INS(push_frame), INS(xget_sp, 1), INSI(xstore64, 8, 1, 2),
                             INS(pop_frame), INS(ret)};
    pvm_module *m;
    pvm_vm *vm = load(&m, code, COUNT_OF(code));
    vm->x[2] = m->code_size + 1;
    assert_int_equal(check_trap(vm, pvm_vm_call(vm, 1), PVM_TRAP_BAD_RETURN, 1,
                                tvm_offset(code, 4), "lr = code size + 1"), 0);
    pvm_vm_free(vm);
    pvm_module_free(m);
}

/* ---- stack overflow by recursion -------------------------------------- */

static void test_deep_recursion_overflows_the_stack(void **state)
{
    (void)state;
    /* main: push_frame; call main (function 1) */
    const tvm_insn code[] = {INS(push_frame), INSI(call, 1), INS(pop_frame), INS(ret)};
    pvm_module *m;
    pvm_vm *vm = load(&m, code, COUNT_OF(code));
    assert_int_equal(check_trap(vm, pvm_vm_call(vm, 1), PVM_TRAP_STACK_OVERFLOW, 1, 0,
                                "recursion"), 0);
    assert_int_equal(vm->sp, 0); /* TVM_STACK / 16 frames fitted */
    pvm_vm_free(vm);
    pvm_module_free(m);
}

/* ---- the edges of the data space, for every memory access ------------ */

/* Bytes accessed by a load or store: the width in its mnemonic. */
static uint64_t access_bytes(unsigned op)
{
    const char *name = pvm_ops[op].name;
    const char *p = strstr(name, "load");
    p = p ? p + 4 : strstr(name, "store") + 5;
    return (uint64_t)atoi(p) / 8;
}

/* Run "op [base + imm]" alone; returns the trap kind. */
static pvm_trap_kind access(unsigned op, uint64_t base, int32_t imm, uint64_t grow,
                            uint64_t *mem_size)
{
    /* load x1, [x2 + imm]  or  store [x1 + imm], x2 */
    bool is_load = strstr(pvm_ops[op].name, "load") != NULL;
    const tvm_insn code[] = {{.op = (uint16_t)op, .imm = imm, .reg = {1, 2}}, INS(ret)};
    pvm_module *m;
    pvm_vm *vm = load(&m, code, COUNT_OF(code));
    assert_int_equal(pvm_vm_heap_grow(vm, grow), TVM_HEAP);
    *mem_size = vm->mem_size;
    vm->x[is_load ? 2 : 1] = base;
    pvm_trap_kind kind = pvm_vm_call(vm, 1);
    assert_true(kind == PVM_TRAP_NONE || (vm->trap_func == 1 && vm->trap_offset == 0));
    pvm_vm_free(vm);
    pvm_module_free(m);
    return kind;
}

static void test_memory_edges_for_every_width(void **state)
{
    (void)state;
    int failures = 0;
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        if (!pvm_ops[op].name || pvm_formats[pvm_ops[op].format].imm != PVM_IMM_OFF32)
            continue;
        uint64_t w = access_bytes(op);
        assert_true(w == 1 || w == 2 || w == 4 || w == 8);
        for (uint64_t grow = 0; grow <= 24; grow += 24) {
            uint64_t size = TVM_STACK + TVM_HEAP + grow; /* the data space */
            uint64_t heap = TVM_HEAP + grow;
            const struct {
                const char *what;
                uint64_t base;
                int64_t imm;
                bool ok;
            } edges[] = {
                {"address 0", 0, 0, true},
                {"the last bytes", size - w, 0, true},
                {"one byte past the end", size - w + 1, 0, false},
                {"at the end", size, 0, false},
                {"the heap's last bytes by offset", TVM_STACK, (int64_t)(heap - w), true},
                {"one past the heap by offset", TVM_STACK, (int64_t)(heap - w + 1), false},
                {"below 0 by offset", 3, -4, false},
                {"the top of the address space", UINT64_MAX, 0, false},
                {"an address whose end wraps", UINT64_MAX - 3, 0, false},
                {"base + offset wrapping to 0", UINT64_MAX, 1, true},
            };
            for (size_t i = 0; i < COUNT_OF(edges); i++) {
                uint64_t mem_size;
                pvm_trap_kind kind = access(op, edges[i].base, (int32_t)edges[i].imm, grow,
                                            &mem_size);
                assert_int_equal(mem_size, size);
                if (kind != (edges[i].ok ? PVM_TRAP_NONE : PVM_TRAP_MEMORY_FAULT)) {
                    print_error("%s, %s (heap grown by %u): %s\n", pvm_ops[op].name,
                                edges[i].what, (unsigned)grow, pvm_trap_name(kind));
                    failures++;
                }
            }
        }
    }
    assert_int_equal(failures, 0);
}

static void test_bcheck32_edges(void **state)
{
    (void)state;
    const uint64_t h = TVM_HEAP;
    const struct {
        uint64_t x;
        uint32_t imm;
        bool ok;
    } edges[] = {
        {h, 0, true}, {h, 1, false}, {0, (uint32_t)h, true}, {0, (uint32_t)h + 1, false},
        {h - 1, 1, true}, {h - 1, 2, false},
        {0xffffffff, 0xffffffff, false},    /* the sum does not wrap at 32 bits */
        {UINT64_C(0xffffffff00000000) | h, 0, true}, /* only u32(x[a]) counts */
        {UINT64_C(0x100000000) | (h + 1), 0, false},
    };
    int failures = 0;
    for (size_t i = 0; i < COUNT_OF(edges); i++) {
        const tvm_insn code[] = {INSI(bcheck32, edges[i].imm, 1), INS(ret)};
        pvm_module *m;
        pvm_vm *vm = load(&m, code, COUNT_OF(code));
        vm->x[1] = edges[i].x;
        pvm_trap_kind kind = pvm_vm_call(vm, 1);
        if (kind != (edges[i].ok ? PVM_TRAP_NONE : PVM_TRAP_HEAP_OOB)) {
            print_error("bcheck32 %#llx + %u: %s\n", (unsigned long long)edges[i].x,
                        edges[i].imm, pvm_trap_name(kind));
            failures++;
        }
        pvm_vm_free(vm);
        pvm_module_free(m);
    }
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trap_cases),
        cmocka_unit_test(test_trap_instruction_raises_every_kind),
        cmocka_unit_test(test_trap_in_a_callee_names_the_callee),
        cmocka_unit_test(test_exit_from_a_host_function),
        cmocka_unit_test(test_unbound_import_is_reported),
        cmocka_unit_test(test_call_of_a_missing_function),
        cmocka_unit_test(test_return_one_past_the_code),
        cmocka_unit_test(test_deep_recursion_overflows_the_stack),
        cmocka_unit_test(test_memory_edges_for_every_width),
        cmocka_unit_test(test_bcheck32_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
