/*
 * test_wasi_fd.c - open files through the WASI host: the preopened
 * directories and their names, writing and reading with iovecs, seeking,
 * positioned I/O, status, size, flags and rights, renumbering and closing,
 * reading directories, and bad fds and guest pointers.
 */
#include "test_wasi_util.h"

/* ---- preopens ------------------------------------------------------------ */

static void test_granted_directories_are_fds_from_3_with_their_names(void **state)
{
    (void)state;
    twasi t = {0};
    twasi_make_tree(&t);
    char spec[128];
    snprintf(spec, sizeof spec, "%s::box", t.box);
    const char *dirs[] = {spec, t.root};
    twasi_open_with(&t, 0, NULL, NULL, dirs, 2);

    assert_int_equal(WASI(&t, fd_prestat_get, 3, 100), E_SUCCESS);
    assert_int_equal(*twasi_mem(&t, 100), 0); /* a directory */
    assert_int_equal(twasi_u32(&t, 104), 3);
    assert_int_equal(WASI(&t, fd_prestat_dir_name, 3, 200, 3), E_SUCCESS);
    assert_memory_equal(twasi_mem(&t, 200), "box", 3);

    /* Without "::", the guest sees the host path. */
    assert_int_equal(WASI(&t, fd_prestat_get, 4, 100), E_SUCCESS);
    assert_int_equal(twasi_u32(&t, 104), strlen(t.root));
    assert_int_equal(WASI(&t, fd_prestat_dir_name, 4, 200, 64), E_SUCCESS);
    assert_memory_equal(twasi_mem(&t, 200), t.root, strlen(t.root));
    assert_int_equal(WASI(&t, fd_prestat_dir_name, 4, 200, 5), E_NAMETOOLONG);

    /* wasi-libc stops at the first EBADF; stdio fds are not preopens. */
    assert_int_equal(WASI(&t, fd_prestat_get, 5, 100), E_BADF);
    assert_int_equal(WASI(&t, fd_prestat_get, 0, 100), E_BADF);
    assert_int_equal(WASI(&t, fd_prestat_get, 3, twasi_mem_size(&t) - 4), E_FAULT);

    /* A directory: path rights for itself, file rights to pass on. */
    assert_int_equal(WASI(&t, fd_fdstat_get, 3, 300), E_SUCCESS);
    assert_int_equal(*twasi_mem(&t, 300), T_DIRECTORY);
    assert_true(twasi_u64(&t, 308) & R_PATH_OPEN);
    assert_false(twasi_u64(&t, 308) & R_FD_READ);
    assert_true(twasi_u64(&t, 316) & R_FD_READ);
    twasi_close(&t);
}

/* ---- stdio ------------------------------------------------------------------ */

static void test_stdio_is_passed_through_and_never_closed_on_the_host(void **state)
{
    (void)state;
    /* Host fds 0 and 1 become pipes while the host is created and used;
     * results are checked once the real ones are back. */
    int in[2], out[2];
    assert_int_equal(pipe(in), 0);
    assert_int_equal(pipe(out), 0);
    int saved0 = dup(0), saved1 = dup(1);
    assert_true(saved0 >= 0 && saved1 >= 0);
    assert_int_equal(dup2(in[0], 0), 0);
    assert_int_equal(dup2(out[1], 1), 1);

    twasi t = {0};
    twasi_open_with(&t, 0, NULL, NULL, NULL, 0);
    twasi_str(&t, 100, "to stdout");
    twasi_iovec(&t, 200, 0, 100, 9);
    uint32_t write_err = WASI(&t, fd_write, 1, 200, 1, 300), written = twasi_u32(&t, 300);
    ssize_t sent = write(in[1], "from stdin", 10);
    twasi_iovec(&t, 200, 0, 400, 10);
    uint32_t read_err = WASI(&t, fd_read, 0, 200, 1, 300), got = twasi_u32(&t, 300);
    char in_guest[10];
    memcpy(in_guest, twasi_mem(&t, 400), sizeof in_guest);
    uint32_t stat_err = WASI(&t, fd_fdstat_get, 1, 500);
    uint8_t type = *twasi_mem(&t, 500);
    uint64_t rights = twasi_u64(&t, 508);
    uint32_t close_err = WASI(&t, fd_close, 1);
    int host_fd1_open = fcntl(1, F_GETFD) != -1;
    twasi_close(&t);

    assert_int_equal(dup2(saved0, 0), 0);
    assert_int_equal(dup2(saved1, 1), 1);
    close(saved0);
    close(saved1);
    close(in[0]);
    close(in[1]);
    close(out[1]);
    char buf[16] = {0};
    assert_int_equal(read(out[0], buf, sizeof buf), 9);
    close(out[0]);

    assert_int_equal(write_err, E_SUCCESS);
    assert_int_equal(written, 9);
    assert_string_equal(buf, "to stdout");
    assert_int_equal(sent, 10);
    assert_int_equal(read_err, E_SUCCESS);
    assert_int_equal(got, 10);
    assert_memory_equal(in_guest, "from stdin", 10);
    assert_int_equal(stat_err, E_SUCCESS);
    assert_int_equal(type, 0); /* a pipe: no WASI file type */
    assert_false(rights & (R_FD_SEEK | R_FD_TELL));
    assert_int_equal(close_err, E_SUCCESS);
    assert_true(host_fd1_open);
}

/* ---- reading and writing -------------------------------------------------- */

static void test_fd_write_gathers_iovecs_into_the_file(void **state)
{
    (void)state;
    twasi t = {0};
    twasi_open_box(&t);
    uint32_t fd;
    assert_int_equal(twasi_open_path(&t, 3, "out.txt", 0, O_CREAT_, R_FD_WRITE, &fd), E_SUCCESS);
    assert_int_equal(fd, 4);
    twasi_str(&t, 100, "Hello, ");
    twasi_str(&t, 200, "WASI\n");
    twasi_iovec(&t, 300, 0, 100, 7);
    twasi_iovec(&t, 300, 1, 150, 0);
    twasi_iovec(&t, 300, 2, 200, 5);
    assert_int_equal(WASI(&t, fd_write, fd, 300, 3, 400), E_SUCCESS);
    assert_int_equal(twasi_u32(&t, 400), 12);
    char text[64];
    twasi_host_read(t.box, "out.txt", text, sizeof text);
    assert_string_equal(text, "Hello, WASI\n");
    twasi_close(&t);
}

static void test_fd_read_scatters_and_seek_and_tell_move_the_offset(void **state)
{
    (void)state;
    twasi t = {0};
    twasi_open_box(&t);
    twasi_host_write(t.box, "digits", "0123456789");
    uint32_t fd;
    assert_int_equal(twasi_open_path(&t, 3, "digits", 0, 0, ALL_RIGHTS, &fd), E_SUCCESS);
    twasi_iovec(&t, 300, 0, 100, 4);
    twasi_iovec(&t, 300, 1, 200, 3);
    assert_int_equal(WASI(&t, fd_read, fd, 300, 2, 400), E_SUCCESS);
    assert_int_equal(twasi_u32(&t, 400), 7);
    assert_memory_equal(twasi_mem(&t, 100), "0123", 4);
    assert_memory_equal(twasi_mem(&t, 200), "456", 3);

    assert_int_equal(WASI(&t, fd_tell, fd, 500), E_SUCCESS);
    assert_int_equal(twasi_u64(&t, 500), 7);
    assert_int_equal(WASI(&t, fd_seek, fd, (uint64_t)-3, 2, 500), E_SUCCESS); /* END */
    assert_int_equal(twasi_u64(&t, 500), 7);
    assert_int_equal(WASI(&t, fd_seek, fd, 2, 0, 500), E_SUCCESS); /* SET */
    assert_int_equal(WASI(&t, fd_seek, fd, 1, 1, 500), E_SUCCESS); /* CUR */
    assert_int_equal(twasi_u64(&t, 500), 3);
    assert_int_equal(WASI(&t, fd_seek, fd, 0, 3, 500), E_INVAL);
    assert_int_equal(WASI(&t, fd_seek, fd, (uint64_t)-1, 0, 500), E_INVAL);

    /* At the end, a read gives 0 bytes. */
    assert_int_equal(WASI(&t, fd_seek, fd, 0, 2, 500), E_SUCCESS);
    assert_int_equal(WASI(&t, fd_read, fd, 300, 2, 400), E_SUCCESS);
    assert_int_equal(twasi_u32(&t, 400), 0);
    twasi_close(&t);
}

static void test_pread_and_pwrite_leave_the_offset_alone(void **state)
{
    (void)state;
    twasi t = {0};
    twasi_open_box(&t);
    twasi_host_write(t.box, "digits", "0123456789");
    uint32_t fd;
    assert_int_equal(twasi_open_path(&t, 3, "digits", 0, 0, ALL_RIGHTS, &fd), E_SUCCESS);
    twasi_str(&t, 100, "AB");
    twasi_iovec(&t, 300, 0, 100, 2);
    assert_int_equal(WASI(&t, fd_pwrite, fd, 300, 1, 5, 400), E_SUCCESS);
    assert_int_equal(twasi_u32(&t, 400), 2);
    twasi_iovec(&t, 300, 0, 200, 2);
    twasi_iovec(&t, 300, 1, 210, 2);
    assert_int_equal(WASI(&t, fd_pread, fd, 300, 2, 4, 400), E_SUCCESS);
    assert_int_equal(twasi_u32(&t, 400), 4);
    assert_memory_equal(twasi_mem(&t, 200), "4A", 2);
    assert_memory_equal(twasi_mem(&t, 210), "B7", 2);
    assert_int_equal(WASI(&t, fd_tell, fd, 500), E_SUCCESS);
    assert_int_equal(twasi_u64(&t, 500), 0);
    char text[64];
    twasi_host_read(t.box, "digits", text, sizeof text);
    assert_string_equal(text, "01234AB789");
    twasi_close(&t);
}

/* ---- status, size, flags, rights ------------------------------------------- */

static void test_filestat_size_flags_and_times(void **state)
{
    (void)state;
    twasi t = {0};
    twasi_open_box(&t);
    twasi_host_write(t.box, "digits", "0123456789");
    uint32_t fd;
    assert_int_equal(twasi_open_path(&t, 3, "digits", 0, 0, ALL_RIGHTS, &fd), E_SUCCESS);
    assert_int_equal(WASI(&t, fd_filestat_get, fd, 100), E_SUCCESS);
    assert_int_equal(*twasi_mem(&t, 116), T_REGULAR);
    assert_int_equal(twasi_u64(&t, 124), 1);  /* nlink */
    assert_int_equal(twasi_u64(&t, 132), 10); /* size */
    assert_int_equal(WASI(&t, fd_filestat_set_size, fd, 4), E_SUCCESS);
    assert_int_equal(WASI(&t, fd_filestat_get, fd, 100), E_SUCCESS);
    assert_int_equal(twasi_u64(&t, 132), 4);

    /* mtim set to 1000 s after the epoch; atim left alone. */
    assert_int_equal(WASI(&t, fd_filestat_set_times, fd, 0, UINT64_C(1000000000000), 4),
                     E_SUCCESS);
    assert_int_equal(WASI(&t, fd_filestat_get, fd, 100), E_SUCCESS);
    assert_int_equal(twasi_u64(&t, 148), UINT64_C(1000000000000));
    assert_int_equal(WASI(&t, fd_filestat_set_times, fd, 0, 0, 1 | 2), E_INVAL);

    assert_int_equal(WASI(&t, fd_fdstat_get, fd, 200), E_SUCCESS);
    assert_int_equal(*twasi_mem(&t, 200), T_REGULAR);
    assert_int_equal(pvm_rd16(twasi_mem(&t, 202)), 0);
    assert_int_equal(WASI(&t, fd_fdstat_set_flags, fd, 1), E_SUCCESS); /* APPEND */
    assert_int_equal(WASI(&t, fd_fdstat_get, fd, 200), E_SUCCESS);
    assert_int_equal(pvm_rd16(twasi_mem(&t, 202)), 1);
    assert_int_equal(WASI(&t, fd_fdstat_set_flags, fd, 16), E_NOTSUP); /* SYNC */

    assert_int_equal(WASI(&t, fd_sync, fd), E_SUCCESS);
    assert_int_equal(WASI(&t, fd_datasync, fd), E_SUCCESS);
    assert_int_equal(WASI(&t, fd_advise, fd, 0, 4, 1), E_SUCCESS);
    assert_int_equal(WASI(&t, fd_advise, fd, 0, 4, 6), E_INVAL);
    assert_int_equal(WASI(&t, fd_allocate, fd, 0, 4096), E_SUCCESS);
    assert_int_equal(WASI(&t, fd_filestat_get, fd, 100), E_SUCCESS);
    assert_int_equal(twasi_u64(&t, 132), 4096);
    twasi_close(&t);
}

static void test_rights_only_shrink_and_are_enforced(void **state)
{
    (void)state;
    twasi t = {0};
    twasi_open_box(&t);
    twasi_host_write(t.box, "data", "abc");
    uint32_t ro, fd;
    /* Opened for reading only: no writing, as POSIX says (EBADF). */
    assert_int_equal(twasi_open_path(&t, 3, "data", 0, 0, R_FD_READ | R_FD_SEEK, &ro), E_SUCCESS);
    twasi_iovec(&t, 300, 0, 100, 3);
    assert_int_equal(WASI(&t, fd_write, ro, 300, 1, 400), E_BADF);
    assert_int_equal(WASI(&t, fd_tell, ro, 400), E_NOTCAPABLE);
    char text[16];
    twasi_host_read(t.box, "data", text, sizeof text);
    assert_string_equal(text, "abc");

    assert_int_equal(twasi_open_path(&t, 3, "data", 0, 0, ALL_RIGHTS, &fd), E_SUCCESS);
    assert_int_equal(WASI(&t, fd_fdstat_get, fd, 200), E_SUCCESS);
    uint64_t base = twasi_u64(&t, 208);
    assert_true(base & R_FD_READ);
    assert_false(base & R_PATH_OPEN); /* a file has no path rights */
    assert_int_equal(WASI(&t, fd_fdstat_set_rights, fd, base & ~R_FD_READ, 0), E_SUCCESS);
    assert_int_equal(WASI(&t, fd_read, fd, 300, 1, 400), E_BADF);
    assert_int_equal(WASI(&t, fd_fdstat_set_rights, fd, base, 0), E_NOTCAPABLE);

    /* A directory cannot be read or seeked like a file. */
    assert_int_equal(WASI(&t, fd_read, 3, 300, 1, 400), E_BADF);
    assert_int_equal(WASI(&t, fd_seek, 3, 0, 0, 400), E_NOTCAPABLE);
    twasi_close(&t);
}

/* ---- the fd table ------------------------------------------------------ */

static void test_renumber_and_close(void **state)
{
    (void)state;
    twasi t = {0};
    twasi_open_box(&t);
    twasi_host_write(t.box, "a", "from a");
    twasi_host_write(t.box, "b", "from b");
    uint32_t a, b, c;
    assert_int_equal(twasi_open_path(&t, 3, "a", 0, 0, ALL_RIGHTS, &a), E_SUCCESS);
    assert_int_equal(twasi_open_path(&t, 3, "b", 0, 0, ALL_RIGHTS, &b), E_SUCCESS);
    assert_int_equal(a, 4);
    assert_int_equal(b, 5);
    assert_int_equal(WASI(&t, fd_renumber, a, b), E_SUCCESS);
    twasi_iovec(&t, 300, 0, 100, 6);
    assert_int_equal(WASI(&t, fd_read, b, 300, 1, 400), E_SUCCESS);
    assert_memory_equal(twasi_mem(&t, 100), "from a", 6);
    assert_int_equal(WASI(&t, fd_read, a, 300, 1, 400), E_BADF);
    assert_int_equal(WASI(&t, fd_renumber, b, 42), E_BADF);
    /* The lowest free fd is reused. */
    assert_int_equal(twasi_open_path(&t, 3, "b", 0, 0, ALL_RIGHTS, &c), E_SUCCESS);
    assert_int_equal(c, 4);
    assert_int_equal(WASI(&t, fd_close, b), E_SUCCESS);
    assert_int_equal(WASI(&t, fd_close, b), E_BADF);
    assert_int_equal(WASI(&t, fd_close, 1u << 31), E_BADF);
    assert_int_equal(WASI(&t, fd_write, 99, 300, 1, 400), E_BADF);
    twasi_close(&t);
}

/* Entries of a readdir buffer: names in `names` (comma-separated, in
 * order), cookies in `next`. */
static int parse_dirents(twasi *t, uint32_t buf, uint32_t used, char *names, uint64_t *next)
{
    int n = 0;
    names[0] = '\0';
    for (uint32_t at = 0; at + 24 <= used; n++) {
        uint32_t namlen = twasi_u32(t, buf + at + 16);
        if (at + 24 + namlen > used)
            break;
        next[n] = twasi_u64(t, buf + at);
        strncat(names, (const char *)twasi_mem(t, buf + at + 24), namlen);
        strcat(names, *twasi_mem(t, buf + at + 20) == T_DIRECTORY ? "/," : ",");
        at += 24 + namlen;
    }
    return n;
}

static void test_readdir_lists_entries_and_resumes_at_a_cookie(void **state)
{
    (void)state;
    twasi t = {0};
    twasi_open_box(&t);
    twasi_host_write(t.box, "file", "x");
    assert_int_equal(WASI(&t, path_create_directory, 3, 100, twasi_str(&t, 100, "sub")), E_SUCCESS);
    uint32_t dir;
    assert_int_equal(twasi_open_path(&t, 3, ".", 0, O_DIRECTORY_, ALL_RIGHTS, &dir), E_SUCCESS);
    assert_int_equal(WASI(&t, fd_readdir, dir, 1000, 4096, 0, 500), E_SUCCESS);
    uint32_t used = twasi_u32(&t, 500);
    assert_true(used < 4096); /* all of it */
    char names[256];
    uint64_t next[8];
    assert_int_equal(parse_dirents(&t, 1000, used, names, next), 4);
    /* Host order; every entry once. */
    assert_non_null(strstr(names, "./,"));
    assert_non_null(strstr(names, "../,"));
    assert_non_null(strstr(names, "file,"));
    assert_non_null(strstr(names, "sub/,"));
    for (int i = 0; i < 4; i++)
        assert_int_equal(next[i], i + 1);

    /* From the third entry on. */
    char rest[256];
    assert_int_equal(WASI(&t, fd_readdir, dir, 2000, 4096, next[1], 500), E_SUCCESS);
    assert_int_equal(parse_dirents(&t, 2000, twasi_u32(&t, 500), rest, next), 2);
    assert_non_null(strstr(names, rest));

    /* A small buffer comes back full: the guest asks again. */
    assert_int_equal(WASI(&t, fd_readdir, dir, 3000, 30, 0, 500), E_SUCCESS);
    assert_int_equal(twasi_u32(&t, 500), 30);

    assert_int_equal(WASI(&t, fd_readdir, dir, twasi_mem_size(&t) - 8, 30, 0, 500), E_FAULT);
    uint32_t file;
    assert_int_equal(twasi_open_path(&t, 3, "file", 0, 0, ALL_RIGHTS, &file), E_SUCCESS);
    assert_int_equal(WASI(&t, fd_readdir, file, 1000, 4096, 0, 500), E_NOTCAPABLE);
    twasi_close(&t);
}

/* ---- bad guest pointers ---------------------------------------------------- */

static void test_bad_iovecs_give_efault_and_move_no_data(void **state)
{
    (void)state;
    twasi t = {0};
    twasi_open_box(&t);
    twasi_host_write(t.box, "data", "abcdef");
    uint32_t fd, size = twasi_mem_size(&t);
    assert_int_equal(twasi_open_path(&t, 3, "data", 0, 0, ALL_RIGHTS, &fd), E_SUCCESS);
    /* The second buffer runs past the end of memory. */
    twasi_iovec(&t, 300, 0, 100, 2);
    twasi_iovec(&t, 300, 1, size - 2, 4);
    assert_int_equal(WASI(&t, fd_read, fd, 300, 2, 400), E_FAULT);
    assert_int_equal(WASI(&t, fd_write, fd, 300, 2, 400), E_FAULT);
    /* The iovec array itself is outside memory. */
    assert_int_equal(WASI(&t, fd_write, fd, size - 8, 2, 400), E_FAULT);
    assert_int_equal(WASI(&t, fd_write, fd, 300, UINT32_MAX, 400), E_FAULT);
    /* The result pointer is outside memory. */
    twasi_iovec(&t, 300, 0, 100, 2);
    assert_int_equal(WASI(&t, fd_read, fd, 300, 1, size), E_FAULT);
    assert_int_equal(WASI(&t, fd_pwrite, fd, 300, 1, 0, size - 1), E_FAULT);
    assert_int_equal(WASI(&t, fd_tell, fd, 400), E_SUCCESS);
    assert_int_equal(twasi_u64(&t, 400), 0);
    char text[16];
    twasi_host_read(t.box, "data", text, sizeof text);
    assert_string_equal(text, "abcdef");
    assert_int_equal(WASI(&t, fd_filestat_get, fd, size - 63), E_FAULT);
    assert_int_equal(WASI(&t, fd_fdstat_get, fd, size - 23), E_FAULT);
    twasi_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_granted_directories_are_fds_from_3_with_their_names),
        cmocka_unit_test(test_stdio_is_passed_through_and_never_closed_on_the_host),
        cmocka_unit_test(test_fd_write_gathers_iovecs_into_the_file),
        cmocka_unit_test(test_fd_read_scatters_and_seek_and_tell_move_the_offset),
        cmocka_unit_test(test_pread_and_pwrite_leave_the_offset_alone),
        cmocka_unit_test(test_filestat_size_flags_and_times),
        cmocka_unit_test(test_rights_only_shrink_and_are_enforced),
        cmocka_unit_test(test_renumber_and_close),
        cmocka_unit_test(test_readdir_lists_entries_and_resumes_at_a_cookie),
        cmocka_unit_test(test_bad_iovecs_give_efault_and_move_no_data),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
