/*
 * test_programs.c - the whole programs of tests/programs, assembled,
 * verified and run on the VM with the builtin host functions.  Each result
 * is checked against the same computation written in C here, and the
 * printed output and exit status through the host imports.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "asm.h"
#include "host_builtins.h"
#include "insn.h"
#include "verify.h"
#include "vm.h"

/* ---- loading and running a program ---------------------------------------- */

typedef struct program {
    pvm_module *m;
    pvm_vm *vm;
    FILE *out;      /* what the program prints */
    char *text;
    size_t len;
    size_t taken;   /* bytes of text already checked */
} program;

static pvm_module *assemble_file(const char *file)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", PULLEY_TEST_PROGRAMS, file);
    pvm_error err;
    size_t size;
    uint8_t *text = pvm_read_file(path, &size, &err);
    if (!text)
        fail_msg("%s", err.msg);
    pvm_module *m = pvm_assemble(path, (const char *)text, size, &err);
    free(text);
    if (!m)
        fail_msg("%s", err.msg);
    if (pvm_verify_module(m, &err) != 0)
        fail_msg("%s: %s", path, err.msg);
    return m;
}

static program *load(const char *file)
{
    program *p = calloc(1, sizeof *p);
    assert_non_null(p);
    p->m = assemble_file(file);
    pvm_error err;
    p->vm = pvm_vm_new(p->m, NULL, &err);
    if (!p->vm)
        fail_msg("%s: %s", file, err.msg);
    p->out = open_memstream(&p->text, &p->len);
    assert_non_null(p->out);
    pulley_bind_builtins(p->vm, p->out);
    if (pvm_vm_check_imports(p->vm, &err) != 0)
        fail_msg("%s: %s", file, err.msg);
    return p;
}

static void unload(program *p)
{
    pvm_vm_free(p->vm);
    pvm_module_free(p->m);
    fclose(p->out);
    free(p->text);
    free(p);
}

static uint32_t function_index(const program *p, const char *name)
{
    int index = pvm_module_find_function(p->m, name);
    if (index < 0)
        fail_msg("no function %s", name);
    return (uint32_t)index;
}

/* Call function `name` with nargs integer arguments in x0, x1, ... */
static pvm_trap_kind call(program *p, const char *name, int nargs, ...)
{
    va_list ap;
    va_start(ap, nargs);
    for (int i = 0; i < nargs; i++)
        p->vm->x[i] = (uint64_t)va_arg(ap, int64_t);
    va_end(ap);
    return pvm_vm_call(p->vm, function_index(p, name));
}

/* Call name(args...), which must return; its first integer result. */
#define RESULT(p, name, ...)                                                   \
    (assert_int_equal(call(p, name, __VA_ARGS__), PVM_TRAP_NONE), (int64_t)(p)->vm->x[0])

/* What the program printed since the last call. */
static const char *take_output(program *p)
{
    assert_int_equal(fflush(p->out), 0);
    const char *text = p->text + p->taken;
    p->taken = p->len;
    return text;
}

static double f64_of(const program *p, unsigned reg)
{
    double d;
    memcpy(&d, &p->vm->f[reg].bits, sizeof d);
    return d;
}

static float f32_of(const program *p, unsigned reg)
{
    float f;
    uint32_t bits = (uint32_t)p->vm->f[reg].bits;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* ---- every program ---------------------------------------------------------- */

static void every_program_assembles_and_verifies(void **state)
{
    (void)state;
    DIR *dir = opendir(PULLEY_TEST_PROGRAMS);
    assert_non_null(dir);
    unsigned count = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 5, ".pasm") != 0 ||
            strncmp(e->d_name, "asm_", 4) == 0) /* the assembler's tests' files */
            continue;
        pvm_module_free(assemble_file(e->d_name));
        count++;
    }
    closedir(dir);
    assert_true(count >= 7);
}

/* ---- fib.pasm --------------------------------------------------------------- */

static int64_t fib_iterative(int64_t n)
{
    int64_t a = 0, b = 1;
    for (int64_t i = 0; i < n; i++) {
        int64_t next = a + b;
        a = b;
        b = next;
    }
    return a;
}

static void fib_matches_an_iterative_fibonacci(void **state)
{
    (void)state;
    program *p = load("fib.pasm");
    assert_int_equal(RESULT(p, "main", 0), fib_iterative(20));
    assert_int_equal(fib_iterative(20), 6765);
    for (int64_t n = 0; n <= 24; n++)
        assert_int_equal(RESULT(p, "fib", 1, n), fib_iterative(n));
    unload(p);
}

/* ---- loops.pasm ------------------------------------------------------------- */

static int64_t loops_reference(int64_t n)
{
    int64_t sum = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++)
            sum += i * j;
    return sum;
}

static void loops_sums_i_times_j(void **state)
{
    (void)state;
    program *p = load("loops.pasm");
    assert_int_equal(RESULT(p, "main", 0), loops_reference(100));
    const int64_t sizes[] = {0, 1, 2, 7, 100, 257};
    for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        assert_int_equal(RESULT(p, "loops", 1, sizes[i]), loops_reference(sizes[i]));
    unload(p);
}

/* ---- dispatch_table.pasm ---------------------------------------------------- */

static int64_t dispatch_reference(int64_t n)
{
    uint64_t acc = 1;
    for (uint64_t i = 1; i <= (uint64_t)n; i++) {
        switch (i & 3) {
        case 0: acc += i; break;
        case 1: acc -= i; break;
        case 2: acc *= i; break;
        default: acc ^= i; break;
        }
    }
    return (int64_t)acc;
}

static void dispatch_table_calls_through_function_and_jump_tables(void **state)
{
    (void)state;
    program *p = load("dispatch_table.pasm");
    assert_int_equal(call(p, "main", 0), PVM_TRAP_NONE);
    assert_int_equal(p->vm->x[0], dispatch_reference(20));
    assert_int_equal(p->vm->x[1], dispatch_reference(20));
    for (int64_t n = 0; n <= 40; n++) {
        assert_int_equal(RESULT(p, "by_index", 1, n), dispatch_reference(n));
        assert_int_equal(RESULT(p, "by_table", 1, n), dispatch_reference(n));
    }
    unload(p);
}

/* ---- trap_div.pasm ---------------------------------------------------------- */

/* Offset of the first `op` in function `name`. */
static uint32_t offset_of(const program *p, const char *name, unsigned op)
{
    const pvm_function *f = &p->m->funcs[function_index(p, name)];
    pvm_insn insn;
    for (uint32_t at = 0; at < f->size; at += insn.length) {
        assert_null(pvm_decode(p->m->code + f->offset, f->size, at, &insn));
        if (insn.op == op)
            return at;
    }
    fail_msg("no %s in %s", pvm_ops[op].name, name);
    return 0;
}

static void trap_div_traps_at_the_division_in_percent(void **state)
{
    (void)state;
    program *p = load("trap_div.pasm");
    assert_int_equal(call(p, "main", 0), PVM_TRAP_DIV_BY_ZERO);
    assert_int_equal(p->vm->trap, PVM_TRAP_DIV_BY_ZERO);
    assert_int_equal(p->vm->trap_func, function_index(p, "percent"));
    assert_int_equal(p->vm->trap_offset, offset_of(p, "percent", PVM_OP_xdiv64_s));
    assert_int_equal(p->vm->trap_offset, 7); /* as its header says */
    /* The VM runs again after a trap. */
    assert_int_equal(RESULT(p, "percent", 2, INT64_C(7), INT64_C(20)), 35);
    assert_int_equal(RESULT(p, "percent", 2, INT64_C(-3), INT64_C(4)), -75);
    unload(p);
}

/* ---- memory.pasm ------------------------------------------------------------ */

static int64_t sieve_reference(int64_t n)
{
    if (n < 3)
        return 0;
    char *composite = calloc((size_t)n, 1);
    assert_non_null(composite);
    int64_t primes = 0;
    for (int64_t i = 2; i < n; i++) {
        if (composite[i])
            continue;
        primes++;
        for (int64_t j = i * i; j < n; j += i)
            composite[j] = 1;
    }
    free(composite);
    return primes;
}

static int64_t adler32_reference(const uint8_t *bytes, size_t n)
{
    uint32_t a = 1, b = 0;
    for (size_t i = 0; i < n; i++) {
        a = (a + bytes[i]) % 65521;
        b = (b + a) % 65521;
    }
    return (int64_t)(b << 16 | a);
}

static void memory_sieve_counts_primes_and_adler32_sums_the_data(void **state)
{
    (void)state;
    program *p = load("memory.pasm");
    assert_int_equal(p->m->ndata, 1);
    const pvm_data_segment *d = &p->m->data[0];
    assert_int_equal(call(p, "main", 0), PVM_TRAP_NONE);
    assert_int_equal(p->vm->x[0], sieve_reference(1000));
    assert_int_equal(p->vm->x[1], adler32_reference(d->bytes, d->size));
    assert_int_equal(p->vm->x[1], 0x11E60398); /* Adler-32 of "Wikipedia" */

    /* 100000 grows the heap; the smaller sizes after it reuse stale flags. */
    const int64_t sizes[] = {0, 1, 2, 3, 10, 100000, 1000, 97, 98};
    for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        assert_int_equal(RESULT(p, "sieve", 1, sizes[i]), sieve_reference(sizes[i]));
    assert_int_equal(RESULT(p, "adler32", 2, INT64_C(0), INT64_C(0)), 1);
    assert_int_equal(RESULT(p, "adler32", 2, INT64_C(4), INT64_C(5)),
                     adler32_reference(d->bytes + 4, 5));

    /* Past the heap's maximum: the sieve cannot grow the heap. */
    assert_int_equal(call(p, "sieve", 1, (int64_t)p->m->heap_max), PVM_TRAP_HEAP_OOB);
    assert_int_equal(p->vm->trap_func, function_index(p, "sieve"));
    /* And bcheck32 catches a checksum over bytes beyond the heap. */
    assert_int_equal(call(p, "adler32", 2, (int64_t)p->vm->memory->size - 2, INT64_C(3)),
                     PVM_TRAP_HEAP_OOB);
    assert_int_equal(p->vm->trap_offset, offset_of(p, "adler32", PVM_OP_bcheck32));
    unload(p);
}

/* ---- float.pasm ------------------------------------------------------------- */

static double newton_reference(double a)
{
    double x = a, next = a;
    for (int steps = 100; steps > 0; steps--) {
        next = (x + a / x) * 0.5;
        if (next == x)
            break;
        x = next;
    }
    return next;
}

static double leibniz_reference(int64_t n)
{
    double sum = 0.0, sign = 1.0;
    for (int64_t k = 0; k < n; k++) {
        sum += sign / ((double)k * 2.0 + 1.0);
        sign = -sign;
    }
    return sum * 4.0;
}

static void float_computes_square_roots_and_pi(void **state)
{
    (void)state;
    program *p = load("float.pasm");
    assert_int_equal(call(p, "main", 0), PVM_TRAP_NONE);
    assert_true(f64_of(p, 0) == newton_reference(2.0));
    assert_true(fabs(f64_of(p, 0) - sqrt(2.0)) <= 2 * 2.220446049250313e-16);
    assert_true(f64_of(p, 1) == leibniz_reference(1000));
    assert_true(f32_of(p, 2) == (float)leibniz_reference(1000));
    assert_true(fabs(f64_of(p, 1) - 3.14159265358979) < 1e-3);

    const double squares[] = {9.0, 0.25, 1e10, 3.0};
    for (unsigned i = 0; i < sizeof squares / sizeof squares[0]; i++) {
        memcpy(&p->vm->f[0].bits, &squares[i], sizeof squares[i]);
        assert_int_equal(pvm_vm_call(p->vm, function_index(p, "newton")), PVM_TRAP_NONE);
        assert_true(f64_of(p, 0) == newton_reference(squares[i]));
    }

    assert_int_equal(call(p, "table", 1, INT64_C(3)), PVM_TRAP_NONE);
    char want[256];
    snprintf(want, sizeof want, "%.17g\n%.17g\n%.17g\n", sqrt(1.0), sqrt(2.0), sqrt(3.0));
    assert_string_equal(take_output(p), want);
    unload(p);
}

/* ---- collatz.pasm and hello.pasm: output and exit ---------------------------- */

/* The Collatz sequence from n, one number per line, into buf; the steps. */
static int collatz_reference(int64_t n, char *buf, size_t cap)
{
    int steps = 0;
    size_t len = (size_t)snprintf(buf, cap, "%lld\n", (long long)n);
    for (; n != 1; steps++) {
        n = n % 2 ? 3 * n + 1 : n / 2;
        len += (size_t)snprintf(buf + len, cap - len, "%lld\n", (long long)n);
        assert_true(len < cap);
    }
    return steps;
}

static void collatz_prints_the_sequence_and_exits_with_the_step_count(void **state)
{
    (void)state;
    program *p = load("collatz.pasm");
    char want[2048];
    int steps = collatz_reference(6, want, sizeof want);
    assert_int_equal(call(p, "main", 0), PVM_TRAP_EXIT);
    assert_int_equal(p->vm->exit_status, steps);
    assert_int_equal(steps, 8);
    assert_string_equal(take_output(p), want);

    steps = collatz_reference(27, want, sizeof want);
    assert_int_equal(RESULT(p, "collatz", 1, INT64_C(27)), steps);
    assert_string_equal(take_output(p), want);
    unload(p);
}

static void hello_prints_its_data_and_exits_with_status_zero(void **state)
{
    (void)state;
    program *p = load("hello.pasm");
    p->vm->exit_status = -1;
    assert_int_equal(call(p, "main", 0), PVM_TRAP_EXIT);
    assert_int_equal(p->vm->exit_status, 0);
    assert_string_equal(take_output(p), "Hello, world!\n");
    unload(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_program_assembles_and_verifies),
        cmocka_unit_test(fib_matches_an_iterative_fibonacci),
        cmocka_unit_test(loops_sums_i_times_j),
        cmocka_unit_test(dispatch_table_calls_through_function_and_jump_tables),
        cmocka_unit_test(trap_div_traps_at_the_division_in_percent),
        cmocka_unit_test(memory_sieve_counts_primes_and_adler32_sums_the_data),
        cmocka_unit_test(float_computes_square_roots_and_pi),
        cmocka_unit_test(collatz_prints_the_sequence_and_exits_with_the_step_count),
        cmocka_unit_test(hello_prints_its_data_and_exits_with_status_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
