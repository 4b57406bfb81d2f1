/*
 * test_traps.c - every trap the VM raises, and where it says it happened.
 *
 * A trap stops the VM cleanly: pvm_vm_call returns the kind, vm->trap_func
 * and vm->trap_offset name the faulting instruction (function index, byte
 * offset in the function), and the VM can be called again.  Programs here
 * run as function 1 "main"; function 0 "divide" (x0 = u32 x0 / u32 x1)
 * gives faults in a callee.  Each module imports four host functions.
 * The edges of the data space and of tables are tried for every access,
 * and memories and globals shared by two VMs are seen by both.
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

/* A module with "divide" (i32 i32 -> i32) and `main`, type #0 i64 -> i64,
 * one table (empty), and a VM for it. */
static pvm_vm *load(pvm_module **m, const tvm_insn *main_code, size_t n)
{
    *m = tvm_module();
    tvm_add_typed(*m, "divide", "ii", "i", divide, COUNT_OF(divide));
    assert_int_equal(pvm_module_add_type(*m, "l", "l", NULL), 0);
    (*m)->ntables = 1;
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
    TRAPS("load past the heap", HEAP_OOB, 2, INS(heap_base, 1),
          INSI(xload8_u, TVM_HEAP - 1, 0, 1), INSI(xload8_u, TVM_HEAP, 0, 1), INS(ret)),
    TRAPS("store below address 0", MEMORY_FAULT, 1, INSI(xconst8, 0, 1),
          INSI(xstore32, -1, 1, 1), INS(ret)),
    TRAPS("stack_alloc beyond the stack", STACK_OVERFLOW, 0, INSI(stack_alloc, TVM_STACK + 1),
          INS(ret)),
    TRAPS("stack_alloc_zero beyond the stack", STACK_OVERFLOW, 1, INSI(stack_alloc, 8),
          INSI(stack_alloc_zero, TVM_STACK - 7), INS(ret)),
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
    TRAPS("call_indirect of null", NULL_REFERENCE, 1, INSI(xconst8, 0, 1),
          INS(call_indirect, 1), INS(ret)),
    TRAPS("call_indirect past the functions", BAD_CALL, 1, INSI(xconst8, 3, 1),
          INS(call_indirect, 1), INS(ret)),
    TRAPS("call_indirect of -1", BAD_CALL, 1, INSI(xconst8, -1, 1), INS(call_indirect, 1),
          INS(ret)),
    TRAPS("call_indirect of an unregistered host reference", BAD_CALL, 1,
          INSI(xconst64, INT64_MIN, 1), INS(call_indirect, 1), INS(ret)),
    TRAPS("sigcheck of null", NULL_REFERENCE, 1, INSI(xconst8, 0, 1), INSI(sigcheck, 0, 1),
          INS(ret)),
    TRAPS("sigcheck past the functions", BAD_CALL, 1, INSI(xconst8, 3, 1),
          INSI(sigcheck, 0, 1), INS(ret)),
    TRAPS("sigcheck of an unregistered host reference", BAD_CALL, 1,
          INSI(xconst64, INT64_MIN, 1), INSI(sigcheck, 0, 1), INS(ret)),
    TRAPS("sigcheck of a function of another type", BAD_SIGNATURE, 1, INSI(func_ref, 0, 1),
          INSI(sigcheck, 0, 1), INS(ret)),
    TRAPS("table_get of an empty table", TABLE_OOB, 1, INSI(xconst8, 0, 1),
          INSI(table_get, 0, 0, 1), INS(ret)),
    TRAPS("table_set of an empty table", TABLE_OOB, 1, INSI(xconst8, 0, 1),
          INSI(table_set, 0, 1, 1), INS(ret)),
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

/* The baseline's loads and stores: the ops with an OFF32 immediate. */
static bool is_baseline_access(unsigned op)
{
    return pvm_ops[op].name && !pvm_ops[op].macro &&
           pvm_formats[pvm_ops[op].format].imm[0] == PVM_IMM_OFF32;
}

/* Those of them that take a data-space address. */
static bool is_data_space_access(unsigned op)
{
    return is_baseline_access(op) && !is_wasm_heap_access(op);
}

/* One access tried: its base register, its offset, and whether it runs. */
typedef struct access_edge {
    const char *what;
    uint64_t base;
    int64_t imm;
    bool ok;
} access_edge;

static bool is_load(unsigned op)
{
    return strstr(pvm_ops[op].name, "load") != NULL;
}

/* Run "op [base + imm]" alone, the heap grown by `grow` bytes; returns the
 * trap kind. */
static pvm_trap_kind access(unsigned op, uint64_t base, int32_t imm, uint64_t grow)
{
    /* load x1, [x2 + imm]  or  store [x1 + imm], x2 */
    const tvm_insn code[] = {{.op = (uint16_t)op, .imm = imm, .reg = {1, 2}}, INS(ret)};
    pvm_module *m;
    pvm_vm *vm = load(&m, code, COUNT_OF(code));
    assert_int_equal(pvm_memory_grow(vm->memory, grow), TVM_HEAP);
    vm->x[is_load(op) ? 2 : 1] = base;
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
        if (!is_data_space_access(op))
            continue;
        uint64_t w = access_bytes(op);
        assert_true(w == 1 || w == 2 || w == 4 || w == 8);
        for (uint64_t grow = 0; grow <= 24; grow += 24) {
            uint64_t heap = TVM_HEAP + grow;
            uint64_t size = TVM_STACK + heap; /* the end of the data space */
            const access_edge edges[] = {
                {"address 0", 0, 0, true},
                {"the stack's last bytes", TVM_STACK - w, 0, true},
                {"from the stack's last bytes into the heap", TVM_STACK - w + 1, 0, w == 1},
                {"the heap's first bytes", TVM_STACK, 0, true},
                {"the last bytes", size - w, 0, true},
                {"one byte past the end", size - w + 1, 0, false},
                {"at the end", size, 0, false},
                {"the heap's last bytes by offset", TVM_STACK, (int64_t)(heap - w), true},
                {"one past the heap by offset", TVM_STACK, (int64_t)(heap - w + 1), false},
                {"below 0 by offset", 3, -4, false},
                {"the top of the address space", UINT64_MAX, 0, false},
                {"an address whose end wraps", UINT64_MAX - 3, 0, false},
                {"base + offset wrapping to 0", UINT64_MAX, 1, true},
                {"base + offset wrapping to the heap", UINT64_MAX, TVM_STACK + 1, true},
            };
            for (size_t i = 0; i < COUNT_OF(edges); i++) {
                pvm_trap_kind kind = access(op, edges[i].base, (int32_t)edges[i].imm, grow);
                /* Past the heap (as far as a Wasm address reaches): out of
                 * bounds; anywhere else outside the data space: a fault. */
                uint64_t past = edges[i].base + (uint64_t)edges[i].imm - TVM_STACK;
                pvm_trap_kind want = edges[i].ok ? PVM_TRAP_NONE
                                     : past < (UINT64_C(1) << 33) ? PVM_TRAP_HEAP_OOB
                                                                  : PVM_TRAP_MEMORY_FAULT;
                if (kind != want) {
                    print_error("%s, %s (heap grown by %u): %s\n", pvm_ops[op].name,
                                edges[i].what, (unsigned)grow, pvm_trap_name(kind));
                    failures++;
                }
            }
        }
    }
    assert_int_equal(failures, 0);
}

/* A Wasm heap access reads the low 32 bits of its base register as a heap
 * offset and adds its offset without wrapping: it runs iff the bytes lie in
 * the heap, and anything else is out of bounds (never a memory fault). */
static void test_wasm_heap_edges_for_every_width(void **state)
{
    (void)state;
    int failures = 0;
    const uint64_t high = UINT64_C(0xffffffff00000000);
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        if (!is_baseline_access(op) || !is_wasm_heap_access(op))
            continue;
        uint64_t w = access_bytes(op);
        assert_true(w == 1 || w == 2 || w == 4 || w == 8);
        for (uint64_t grow = 0; grow <= 24; grow += 24) {
            uint64_t heap = TVM_HEAP + grow;
            const access_edge edges[] = {
                {"address 0", 0, 0, true},
                {"the heap's last bytes", heap - w, 0, true},
                {"one byte past the end", heap - w + 1, 0, false},
                {"at the end", heap, 0, false},
                {"the heap's last bytes by offset", 0, (int64_t)(heap - w), true},
                {"one past the heap by offset", 1, (int64_t)(heap - w), false},
                {"upper bits of the base ignored", high | (heap - w), 0, true},
                {"upper bits ignored, past the end", high | (heap - w + 1), 0, false},
                {"the largest address", 0xffffffff, 0, false},
                {"address + offset past 2^32, no wrap", 0xffffffff, 1, false},
                {"the largest address and offset", 0xffffffff, INT32_MAX, false},
                {"a negative offset (never translated)", 3, -3, true},
                {"address + offset below 0", 2, -3, false},
            };
            for (size_t i = 0; i < COUNT_OF(edges); i++) {
                pvm_trap_kind kind = access(op, edges[i].base, (int32_t)edges[i].imm, grow);
                if (kind != (edges[i].ok ? PVM_TRAP_NONE : PVM_TRAP_HEAP_OOB)) {
                    print_error("%s, %s (heap grown by %u): %s\n", pvm_ops[op].name,
                                edges[i].what, (unsigned)grow, pvm_trap_name(kind));
                    failures++;
                }
            }
        }
    }
    assert_int_equal(failures, 0);
}

/* Heaps smaller than the widest access, and every start in them: an access
 * runs iff it ends within the heap (the one-compare fast path admits none
 * of these; the exact check behind it decides). */
static void test_accesses_to_a_heap_of_fewer_than_8_bytes(void **state)
{
    (void)state;
    int failures = 0;
    for (uint64_t heap = 0; heap <= 9; heap++) {
        for (unsigned op = 0; op < PVM_OP_END; op++) {
            if (!is_baseline_access(op))
                continue;
            uint64_t w = access_bytes(op);
            for (uint64_t at = 0; at <= heap + 1; at++) {
                const tvm_insn code[] = {{.op = (uint16_t)op, .imm = 0, .reg = {1, 2}},
                                         INS(ret)};
                pvm_module *m = tvm_module();
                m->heap_min = heap;
                tvm_add(m, "main", code, COUNT_OF(code));
                pvm_vm *vm = tvm_vm(m);
                vm->x[is_load(op) ? 2 : 1] = is_wasm_heap_access(op) ? at : TVM_STACK + at;
                pvm_trap_kind kind = pvm_vm_call(vm, 0);
                pvm_trap_kind want = at + w <= heap ? PVM_TRAP_NONE : PVM_TRAP_HEAP_OOB;
                if (kind != want) {
                    print_error("%s at heap byte %u of %u: %s\n", pvm_ops[op].name,
                                (unsigned)at, (unsigned)heap, pvm_trap_name(kind));
                    failures++;
                }
                pvm_vm_free(vm);
                pvm_module_free(m);
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

/* ---- the edges of tables ---------------------------------------------- */

/* table_get or table_set of entry `index` of a table of `size` entries
 * (grown to it from 1 when `grown`); returns the trap kind. */
static pvm_trap_kind table_access(uint16_t op, uint32_t size, bool grown, uint64_t index)
{
    /* table_get x2, x1, #0  or  table_set x1, x2, #0 */
    const tvm_insn code[] = {{.op = op, .reg = {op == PVM_OP_table_get ? 2 : 1,
                                                op == PVM_OP_table_get ? 1 : 2}},
                             INS(ret)};
    pvm_module *m;
    pvm_vm *vm = load(&m, code, COUNT_OF(code));
    pvm_table *t = pvm_table_new(grown ? 1 : size, size, 0, NULL);
    assert_non_null(t);
    if (grown)
        assert_int_equal(pvm_table_grow(t, size - 1, 0), 1);
    assert_int_equal(pvm_vm_bind_table(vm, 0, t), 0);
    pvm_table_release(t);
    vm->x[1] = index;
    vm->x[2] = 42;
    pvm_trap_kind kind = pvm_vm_call(vm, 1);
    assert_true(kind == PVM_TRAP_NONE || (vm->trap_func == 1 && vm->trap_offset == 0));
    if (kind == PVM_TRAP_NONE)
        assert_int_equal(op == PVM_OP_table_get ? vm->x[2] : t->elems[(uint32_t)index],
                         op == PVM_OP_table_get ? 0 : 42);
    pvm_vm_free(vm);
    pvm_module_free(m);
    return kind;
}

static void test_table_edges_for_get_and_set(void **state)
{
    (void)state;
    const uint16_t ops[] = {PVM_OP_table_get, PVM_OP_table_set};
    int failures = 0;
    for (size_t o = 0; o < COUNT_OF(ops); o++) {
        for (uint32_t size = 1; size <= 5; size += 4) {
            for (int grown = 0; grown <= 1; grown++) {
                const struct {
                    const char *what;
                    uint64_t index;
                    bool ok;
                } edges[] = {
                    {"entry 0", 0, true},
                    {"the last entry", size - 1, true},
                    {"at the size", size, false},
                    {"u32 -1", UINT32_MAX, false},
                    {"the upper half ignored", UINT64_C(0xffffffff00000000) | (size - 1), true},
                    {"the upper half ignored, at the size", UINT64_C(1) << 32 | size, false},
                };
                for (size_t i = 0; i < COUNT_OF(edges); i++) {
                    pvm_trap_kind kind = table_access(ops[o], size, grown, edges[i].index);
                    if (kind != (edges[i].ok ? PVM_TRAP_NONE : PVM_TRAP_TABLE_OOB)) {
                        print_error("%s, %s of %u entries%s: %s\n", pvm_ops[ops[o]].name,
                                    edges[i].what, size, grown ? " (grown)" : "",
                                    pvm_trap_name(kind));
                        failures++;
                    }
                }
            }
        }
    }
    assert_int_equal(failures, 0);
}

/* ---- objects shared by two VMs ---------------------------------------- */

/* A VM for a module of one function, main, with `nglobals` globals. */
static pvm_vm *vm_with_globals(pvm_module **m, const tvm_insn *code, size_t n,
                               uint32_t nglobals)
{
    *m = tvm_module();
    tvm_add(*m, "main", code, n);
    (*m)->nglobals = nglobals;
    return tvm_vm(*m);
}

static void test_a_global_bound_into_two_vms_is_one_cell(void **state)
{
    (void)state;
    /* A: global #1 = x1;  B: x0 = global #0;  both bound to one cell. */
    const tvm_insn set[] = {INSI(xglobal_set, 1, 1), INS(ret)};
    const tvm_insn get[] = {INSI(xglobal_get, 0, 0), INS(ret)};
    pvm_module *ma, *mb;
    pvm_vm *a = vm_with_globals(&ma, set, COUNT_OF(set), 2);
    pvm_vm *b = vm_with_globals(&mb, get, COUNT_OF(get), 1);
    pvm_global *g = pvm_global_new(5, NULL);
    assert_non_null(g);
    assert_int_equal(pvm_vm_bind_global(a, 1, g), 0);
    assert_int_equal(pvm_vm_bind_global(b, 0, g), 0);
    assert_int_equal(pvm_vm_bind_global(b, 1, g), -1); /* b has one global */
    assert_int_equal(g->refs, 3);

    assert_int_equal(pvm_vm_call(b, 0), PVM_TRAP_NONE);
    assert_int_equal(b->x[0], 5);
    a->x[1] = UINT64_C(0x8000000000000001);
    assert_int_equal(pvm_vm_call(a, 0), PVM_TRAP_NONE);
    assert_int_equal(pvm_vm_call(b, 0), PVM_TRAP_NONE);
    assert_int_equal(b->x[0], UINT64_C(0x8000000000000001));

    pvm_vm_free(a);
    assert_int_equal(g->refs, 2);
    pvm_vm_free(b);
    assert_int_equal(g->refs, 1);
    pvm_global_release(g);
    pvm_module_free(ma);
    pvm_module_free(mb);
}

/* main of a VM on a shared memory: x1 is a heap offset, x2 a command:
 *   0: store x3 at heap[x1] (8 bytes)
 *   1: x0 = heap[x1] (8 bytes), after bcheck32
 *   2: grow the heap by x3 bytes; x0 = the old size
 *   3: x0 = heap size                                                   */
static const tvm_insn shared_heap_code[] = {
    INS(heap_base, 4), INS(xadd64, 4, 4, 1),
    INST(2, 1, 3, 6, 8),
    INSI(xstore64, 0, 4, 3), INS(ret),
    INSI(bcheck32, 8, 1), INSI(xload64, 0, 0, 4), INS(ret),
    INS(heap_grow, 0, 3), INS(ret),
    INS(heap_size, 0), INS(ret),
};

static pvm_vm *shared_heap_vm(pvm_module **m, pvm_memory *mem)
{
    *m = tvm_module();
    tvm_add(*m, "divide", divide, COUNT_OF(divide));
    tvm_add(*m, "main", shared_heap_code, COUNT_OF(shared_heap_code));
    pvm_error err;
    if (pvm_verify_module(*m, &err) != 0)
        fail_msg("%s", err.msg);
    pvm_vm *vm = pvm_vm_new(*m, &(pvm_vm_config){.stack_size = TVM_STACK, .memory = mem},
                            &err);
    if (!vm)
        fail_msg("%s", err.msg);
    return vm;
}

static pvm_trap_kind heap_command(pvm_vm *vm, uint64_t cmd, uint64_t offset, uint64_t value)
{
    vm->x[1] = offset;
    vm->x[2] = cmd;
    vm->x[3] = value;
    return pvm_vm_call(vm, 1);
}

static void test_a_memory_shared_by_two_vms_is_one_heap(void **state)
{
    (void)state;
    pvm_memory *mem = pvm_memory_new(64, 1 << 20, NULL);
    assert_non_null(mem);
    pvm_module *ma, *mb;
    pvm_vm *a = shared_heap_vm(&ma, mem);
    pvm_vm *b = shared_heap_vm(&mb, mem);
    pvm_memory_release(mem);
    assert_int_equal(mem->refs, 2);

    /* A store by one is seen by the other. */
    assert_int_equal(heap_command(a, 0, 56, 0x1122334455667788), PVM_TRAP_NONE);
    assert_int_equal(heap_command(b, 1, 56, 0), PVM_TRAP_NONE);
    assert_int_equal(b->x[0], 0x1122334455667788);

    /* A grow by one is seen by the other's bcheck32, loads and heap_size. */
    assert_int_equal(heap_command(b, 1, 64, 0), PVM_TRAP_HEAP_OOB);
    assert_int_equal(heap_command(a, 2, 0, 1 << 19), PVM_TRAP_NONE);
    assert_int_equal(a->x[0], 64);
    assert_int_equal(heap_command(b, 3, 0, 0), PVM_TRAP_NONE);
    assert_int_equal(b->x[0], 64 + (1 << 19));
    assert_int_equal(heap_command(a, 0, (1 << 19) + 56, 42), PVM_TRAP_NONE);
    assert_int_equal(heap_command(b, 1, (1 << 19) + 56, 0), PVM_TRAP_NONE);
    assert_int_equal(b->x[0], 42);
    assert_int_equal(heap_command(b, 1, (1 << 19) + 57, 0), PVM_TRAP_HEAP_OOB);

    pvm_vm_free(a);
    assert_int_equal(mem->refs, 1);
    assert_int_equal(heap_command(b, 1, 56, 0), PVM_TRAP_NONE);
    pvm_vm_free(b);
    pvm_module_free(ma);
    pvm_module_free(mb);
}

/* A host function of VM a that grows the shared heap through VM b (ctx),
 * far enough to move its bytes. */
static pvm_trap_kind grow_through_the_other_vm(pvm_vm *a, void *b)
{
    (void)a;
    return heap_command(b, 2, 0, 1 << 20);
}

static void test_a_host_call_growing_a_shared_memory_is_seen_at_once(void **state)
{
    (void)state;
    /* main: call the host (the heap grows), then store and load at x1, past
     * the old end: with stale heap pointers these would trap or overrun. */
    const tvm_insn code[] = {
        INSI(call_host, 0), INS(heap_base, 4), INS(xadd64, 4, 4, 1),
        INSI(bcheck32, 8, 1), INSI(xstore64, 0, 4, 3), INSI(xload64, 0, 0, 4), INS(ret),
    };
    pvm_memory *mem = pvm_memory_new(64, 2 << 20, NULL);
    assert_non_null(mem);
    pvm_module *ma = tvm_module(), *mb;
    tvm_add(ma, "main", code, COUNT_OF(code));
    assert_int_equal(pvm_module_add_import(ma, "grow", NULL), 0);
    pvm_error err;
    assert_int_equal(pvm_verify_module(ma, &err), 0);
    pvm_vm *a = pvm_vm_new(ma, &(pvm_vm_config){.stack_size = TVM_STACK, .memory = mem},
                           &err);
    assert_non_null(a);
    pvm_vm *b = shared_heap_vm(&mb, mem);
    pvm_memory_release(mem);
    pvm_vm_bind_host(a, "grow", grow_through_the_other_vm, b);

    a->x[1] = (1 << 20) + 8;
    a->x[3] = 0x5555;
    assert_int_equal(pvm_vm_call(a, 0), PVM_TRAP_NONE);
    assert_int_equal(a->x[0], 0x5555);
    assert_int_equal(mem->size, 64 + (1 << 20));
    pvm_vm_free(a);
    pvm_vm_free(b);
    pvm_module_free(ma);
    pvm_module_free(mb);
}

/* ---- growing memories and tables -------------------------------------- */

static void test_memories_and_tables_grow_within_their_limits(void **state)
{
    (void)state;
    pvm_error err;
    pvm_memory *mem = pvm_memory_new(16, 64, &err);
    assert_non_null(mem);
    assert_int_equal(pvm_memory_grow(mem, 0), 16);
    assert_int_equal(pvm_memory_grow(mem, 48), 16);
    assert_int_equal(mem->bytes[63], 0);
    assert_int_equal(pvm_memory_grow(mem, 1), UINT64_MAX);
    assert_int_equal(pvm_memory_grow(mem, UINT64_MAX), UINT64_MAX);
    assert_int_equal(mem->size, 64);
    pvm_memory_release(mem);
    assert_null(pvm_memory_new(2, 1, &err));
    assert_string_equal(err.msg, "memory limits 2..1 are not within 0..8589934592");
    assert_null(pvm_memory_new(0, PVM_MAX_HEAP + 1, &err));

    pvm_table *t = pvm_table_new(1, 3, 9, &err);
    assert_non_null(t);
    assert_int_equal(pvm_table_grow(t, 0, 0), 1);
    assert_int_equal(pvm_table_grow(t, 2, 8), 1);
    assert_int_equal(t->elems[0], 9);
    assert_int_equal(t->elems[2], 8);
    assert_int_equal(pvm_table_grow(t, 1, 0), UINT32_MAX);
    assert_int_equal(pvm_table_grow(t, UINT32_MAX, 0), UINT32_MAX);
    assert_int_equal(t->size, 3);
    pvm_table_release(t);
    /* However large the maximum, no table grows past PVM_MAX_TABLE_SIZE. */
    t = pvm_table_new(16, UINT32_MAX, 0, &err);
    assert_non_null(t);
    assert_int_equal(pvm_table_grow(t, PVM_MAX_TABLE_SIZE - 15, 0), UINT32_MAX);
    assert_int_equal(pvm_table_grow(t, UINT32_MAX - 16, 0), UINT32_MAX);
    assert_int_equal(t->size, 16);
    pvm_table_release(t);
    assert_null(pvm_table_new(2, 1, 0, &err));
    assert_string_equal(err.msg, "table limits 2..1 exceed 16777216 entries");
    assert_null(pvm_table_new(PVM_MAX_TABLE_SIZE + 1, UINT32_MAX, 0, &err));
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
        cmocka_unit_test(test_wasm_heap_edges_for_every_width),
        cmocka_unit_test(test_accesses_to_a_heap_of_fewer_than_8_bytes),
        cmocka_unit_test(test_bcheck32_edges),
        cmocka_unit_test(test_table_edges_for_get_and_set),
        cmocka_unit_test(test_a_global_bound_into_two_vms_is_one_cell),
        cmocka_unit_test(test_a_memory_shared_by_two_vms_is_one_heap),
        cmocka_unit_test(test_a_host_call_growing_a_shared_memory_is_seen_at_once),
        cmocka_unit_test(test_memories_and_tables_grow_within_their_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
