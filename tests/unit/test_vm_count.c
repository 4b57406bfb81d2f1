/*
 * test_vm_count.c - the counting build (PULLEY_COUNT): exact execution
 * counts of every instruction and exact counts of every taken transfer, on
 * small functions whose trip counts are known.  Built twice: against
 * pulley_vm_counted (test_vm_count), and against pulley_vm
 * (test_vm_count_plain), where the count API must report nothing (unless
 * that build was configured with -DPULLEY_COUNT=ON).
 */
#include "test_vm_util.h"

enum { N = 5 }; /* the loop's trip count */

/* leaf: x1 += x5 (1); ret. */
static const tvm_insn leaf[] = {
    INS(xadd64, 1, 1, 5),
    INS(ret),
};

/* main: for (i = 0; i < N; i++) { leaf(); if (i is even) x1++; }
 * returns x1 = N + ceil(N / 2). */
static const tvm_insn loop[] = {
    /*  0 */ INS(push_frame),
    /*  1 */ INSI(xconst8, N, 0),
    /*  2 */ INSI(xconst8, 0, 2),
    /*  3 */ INSI(xconst8, 1, 5),
    /*  4 */ INSI(xconst8, 0, 1),
    /*  5 */ INS(xlt64_s, 4, 2, 0),     /* loop head: N + 1 times */
    /*  6 */ INSI(br_if_not, 7, 4),     /* -> 13, taken once */
    /*  7 */ INSI(call, 0),             /* leaf: N times */
    /*  8 */ INS(xband64, 6, 2, 5),
    /*  9 */ INST(6, 1, 2),             /* -> 10 when even, -> 11 when odd */
    /* 10 */ INS(xadd64, 1, 1, 5),
    /* 11 */ INS(xadd64, 2, 2, 5),
    /* 12 */ INSI(jump, -7),            /* back edge -> 5, N times */
    /* 13 */ INS(pop_frame),
    /* 14 */ INS(xmov, 0, 1),
    /* 15 */ INS(ret),
};

/* Times instruction i of `loop` runs in one call. */
static uint64_t loop_runs(size_t i)
{
    if (i == 5 || i == 6)
        return N + 1;
    if (i == 10)
        return (N + 1) / 2;
    if (i >= 7 && i <= 12)
        return N;
    return 1;
}

typedef struct edge {
    uint32_t from, to;
    uint64_t count;
} edge;

/* The count of edge (from, to) in the VM's table (0: absent), checking
 * that no edge appears twice. */
static uint64_t edge_count(const pvm_vm *vm, uint32_t from, uint32_t to)
{
    uint64_t found = 0;
    int seen = 0;
    pvm_edge_count e;
    for (size_t it = 0; pvm_vm_edge_next(vm, &it, &e);)
        if (e.from == from && e.to == to) {
            assert_int_equal(seen, 0);
            seen = 1;
            found = e.count;
        }
    return found;
}

static size_t edge_total(const pvm_vm *vm)
{
    size_t n = 0;
    pvm_edge_count e;
    for (size_t it = 0; pvm_vm_edge_next(vm, &it, &e);) {
        assert_true(e.count > 0);
        n++;
    }
    return n;
}

static void test_loop_counts(void **state)
{
    (void)state;
    pvm_module *m = tvm_module();
    uint32_t fleaf = tvm_add(m, "leaf", leaf, COUNT_OF(leaf));
    uint32_t fmain = tvm_add_typed(m, "main", "", "l", loop, COUNT_OF(loop));
    pvm_vm *vm = tvm_vm(m);
    size_t n;
    if (!pvm_built_with_count()) {
        assert_int_equal(pvm_vm_call(vm, fmain), PVM_TRAP_NONE);
        assert_null(pvm_vm_exec_counts(vm, &n));
        assert_int_equal(n, 0);
        assert_int_equal(edge_total(vm), 0);
        pvm_vm_free(vm);
        pvm_module_free(m);
        return; /* the plain build: the count API reports nothing */
    }
    uint32_t base = m->funcs[fmain].offset, lbase = m->funcs[fleaf].offset;
#define AT(i) (base + tvm_offset(loop, (i)))
    for (uint64_t calls = 1; calls <= 2; calls++) { /* counts add up over calls */
        assert_int_equal(pvm_vm_call(vm, fmain), PVM_TRAP_NONE);
        assert_int_equal(vm->x[0], N + (N + 1) / 2);
        const uint64_t *c = pvm_vm_exec_counts(vm, &n);
        assert_non_null(c);
        assert_int_equal(n, m->code_size);
        /* every instruction start exact, every other byte 0 */
        uint64_t want[4096] = {0};
        assert_true(m->code_size <= COUNT_OF(want));
        for (size_t i = 0; i < COUNT_OF(loop); i++)
            want[AT(i)] = calls * loop_runs(i);
        for (size_t i = 0; i < COUNT_OF(leaf); i++)
            want[lbase + tvm_offset(leaf, i)] = calls * N;
        for (size_t off = 0; off < n; off++)
            if (c[off] != want[off])
                fail_msg("offset %zu ran %llu times, expected %llu", off,
                         (unsigned long long)c[off], (unsigned long long)want[off]);
        /* the taken transfers, and nothing else (falling through is none;
         * the return to the embedder is none) */
        assert_int_equal(edge_count(vm, AT(12), AT(5)), calls * N);         /* back edge */
        assert_int_equal(edge_count(vm, AT(6), AT(13)), calls * 1);         /* loop exit */
        assert_int_equal(edge_count(vm, AT(7), lbase), calls * N);          /* call */
        assert_int_equal(edge_count(vm, lbase + tvm_offset(leaf, 1), AT(8)), /* ret */
                         calls * N);
        assert_int_equal(edge_count(vm, AT(9), AT(10)), calls * ((N + 1) / 2)); /* br_table */
        assert_int_equal(edge_count(vm, AT(9), AT(11)), calls * (N / 2));
        assert_int_equal(edge_total(vm), 6);
        assert_int_equal(pvm_vm_edges_lost(vm), 0);
    }
#undef AT
    pvm_vm_free(vm);
    pvm_module_free(m);
}

/* Many distinct edges: the table grows past its first size, and a jump to
 * the next instruction is a taken transfer all the same. */
enum { NJUMPS = 1000 };

static void test_many_edges(void **state)
{
    (void)state;
    if (!pvm_built_with_count())
        return;
    static tvm_insn code[NJUMPS + 1];
    for (size_t i = 0; i < NJUMPS; i++)
        code[i] = (tvm_insn)INSI(jump, 1);
    code[NJUMPS] = (tvm_insn)INS(ret);
    pvm_module *m = tvm_module();
    uint32_t f = tvm_add(m, "jumps", code, COUNT_OF(code));
    pvm_vm *vm = tvm_vm(m);
    for (int calls = 1; calls <= 3; calls++) {
        assert_int_equal(pvm_vm_call(vm, f), PVM_TRAP_NONE);
        size_t n;
        const uint64_t *c = pvm_vm_exec_counts(vm, &n);
        uint32_t base = m->funcs[f].offset;
        for (size_t i = 0; i <= NJUMPS; i++)
            assert_int_equal(c[base + tvm_offset(code, i)], calls);
        assert_int_equal(edge_total(vm), NJUMPS);
        pvm_edge_count e;
        for (size_t it = 0; pvm_vm_edge_next(vm, &it, &e);) {
            assert_int_equal(e.count, calls);
            assert_int_equal(e.to - e.from, tvm_offset(code, 1));
        }
        for (size_t i = 0; i < NJUMPS; i += 97)
            assert_int_equal(edge_count(vm, base + tvm_offset(code, i),
                                        base + tvm_offset(code, i + 1)),
                             calls);
    }
    assert_int_equal(pvm_vm_edges_lost(vm), 0);
    pvm_vm_free(vm);
    pvm_module_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loop_counts),
        cmocka_unit_test(test_many_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
