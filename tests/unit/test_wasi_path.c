/*
 * test_wasi_path.c - the path_* functions and the sandbox.  The guest holds
 * ROOT/box as fd 3; ROOT/secret is outside it.  Whatever path the guest
 * writes (absolute, "..", symbolic links the host or the guest made) it
 * reaches nothing outside box: such paths fail with EPERM (or ELOOP for a
 * final link it asked not to follow).
 */
#include "test_wasi_util.h"

/* Call a path function with (fd, path, path_len). */
static uint32_t on_path(twasi *t, const char *fn, uint32_t fd, const char *path)
{
    uint32_t len = twasi_str(t, 1024, path);
    const uint64_t args[] = {fd, 1024, len};
    return twasi_call_args(t, fn, args, 3);
}

/* path_filestat_get: errno, and the file type in *type. */
static uint32_t stat_path(twasi *t, uint32_t fd, const char *path, uint32_t lookup, uint8_t *type)
{
    uint32_t len = twasi_str(t, 1024, path);
    uint32_t e = WASI(t, path_filestat_get, fd, lookup, 1024, len, 3000);
    *type = e == E_SUCCESS ? *twasi_mem(t, 3016) : 0;
    return e;
}

static void host_symlink(twasi *t, const char *text, const char *name)
{
    char path[160];
    snprintf(path, sizeof path, "%s/%s", t->box, name);
    assert_int_equal(symlink(text, path), 0);
}

/* ---- inside the directory -------------------------------------------------- */

static void test_paths_with_dots_and_slashes_resolve_inside(void **state)
{
    (void)state;
    twasi t = {0};
    twasi_open_box(&t);
    assert_int_equal(on_path(&t, "path_create_directory", 3, "d"), E_SUCCESS);
    assert_int_equal(on_path(&t, "path_create_directory", 3, "d/e"), E_SUCCESS);
    assert_int_equal(on_path(&t, "path_create_directory", 3, "d/e"), E_EXIST);
    uint32_t fd;
    assert_int_equal(twasi_open_path(&t, 3, "d/./e/../e//f", 0, O_CREAT_, ALL_RIGHTS, &fd),
                     E_SUCCESS);
    twasi_str(&t, 100, "in f");
    twasi_iovec(&t, 200, 0, 100, 4);
    assert_int_equal(WASI(&t, fd_write, fd, 200, 1, 300), E_SUCCESS);
    char text[16];
    twasi_host_read(t.box, "d/e/f", text, sizeof text);
    assert_string_equal(text, "in f");

    uint8_t type;
    assert_int_equal(stat_path(&t, 3, "d/e/f", 0, &type), E_SUCCESS);
    assert_int_equal(type, T_REGULAR);
    assert_int_equal(twasi_u64(&t, 3032), 4); /* size */
    assert_int_equal(stat_path(&t, 3, "d/e/..", 0, &type), E_SUCCESS);
    assert_int_equal(type, T_DIRECTORY);
    assert_int_equal(stat_path(&t, 3, ".", 0, &type), E_SUCCESS);
    assert_int_equal(stat_path(&t, 3, "d/nothing", 0, &type), E_NOENT);
    assert_int_equal(stat_path(&t, 3, "d/e/f/g", 0, &type), E_NOTDIR);

    /* O_EXCL on an existing file; O_TRUNC empties it. */
    assert_int_equal(twasi_open_path(&t, 3, "d/e/f", 0, O_CREAT_ | O_EXCL_, ALL_RIGHTS, &fd),
                     E_EXIST);
    assert_int_equal(twasi_open_path(&t, 3, "d/e/f", 0, O_TRUNC_, ALL_RIGHTS, &fd), E_SUCCESS);
    assert_int_equal(stat_path(&t, 3, "d/e/f", 0, &type), E_SUCCESS);
    assert_int_equal(twasi_u64(&t, 3032), 0);
    twasi_close(&t);
}

static void test_trailing_slashes_name_directories(void **state)
{
    (void)state;
    twasi t = {0};
    twasi_open_box(&t);
    twasi_host_write(t.box, "file", "x");
    assert_int_equal(on_path(&t, "path_create_directory", 3, "dir/"), E_SUCCESS);
    uint32_t fd;
    assert_int_equal(twasi_open_path(&t, 3, "dir///", 0, 0, ALL_RIGHTS, &fd), E_SUCCESS);
    assert_int_equal(twasi_open_path(&t, 3, "file/", 0, 0, ALL_RIGHTS, &fd), E_NOTDIR);
    uint8_t type;
    assert_int_equal(stat_path(&t, 3, "file/", 0, &type), E_NOTDIR);
    assert_int_equal(on_path(&t, "path_unlink_file", 3, "file/"), E_NOTDIR);
    assert_int_equal(on_path(&t, "path_unlink_file", 3, "dir/"), E_ISDIR);
    assert_int_equal(on_path(&t, "path_remove_directory", 3, "dir/"), E_SUCCESS);
    twasi_close(&t);
}

static void test_create_rename_link_unlink_and_remove(void **state)
{
    (void)state;
    twasi t = {0};
    twasi_open_box(&t);
    twasi_host_write(t.box, "a", "text");
    assert_int_equal(on_path(&t, "path_create_directory", 3, "d"), E_SUCCESS);
    uint32_t n1 = twasi_str(&t, 100, "a"), n2 = twasi_str(&t, 200, "d/b");
    assert_int_equal(WASI(&t, path_rename, 3, 100, n1, 3, 200, n2), E_SUCCESS);
    uint8_t type;
    assert_int_equal(stat_path(&t, 3, "a", 0, &type), E_NOENT);
    n1 = twasi_str(&t, 100, "d/b");
    n2 = twasi_str(&t, 200, "c");
    assert_int_equal(WASI(&t, path_link, 3, 0, 100, n1, 3, 200, n2), E_SUCCESS);
    assert_int_equal(stat_path(&t, 3, "c", 0, &type), E_SUCCESS);
    assert_int_equal(twasi_u64(&t, 3024), 2); /* nlink */
    assert_int_equal(WASI(&t, path_link, 3, 0, 100, n1, 3, 200, n2), E_EXIST);

    assert_int_equal(on_path(&t, "path_remove_directory", 3, "d"), E_NOTEMPTY);
    assert_int_equal(on_path(&t, "path_unlink_file", 3, "d"), E_ISDIR);
    assert_int_equal(on_path(&t, "path_remove_directory", 3, "c"), E_NOTDIR);
    assert_int_equal(on_path(&t, "path_unlink_file", 3, "d/b"), E_SUCCESS);
    assert_int_equal(on_path(&t, "path_remove_directory", 3, "d"), E_SUCCESS);
    assert_int_equal(on_path(&t, "path_unlink_file", 3, "c"), E_SUCCESS);
    assert_int_equal(on_path(&t, "path_unlink_file", 3, "c"), E_NOENT);

    /* Times by path: mtim 2000 s after the epoch. */
    twasi_host_write(t.box, "t", "");
    uint32_t len = twasi_str(&t, 100, "t");
    assert_int_equal(WASI(&t, path_filestat_set_times, 3, 0, 100, len, 0,
                          UINT64_C(2000000000000), 4),
                     E_SUCCESS);
    assert_int_equal(stat_path(&t, 3, "t", 0, &type), E_SUCCESS);
    assert_int_equal(twasi_u64(&t, 3048), UINT64_C(2000000000000));
    twasi_close(&t);
}

static void test_symlinks_inside_work(void **state)
{
    (void)state;
    twasi t = {0};
    twasi_open_box(&t);
    assert_int_equal(on_path(&t, "path_create_directory", 3, "d"), E_SUCCESS);
    twasi_host_write(t.box, "d/f", "linked");
    uint32_t text = twasi_str(&t, 100, "d/f"), name = twasi_str(&t, 200, "ln");
    assert_int_equal(WASI(&t, path_symlink, 100, text, 3, 200, name), E_SUCCESS);
    assert_int_equal(WASI(&t, path_symlink, 100, text, 3, 200, name), E_EXIST);
    /* The link itself, and where it leads. */
    uint8_t type;
    assert_int_equal(stat_path(&t, 3, "ln", 0, &type), E_SUCCESS);
    assert_int_equal(type, T_SYMLINK);
    assert_int_equal(stat_path(&t, 3, "ln", FOLLOW, &type), E_SUCCESS);
    assert_int_equal(type, T_REGULAR);
    uint32_t len = twasi_str(&t, 200, "ln");
    assert_int_equal(WASI(&t, path_readlink, 3, 200, len, 300, 64, 400), E_SUCCESS);
    assert_int_equal(twasi_u32(&t, 400), 3);
    assert_memory_equal(twasi_mem(&t, 300), "d/f", 3);

    uint32_t fd;
    assert_int_equal(twasi_open_path(&t, 3, "ln", FOLLOW, 0, ALL_RIGHTS, &fd), E_SUCCESS);
    twasi_iovec(&t, 500, 0, 600, 6);
    assert_int_equal(WASI(&t, fd_read, fd, 500, 1, 700), E_SUCCESS);
    assert_memory_equal(twasi_mem(&t, 600), "linked", 6);
    /* Not following a final link: ELOOP, as with O_NOFOLLOW. */
    assert_int_equal(twasi_open_path(&t, 3, "ln", 0, 0, ALL_RIGHTS, &fd), E_LOOP);

    /* Links in the middle of a path are always followed (inside). */
    host_symlink(&t, "d", "dl");
    host_symlink(&t, "../d/f", "d/up"); /* d/up -> box/d/f */
    assert_int_equal(stat_path(&t, 3, "dl/f", 0, &type), E_SUCCESS);
    assert_int_equal(stat_path(&t, 3, "dl/up", FOLLOW, &type), E_SUCCESS);
    assert_int_equal(type, T_REGULAR);

    /* A link to itself. */
    host_symlink(&t, "loop", "loop");
    assert_int_equal(stat_path(&t, 3, "loop", FOLLOW, &type), E_LOOP);
    assert_int_equal(stat_path(&t, 3, "loop/x", 0, &type), E_LOOP);

    /* O_CREAT | O_EXCL does not follow a dangling link to create its target. */
    host_symlink(&t, "target", "dangling");
    assert_int_equal(twasi_open_path(&t, 3, "dangling", FOLLOW, O_CREAT_ | O_EXCL_, ALL_RIGHTS,
                                     &fd),
                     E_EXIST);
    assert_int_equal(stat_path(&t, 3, "target", 0, &type), E_NOENT);
    twasi_close(&t);
}

/* ---- escapes ---------------------------------------------------------------- */

static void test_absolute_paths_and_dot_dot_above_the_directory_are_refused(void **state)
{
    (void)state;
    twasi t = {0};
    twasi_open_box(&t);
    assert_int_equal(on_path(&t, "path_create_directory", 3, "d"), E_SUCCESS);
    char secret[128];
    snprintf(secret, sizeof secret, "%s/secret", t.root);
    const char *escapes[] = {"../secret", "..", "d/../../secret", "d/../d/../../secret",
                             "./../secret", "/etc/passwd", secret, "//x"};
    for (size_t i = 0; i < COUNT_OF(escapes); i++) {
        uint32_t fd;
        uint8_t type;
        if (twasi_open_path(&t, 3, escapes[i], FOLLOW, 0, ALL_RIGHTS, &fd) != E_PERM ||
            stat_path(&t, 3, escapes[i], FOLLOW, &type) != E_PERM)
            fail_msg("%s was not refused with EPERM", escapes[i]);
    }
    /* Creating and removing outside too. */
    assert_int_equal(on_path(&t, "path_create_directory", 3, "../made"), E_PERM);
    assert_int_equal(on_path(&t, "path_unlink_file", 3, "../secret"), E_PERM);
    uint32_t from = twasi_str(&t, 100, "../secret"), to = twasi_str(&t, 200, "stolen");
    assert_int_equal(WASI(&t, path_rename, 3, 100, from, 3, 200, to), E_PERM);
    assert_int_equal(WASI(&t, path_link, 3, 0, 100, from, 3, 200, to), E_PERM);

    /* A directory opened from the box is a capability of its own: ".."
     * above it is refused although the box contains it. */
    uint32_t d;
    assert_int_equal(twasi_open_path(&t, 3, "d", 0, O_DIRECTORY_, ALL_RIGHTS, &d), E_SUCCESS);
    uint8_t type;
    assert_int_equal(stat_path(&t, d, "..", 0, &type), E_PERM);
    assert_int_equal(stat_path(&t, d, ".", 0, &type), E_SUCCESS);

    char host[160];
    snprintf(host, sizeof host, "%s/made", t.root);
    struct stat st;
    assert_int_equal(stat(host, &st), -1);
    twasi_host_read(t.root, "secret", host, sizeof host);
    assert_string_equal(host, "the host's secret\n");
    twasi_close(&t);
}

static void test_symlinks_cannot_lead_out(void **state)
{
    (void)state;
    twasi t = {0};
    twasi_open_box(&t);
    char secret[128];
    snprintf(secret, sizeof secret, "%s/secret", t.root);
    host_symlink(&t, secret, "abs");        /* absolute, outside */
    host_symlink(&t, t.box, "self");        /* absolute, even to the box itself */
    host_symlink(&t, "../secret", "rel");   /* relative, climbing out */
    host_symlink(&t, "..", "parent");       /* used as a directory */
    snprintf(secret, sizeof secret, "%s/d", t.box);
    assert_int_equal(mkdir(secret, 0777), 0);
    host_symlink(&t, "../..", "d/up2");     /* two levels from d */
    host_symlink(&t, "rel", "chain");       /* via another link */

    const char *paths[] = {"abs", "self/x", "rel", "parent/secret", "d/up2/secret",
                           "chain", "d/../parent/secret"};
    for (size_t i = 0; i < COUNT_OF(paths); i++) {
        uint32_t fd;
        uint8_t type;
        if (twasi_open_path(&t, 3, paths[i], FOLLOW, 0, ALL_RIGHTS, &fd) != E_PERM ||
            stat_path(&t, 3, paths[i], FOLLOW, &type) != E_PERM)
            fail_msg("%s was not refused with EPERM", paths[i]);
    }
    /* Not following the final link: the open fails, stat sees the link. */
    uint32_t fd;
    uint8_t type;
    assert_int_equal(twasi_open_path(&t, 3, "abs", 0, 0, ALL_RIGHTS, &fd), E_LOOP);
    assert_int_equal(stat_path(&t, 3, "abs", 0, &type), E_SUCCESS);
    assert_int_equal(type, T_SYMLINK);
    /* O_CREAT through a link out creates nothing outside. */
    host_symlink(&t, "../created", "out");
    assert_int_equal(twasi_open_path(&t, 3, "out", FOLLOW, O_CREAT_, ALL_RIGHTS, &fd), E_PERM);
    assert_int_equal(twasi_open_path(&t, 3, "out", 0, O_CREAT_, ALL_RIGHTS, &fd), E_LOOP);
    char host[160];
    snprintf(host, sizeof host, "%s/created", t.root);
    struct stat st;
    assert_int_equal(lstat(host, &st), -1);

    /* The guest cannot make absolute links. */
    uint32_t text = twasi_str(&t, 100, "/etc/passwd"), name = twasi_str(&t, 200, "mine");
    assert_int_equal(WASI(&t, path_symlink, 100, text, 3, 200, name), E_PERM);
    twasi_close(&t);
}

/* symlink(text, name) by the guest, through directory fd 3. */
static uint32_t guest_symlink(twasi *t, const char *text, const char *name)
{
    uint32_t tl = twasi_str(t, 100, text), nl = twasi_str(t, 600, name);
    return WASI(t, path_symlink, 100, tl, 3, 600, nl);
}

/* path_rename or path_link (not following) of from to to, both through fd 3. */
static uint32_t guest_move(twasi *t, const char *fn, const char *from, const char *to)
{
    uint32_t fl = twasi_str(t, 100, from), tl = twasi_str(t, 600, to);
    if (strcmp(fn, "path_link") == 0)
        return WASI(t, path_link, 3, 0, 100, fl, 3, 600, tl);
    return WASI(t, path_rename, 3, 100, fl, 3, 600, tl);
}

/* Whether box/name exists on the host (a link is not followed). */
static bool on_host(twasi *t, const char *name)
{
    char path[256];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", t->box, name);
    return lstat(path, &st) == 0;
}

static void test_guest_links_cannot_lead_out(void **state)
{
    (void)state;
    twasi t = {0};
    twasi_open_box(&t);
    assert_int_equal(on_path(&t, "path_create_directory", 3, "sub"), E_SUCCESS);
    assert_int_equal(on_path(&t, "path_create_directory", 3, "sub/deeper"), E_SUCCESS);
    twasi_host_write(t.box, "file", "in");
    twasi_host_write(t.box, "sub/file", "in sub");

    /* Refused, and nothing left on the host. */
    const char *texts[] = {"../outside", "/etc/passwd", "a/../../x", "a/../x", "./..",
                           "sub/../../x", "..//outside"};
    for (size_t i = 0; i < COUNT_OF(texts); i++) {
        if (guest_symlink(&t, texts[i], "evil") != E_PERM)
            fail_msg("symlink(\"%s\", \"evil\") was not refused with EPERM", texts[i]);
        assert_false(on_host(&t, "evil"));
    }
    assert_int_equal(guest_symlink(&t, "../../x", "sub/evil"), E_PERM);
    assert_false(on_host(&t, "sub/evil"));

    /* Links that stay inside are made. */
    assert_int_equal(guest_symlink(&t, "sub/file", "ok"), E_SUCCESS);
    assert_int_equal(guest_symlink(&t, "../file", "sub/ok"), E_SUCCESS);
    assert_int_equal(guest_symlink(&t, "./../.", "sub/root"), E_SUCCESS);
    assert_int_equal(guest_symlink(&t, "../../file", "sub/deeper/ok"), E_SUCCESS);
    assert_true(on_host(&t, "ok") && on_host(&t, "sub/ok") && on_host(&t, "sub/deeper/ok"));
    uint8_t type;
    assert_int_equal(stat_path(&t, 3, "sub/ok", FOLLOW, &type), E_SUCCESS);
    assert_int_equal(type, T_REGULAR);

    /* A link moved or hard-linked to a shallower place would lead out. */
    assert_int_equal(guest_move(&t, "path_rename", "sub/ok", "moved"), E_PERM);
    assert_int_equal(guest_move(&t, "path_link", "sub/ok", "linked"), E_PERM);
    assert_false(on_host(&t, "moved") || on_host(&t, "linked"));
    assert_true(on_host(&t, "sub/ok"));
    assert_int_equal(guest_move(&t, "path_rename", "sub/ok", "sub/deeper/moved"), E_SUCCESS);
    assert_int_equal(guest_move(&t, "path_link", "ok", "sub/linked"), E_SUCCESS);
    /* So would the directory holding one, moved up; at the same depth it may move. */
    assert_int_equal(guest_move(&t, "path_rename", "sub/deeper", "deeper"), E_PERM);
    assert_false(on_host(&t, "deeper"));
    assert_int_equal(guest_move(&t, "path_rename", "sub", "sub2"), E_SUCCESS);
    assert_int_equal(on_path(&t, "path_unlink_file", 3, "sub2/deeper/ok"), E_SUCCESS);
    assert_int_equal(on_path(&t, "path_unlink_file", 3, "sub2/deeper/moved"), E_SUCCESS);
    assert_int_equal(guest_move(&t, "path_rename", "sub2/deeper", "deeper"), E_SUCCESS);

    /* Through a subdirectory's fd, its own ".." is out of reach. */
    uint32_t fd, len = twasi_str(&t, 100, "sub2");
    assert_int_equal(WASI(&t, path_open, 3, 0, 100, len, O_DIRECTORY_, ALL_RIGHTS, ALL_RIGHTS,
                          0, 200),
                     E_SUCCESS);
    fd = twasi_u32(&t, 200);
    uint32_t tl = twasi_str(&t, 100, "../file"), nl = twasi_str(&t, 600, "up");
    assert_int_equal(WASI(&t, path_symlink, 100, tl, fd, 600, nl), E_PERM);
    assert_false(on_host(&t, "sub2/up"));
    twasi_close(&t);
}

/* ---- bad arguments ------------------------------------------------------- */

static void test_bad_paths_fds_and_pointers(void **state)
{
    (void)state;
    twasi t = {0};
    twasi_open_box(&t);
    twasi_host_write(t.box, "file", "x");
    uint32_t size = twasi_mem_size(&t), fd;
    memcpy(twasi_mem(&t, 100), "file\0x", 6);
    assert_int_equal(WASI(&t, path_open, 3, 0, 100, 6, 0, ALL_RIGHTS, ALL_RIGHTS, 0, 200),
                     E_INVAL);
    assert_int_equal(WASI(&t, path_open, 3, 0, 100, 0, 0, ALL_RIGHTS, ALL_RIGHTS, 0, 200),
                     E_NOENT);
    assert_int_equal(WASI(&t, path_open, 3, 0, size - 2, 4, 0, ALL_RIGHTS, ALL_RIGHTS, 0, 200),
                     E_FAULT);
    assert_int_equal(WASI(&t, path_open, 3, 0, 100, 4, 0, ALL_RIGHTS, ALL_RIGHTS, 0, size - 3),
                     E_FAULT);
    assert_int_equal(WASI(&t, path_open, 3, 0, 100, 4, 16, ALL_RIGHTS, ALL_RIGHTS, 0, 200),
                     E_INVAL); /* unknown oflags */
    assert_int_equal(WASI(&t, path_open, 9, 0, 100, 4, 0, ALL_RIGHTS, ALL_RIGHTS, 0, 200),
                     E_BADF);
    /* A path relative to a file. */
    assert_int_equal(twasi_open_path(&t, 3, "file", 0, 0, ALL_RIGHTS, &fd), E_SUCCESS);
    assert_int_equal(twasi_open_path(&t, fd, "x", 0, 0, ALL_RIGHTS, &fd), E_NOTDIR);
    /* A name longer than any host allows. */
    char longname[300];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    assert_int_equal(twasi_open_path(&t, 3, longname, 0, 0, ALL_RIGHTS, &fd), E_NAMETOOLONG);
    /* readlink into a buffer outside memory. */
    uint32_t len = twasi_str(&t, 100, "file");
    assert_int_equal(WASI(&t, path_readlink, 3, 100, len, size - 4, 8, 200), E_FAULT);
    twasi_close(&t);
}

static void test_directory_rights_limit_what_opens_through_it(void **state)
{
    (void)state;
    twasi t = {0};
    twasi_open_box(&t);
    assert_int_equal(on_path(&t, "path_create_directory", 3, "d"), E_SUCCESS);
    uint32_t d, fd;
    /* d may open files but not create them; files from it may only be read. */
    uint32_t len = twasi_str(&t, 100, "d");
    assert_int_equal(WASI(&t, path_open, 3, 0, 100, len, O_DIRECTORY_, R_PATH_OPEN, R_FD_READ,
                          0, 200),
                     E_SUCCESS);
    d = twasi_u32(&t, 200);
    assert_int_equal(twasi_open_path(&t, d, "new", 0, O_CREAT_, ALL_RIGHTS, &fd), E_NOTCAPABLE);
    twasi_host_write(t.box, "d/old", "old");
    assert_int_equal(twasi_open_path(&t, d, "old", 0, 0, ALL_RIGHTS, &fd), E_SUCCESS);
    assert_int_equal(WASI(&t, fd_fdstat_get, fd, 300), E_SUCCESS);
    assert_int_equal(twasi_u64(&t, 308), R_FD_READ);
    twasi_iovec(&t, 400, 0, 500, 3);
    assert_int_equal(WASI(&t, fd_write, fd, 400, 1, 600), E_BADF);
    assert_int_equal(WASI(&t, fd_read, fd, 400, 1, 600), E_SUCCESS);
    twasi_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths_with_dots_and_slashes_resolve_inside),
        cmocka_unit_test(test_trailing_slashes_name_directories),
        cmocka_unit_test(test_create_rename_link_unlink_and_remove),
        cmocka_unit_test(test_symlinks_inside_work),
        cmocka_unit_test(test_absolute_paths_and_dot_dot_above_the_directory_are_refused),
        cmocka_unit_test(test_symlinks_cannot_lead_out),
        cmocka_unit_test(test_guest_links_cannot_lead_out),
        cmocka_unit_test(test_bad_paths_fds_and_pointers),
        cmocka_unit_test(test_directory_rights_limit_what_opens_through_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
