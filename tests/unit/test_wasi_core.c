/*
 * test_wasi_core.c - the WASI host outside the file system: binding by
 * import name, arguments and environment as wasi-libc reads them, clocks,
 * random bytes, exit, poll_oneoff as sleep, the calls it does not support,
 * and bad guest pointers (EFAULT, guest memory left untouched).
 */
#include "test_wasi_util.h"

#include <time.h>

static uint64_t host_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- binding ------------------------------------------------------------- */

static void test_binds_wasi_imports_by_name_and_names_unsupported_ones(void **state)
{
    (void)state;
    static const tvm_insn ret[] = {INS(ret)};
    pvm_module *m = tvm_module();
    tvm_add(m, "main", ret, 1);
    assert_int_equal(pvm_module_add_import(m, "wasi_snapshot_preview1.fd_write", NULL), 0);
    assert_int_equal(pvm_module_add_import(m, "env.print", NULL), 1);
    assert_int_equal(pvm_module_add_import(m, "wasi_snapshot_preview1.fd_write", NULL), 2);
    assert_null(pvm_wasi_unsupported_import(m));
    assert_int_equal(pvm_module_add_import(m, "wasi_snapshot_preview1.thread_spawn", NULL), 3);
    assert_string_equal(pvm_wasi_unsupported_import(m), "wasi_snapshot_preview1.thread_spawn");
    assert_true(pvm_wasi_implements("path_open"));
    assert_false(pvm_wasi_implements("thread_spawn"));

    pvm_vm *vm = tvm_vm(m);
    pvm_wasi *w = pvm_wasi_new(0, NULL, NULL, NULL, 0, NULL);
    assert_non_null(w);
    /* Both fd_write imports; neither the other module's nor the unknown. */
    assert_int_equal(pvm_wasi_bind(w, vm), 2);
    assert_non_null(vm->hosts[0].fn);
    assert_ptr_equal(vm->hosts[0].ctx, w);
    assert_null(vm->hosts[1].fn);
    assert_non_null(vm->hosts[2].fn);
    assert_null(vm->hosts[3].fn);
    pvm_wasi_free(w);
    pvm_vm_free(vm);
    pvm_module_free(m);
}

static void test_a_directory_that_cannot_be_opened_is_an_error(void **state)
{
    (void)state;
    const char *dirs[] = {"/nonexistent/pulley-wasi-test"};
    pvm_error err;
    assert_null(pvm_wasi_new(0, NULL, NULL, dirs, 1, &err));
    assert_non_null(strstr(err.msg, "/nonexistent/pulley-wasi-test"));
}

/* ---- arguments and environment ------------------------------------------- */

static void test_args_are_pointers_into_one_buffer_of_nul_terminated_strings(void **state)
{
    (void)state;
    twasi t = {0};
    char *argv[] = {"prog", "-x", "hello world", NULL};
    twasi_open_with(&t, 3, argv, NULL, NULL, 0);
    assert_int_equal(WASI(&t, args_sizes_get, 100, 104), E_SUCCESS);
    assert_int_equal(twasi_u32(&t, 100), 3);
    assert_int_equal(twasi_u32(&t, 104), 5 + 3 + 12);
    assert_int_equal(WASI(&t, args_get, 200, 300), E_SUCCESS);
    assert_int_equal(twasi_u32(&t, 200), 300);
    assert_int_equal(twasi_u32(&t, 204), 305);
    assert_int_equal(twasi_u32(&t, 208), 308);
    assert_memory_equal(twasi_mem(&t, 300), "prog\0-x\0hello world\0", 20);
    twasi_close(&t);
}

static void test_environ_is_laid_out_like_args(void **state)
{
    (void)state;
    twasi t = {0};
    char *envp[] = {"HOME=/", "LANG=C", NULL};
    twasi_open_with(&t, 0, NULL, envp, NULL, 0);
    assert_int_equal(WASI(&t, environ_sizes_get, 100, 104), E_SUCCESS);
    assert_int_equal(twasi_u32(&t, 100), 2);
    assert_int_equal(twasi_u32(&t, 104), 14);
    assert_int_equal(WASI(&t, environ_get, 200, 300), E_SUCCESS);
    assert_int_equal(twasi_u32(&t, 200), 300);
    assert_int_equal(twasi_u32(&t, 204), 307);
    assert_memory_equal(twasi_mem(&t, 300), "HOME=/\0LANG=C\0", 14);
    /* No arguments at all is fine too. */
    assert_int_equal(WASI(&t, args_sizes_get, 100, 104), E_SUCCESS);
    assert_int_equal(twasi_u32(&t, 100), 0);
    assert_int_equal(twasi_u32(&t, 104), 0);
    twasi_close(&t);
}

static void test_bad_pointers_give_efault_and_write_nothing(void **state)
{
    (void)state;
    twasi t = {0};
    char *argv[] = {"prog", "arg", NULL};
    twasi_open_with(&t, 2, argv, NULL, NULL, 0);
    uint32_t size = twasi_mem_size(&t);
    memset(twasi_mem(&t, 0), 0xAA, 64);
    memset(twasi_mem(&t, size - 64), 0xAA, 64);
    /* The second result straddles the end of memory. */
    assert_int_equal(WASI(&t, args_sizes_get, 0, size - 2), E_FAULT);
    /* The strings (9 bytes) do not fit at size - 8. */
    assert_int_equal(WASI(&t, args_get, 0, size - 8), E_FAULT);
    /* Addresses far past the end, and ones that wrap in 32 bits. */
    assert_int_equal(WASI(&t, args_get, UINT32_MAX - 3, 16), E_FAULT);
    assert_int_equal(WASI(&t, environ_sizes_get, UINT32_MAX, 0), E_FAULT);
    assert_int_equal(WASI(&t, clock_time_get, 1, 0, size - 7), E_FAULT);
    assert_int_equal(WASI(&t, random_get, size - 3, 4), E_FAULT);
    assert_int_equal(WASI(&t, random_get, 0x80000000u, 0x80000000u), E_FAULT);
    for (int i = 0; i < 64; i++) {
        assert_int_equal(*twasi_mem(&t, (uint32_t)i), 0xAA);
        assert_int_equal(*twasi_mem(&t, size - 64 + (uint32_t)i), 0xAA);
    }
    /* An empty range at the very end is inside memory. */
    assert_int_equal(WASI(&t, random_get, size, 0), E_SUCCESS);
    twasi_close(&t);
}

static void test_a_program_without_memory_gets_efault_for_every_pointer(void **state)
{
    (void)state;
    static const tvm_insn ret[] = {INS(ret)};
    pvm_module *m = tvm_module();
    m->heap_min = m->heap_max = 0;
    tvm_add(m, "main", ret, 1);
    assert_int_equal(pvm_module_add_import(m, "wasi_snapshot_preview1.args_sizes_get", NULL), 0);
    assert_int_equal(pvm_module_add_import(m, "wasi_snapshot_preview1.random_get", NULL), 1);
    pvm_vm *vm = tvm_vm(m);
    pvm_wasi *w = pvm_wasi_new(0, NULL, NULL, NULL, 0, NULL);
    assert_int_equal(pvm_wasi_bind(w, vm), 2);
    vm->x[0] = 0, vm->x[1] = 4;
    assert_int_equal(vm->hosts[0].fn(vm, w), PVM_TRAP_NONE);
    assert_int_equal(vm->x[0], E_FAULT);
    vm->x[0] = 0, vm->x[1] = 0; /* nothing at address 0 */
    assert_int_equal(vm->hosts[1].fn(vm, w), PVM_TRAP_NONE);
    assert_int_equal(vm->x[0], E_SUCCESS);
    pvm_wasi_free(w);
    pvm_vm_free(vm);
    pvm_module_free(m);
}

/* ---- clocks and random bytes ------------------------------------------- */

static void test_clocks_tell_time_and_the_monotonic_one_never_goes_back(void **state)
{
    (void)state;
    twasi t = {0};
    twasi_open_with(&t, 0, NULL, NULL, NULL, 0);
    uint64_t last = 0;
    for (int i = 0; i < 1000; i++) {
        assert_int_equal(WASI(&t, clock_time_get, 1, 1, 64), E_SUCCESS);
        assert_true(twasi_u64(&t, 64) >= last);
        last = twasi_u64(&t, 64);
    }
    assert_int_equal(WASI(&t, clock_time_get, 0, 1000, 64), E_SUCCESS);
    assert_true(twasi_u64(&t, 64) > UINT64_C(1600000000) * 1000000000u); /* after 2020 */
    for (uint64_t id = 0; id < 4; id++) {
        assert_int_equal(WASI(&t, clock_time_get, id, 0, 64), E_SUCCESS);
        assert_int_equal(WASI(&t, clock_res_get, id, 72), E_SUCCESS);
        assert_true(twasi_u64(&t, 72) > 0);
    }
    assert_int_equal(WASI(&t, clock_time_get, 4, 0, 64), E_INVAL);
    assert_int_equal(WASI(&t, clock_res_get, 99, 64), E_INVAL);
    twasi_close(&t);
}

static void test_random_get_fills_the_buffer(void **state)
{
    (void)state;
    twasi t = {0};
    twasi_open_with(&t, 0, NULL, NULL, NULL, 0);
    memset(twasi_mem(&t, 100), 0, 512);
    assert_int_equal(WASI(&t, random_get, 100, 256), E_SUCCESS);
    assert_int_equal(WASI(&t, random_get, 356, 256), E_SUCCESS);
    int zeros = 0;
    for (int i = 0; i < 512; i++)
        zeros += *twasi_mem(&t, 100 + (uint32_t)i) == 0;
    assert_true(zeros < 16); /* about 2 expected */
    assert_memory_not_equal(twasi_mem(&t, 100), twasi_mem(&t, 356), 256);
    /* All of memory at once. */
    assert_int_equal(WASI(&t, random_get, 0, twasi_mem_size(&t)), E_SUCCESS);
    twasi_close(&t);
}

/* ---- process --------------------------------------------------------- */

static void test_proc_exit_stops_the_vm_with_the_status(void **state)
{
    (void)state;
    twasi t = {0};
    twasi_open_with(&t, 0, NULL, NULL, NULL, 0);
    int i = pvm_module_find_import(t.m, "wasi_snapshot_preview1.proc_exit");
    pvm_host_binding *h = &t.vm->hosts[i];
    t.vm->x[0] = 42;
    assert_int_equal(h->fn(t.vm, h->ctx), PVM_TRAP_EXIT);
    assert_int_equal(t.vm->exit_status, 42);
    t.vm->x[0] = UINT32_MAX; /* exit(-1) */
    assert_int_equal(h->fn(t.vm, h->ctx), PVM_TRAP_EXIT);
    assert_int_equal(t.vm->exit_status, -1);
    twasi_close(&t);
}

static void test_unsupported_calls_say_so(void **state)
{
    (void)state;
    twasi t = {0};
    twasi_open_with(&t, 0, NULL, NULL, NULL, 0);
    assert_int_equal(WASI(&t, sched_yield, 0), E_SUCCESS);
    assert_int_equal(WASI(&t, proc_raise, 6), E_NOSYS);
    assert_int_equal(WASI(&t, sock_accept, 0, 0, 64), E_NOTSUP);
    assert_int_equal(WASI(&t, sock_recv, 0, 64, 1, 0, 72, 76), E_NOTSUP);
    assert_int_equal(WASI(&t, sock_send, 0, 64, 1, 0, 72), E_NOTSUP);
    assert_int_equal(WASI(&t, sock_shutdown, 0, 2), E_NOTSUP);
    twasi_close(&t);
}

/* ---- poll_oneoff ------------------------------------------------------- */

/* Subscription i of the array at 1000: a clock one. */
static void clock_sub(twasi *t, unsigned i, uint64_t userdata, uint32_t clock, uint64_t timeout,
                      uint16_t flags)
{
    uint8_t *p = twasi_mem(t, 1000 + 48 * i);
    memset(p, 0, 48);
    pvm_wr64(p, userdata);
    p[8] = 0;
    pvm_wr32(p + 16, clock);
    pvm_wr64(p + 24, timeout);
    pvm_wr16(p + 40, flags);
}

static void fd_sub(twasi *t, unsigned i, uint64_t userdata, uint8_t type, uint32_t fd)
{
    uint8_t *p = twasi_mem(t, 1000 + 48 * i);
    memset(p, 0, 48);
    pvm_wr64(p, userdata);
    p[8] = type;
    pvm_wr32(p + 16, fd);
}

#define EVENT(i) (2000 + 32 * (i))

static void test_poll_oneoff_sleeps_until_the_earliest_clock(void **state)
{
    (void)state;
    twasi t = {0};
    twasi_open_with(&t, 0, NULL, NULL, NULL, 0);
    clock_sub(&t, 0, 0x1111, 1, 1000000000u, 0); /* 1 s */
    clock_sub(&t, 1, 0x2222, 1, 20000000u, 0);   /* 20 ms */
    uint64_t start = host_now();
    assert_int_equal(WASI(&t, poll_oneoff, 1000, 2000, 2, 3000), E_SUCCESS);
    uint64_t took = host_now() - start;
    assert_true(took >= 20000000u);
    assert_true(took < 900000000u);
    assert_int_equal(twasi_u32(&t, 3000), 1);
    assert_int_equal(twasi_u64(&t, EVENT(0)), 0x2222);
    assert_int_equal(pvm_rd16(twasi_mem(&t, EVENT(0) + 8)), 0); /* error */
    assert_int_equal(*twasi_mem(&t, EVENT(0) + 10), 0);         /* type: clock */

    /* An absolute time on the realtime clock, 10 ms from now. */
    assert_int_equal(WASI(&t, clock_time_get, 0, 0, 64), E_SUCCESS);
    clock_sub(&t, 0, 0x3333, 0, twasi_u64(&t, 64) + 10000000u, 1);
    start = host_now();
    assert_int_equal(WASI(&t, poll_oneoff, 1000, 2000, 1, 3000), E_SUCCESS);
    assert_true(host_now() - start >= 5000000u);
    assert_int_equal(twasi_u32(&t, 3000), 1);
    assert_int_equal(twasi_u64(&t, EVENT(0)), 0x3333);
    twasi_close(&t);
}

static void test_poll_oneoff_reports_bad_subscriptions_at_once(void **state)
{
    (void)state;
    twasi t = {0};
    twasi_open_with(&t, 0, NULL, NULL, NULL, 0);
    clock_sub(&t, 0, 1, 1, 5000000000u, 0); /* 5 s: must not be waited for */
    fd_sub(&t, 1, 2, 1, 77);                 /* fd_read on a closed fd */
    clock_sub(&t, 2, 3, 9, 0, 0);            /* no such clock */
    uint64_t start = host_now();
    assert_int_equal(WASI(&t, poll_oneoff, 1000, 2000, 3, 3000), E_SUCCESS);
    assert_true(host_now() - start < 1000000000u);
    assert_int_equal(twasi_u32(&t, 3000), 2);
    assert_int_equal(twasi_u64(&t, EVENT(0)), 2);
    assert_int_equal(pvm_rd16(twasi_mem(&t, EVENT(0) + 8)), E_BADF);
    assert_int_equal(*twasi_mem(&t, EVENT(0) + 10), 1);
    assert_int_equal(twasi_u64(&t, EVENT(1)), 3);
    assert_int_equal(pvm_rd16(twasi_mem(&t, EVENT(1) + 8)), E_INVAL);

    assert_int_equal(WASI(&t, poll_oneoff, 1000, 2000, 0, 3000), E_INVAL);
    assert_int_equal(WASI(&t, poll_oneoff, 1000, twasi_mem_size(&t) - 32, 3, 3000), E_FAULT);
    fd_sub(&t, 0, 1, 7, 0); /* no such event type */
    assert_int_equal(WASI(&t, poll_oneoff, 1000, 2000, 1, 3000), E_INVAL);
    twasi_close(&t);
}

static void test_poll_oneoff_says_a_file_is_ready_with_its_bytes(void **state)
{
    (void)state;
    twasi t = {0};
    twasi_open_box(&t);
    twasi_host_write(t.box, "data", "twelve bytes");
    uint32_t fd;
    assert_int_equal(twasi_open_path(&t, 3, "data", 0, 0, ALL_RIGHTS, &fd), E_SUCCESS);
    fd_sub(&t, 0, 9, 1, fd);
    clock_sub(&t, 1, 8, 1, 5000000000u, 0);
    uint64_t start = host_now();
    assert_int_equal(WASI(&t, poll_oneoff, 1000, 2000, 2, 3000), E_SUCCESS);
    assert_true(host_now() - start < 1000000000u);
    assert_int_equal(twasi_u32(&t, 3000), 1);
    assert_int_equal(twasi_u64(&t, EVENT(0)), 9);
    assert_int_equal(pvm_rd16(twasi_mem(&t, EVENT(0) + 8)), 0);
    assert_int_equal(*twasi_mem(&t, EVENT(0) + 10), 1);
    assert_int_equal(twasi_u64(&t, EVENT(0) + 16), 12); /* nbytes */
    twasi_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_binds_wasi_imports_by_name_and_names_unsupported_ones),
        cmocka_unit_test(test_a_directory_that_cannot_be_opened_is_an_error),
        cmocka_unit_test(test_args_are_pointers_into_one_buffer_of_nul_terminated_strings),
        cmocka_unit_test(test_environ_is_laid_out_like_args),
        cmocka_unit_test(test_bad_pointers_give_efault_and_write_nothing),
        cmocka_unit_test(test_a_program_without_memory_gets_efault_for_every_pointer),
        cmocka_unit_test(test_clocks_tell_time_and_the_monotonic_one_never_goes_back),
        cmocka_unit_test(test_random_get_fills_the_buffer),
        cmocka_unit_test(test_proc_exit_stops_the_vm_with_the_status),
        cmocka_unit_test(test_unsupported_calls_say_so),
        cmocka_unit_test(test_poll_oneoff_sleeps_until_the_earliest_clock),
        cmocka_unit_test(test_poll_oneoff_reports_bad_subscriptions_at_once),
        cmocka_unit_test(test_poll_oneoff_says_a_file_is_ready_with_its_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
