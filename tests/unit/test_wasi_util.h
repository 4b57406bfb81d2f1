/*
 * test_wasi_util.h - what the WASI host's tests share: a module importing
 * every wasi_snapshot_preview1 function (and a one-instruction function so
 * that it verifies), a VM and a WASI host bound to it, calling a host
 * function by name with arguments in x0, x1, ... as translated code does,
 * guest memory access, and a scratch directory tree on the host:
 *
 *   ROOT/            (mkdtemp)
 *     secret         a file the guest must never reach
 *     box/           granted to the guest as fd 3, named "box"
 */
#ifndef PULLEY_TEST_WASI_UTIL_H
#define PULLEY_TEST_WASI_UTIL_H

#include "test_vm_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wasi.h"

/* WASI errno numbers the tests expect (WASI's numbering). */
enum {
    E_SUCCESS = 0, E_BADF = 8, E_EXIST = 20, E_FAULT = 21, E_INVAL = 28, E_ISDIR = 31,
    E_LOOP = 32, E_NAMETOOLONG = 37, E_NOENT = 44, E_NOSYS = 52, E_NOTDIR = 54,
    E_NOTEMPTY = 55, E_NOTSUP = 58, E_PERM = 63, E_NOTCAPABLE = 76,
};

static const char *const twasi_functions[] = {
    "args_get", "args_sizes_get", "environ_get", "environ_sizes_get", "clock_res_get",
    "clock_time_get", "fd_advise", "fd_allocate", "fd_close", "fd_datasync",
    "fd_fdstat_get", "fd_fdstat_set_flags", "fd_fdstat_set_rights", "fd_filestat_get",
    "fd_filestat_set_size", "fd_filestat_set_times", "fd_pread", "fd_prestat_get",
    "fd_prestat_dir_name", "fd_pwrite", "fd_read", "fd_readdir", "fd_renumber", "fd_seek",
    "fd_sync", "fd_tell", "fd_write", "path_create_directory", "path_filestat_get",
    "path_filestat_set_times", "path_link", "path_open", "path_readlink",
    "path_remove_directory", "path_rename", "path_symlink", "path_unlink_file",
    "poll_oneoff", "proc_exit", "proc_raise", "sched_yield", "random_get", "sock_accept",
    "sock_recv", "sock_send", "sock_shutdown",
};

typedef struct twasi {
    pvm_module *m;
    pvm_vm *vm;
    pvm_wasi *w;
    char root[64];      /* scratch tree, or "" */
    char box[96];       /* ROOT/box */
} twasi;

/* A module importing every WASI function, a VM and a host for it. */
static inline void twasi_open_with(twasi *t, int argc, char *const *argv, char *const *envp,
                                   const char *const *dirs, size_t ndirs)
{
    static const tvm_insn ret[] = {INS(ret)};
    t->m = tvm_module();
    tvm_add(t->m, "main", ret, COUNT_OF(ret));
    for (size_t i = 0; i < COUNT_OF(twasi_functions); i++) {
        char name[96];
        snprintf(name, sizeof name, PVM_WASI_MODULE ".%s", twasi_functions[i]);
        assert_int_equal(pvm_module_add_import(t->m, name, NULL), (int)i);
    }
    t->vm = tvm_vm(t->m);
    pvm_error err;
    t->w = pvm_wasi_new(argc, argv, envp, dirs, ndirs, &err);
    if (!t->w)
        fail_msg("pvm_wasi_new: %s", err.msg);
    assert_int_equal(pvm_wasi_bind(t->w, t->vm), (int)COUNT_OF(twasi_functions));
    pvm_error check;
    assert_int_equal(pvm_vm_check_imports(t->vm, &check), 0);
}

/* Remove the directory tree at dirfd/name (best effort, for clean-up). */
static inline void twasi_remove_tree(int parent, const char *name)
{
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    if (fd >= 0) {
        DIR *d = fdopendir(fd);
        if (!d) {
            close(fd);
            return;
        }
        struct dirent *de;
        while ((de = readdir(d)))
            if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
                twasi_remove_tree(dirfd(d), de->d_name);
        closedir(d);
        unlinkat(parent, name, AT_REMOVEDIR);
    } else {
        unlinkat(parent, name, 0);
    }
}

/* Make the scratch tree. */
static inline void twasi_make_tree(twasi *t)
{
    strcpy(t->root, "/tmp/pulley-wasi-XXXXXX");
    assert_non_null(mkdtemp(t->root));
    snprintf(t->box, sizeof t->box, "%s/box", t->root);
    assert_int_equal(mkdir(t->box, 0777), 0);
    char secret[96];
    snprintf(secret, sizeof secret, "%s/secret", t->root);
    FILE *f = fopen(secret, "w");
    assert_non_null(f);
    fputs("the host's secret\n", f);
    assert_int_equal(fclose(f), 0);
}

/* A host with a scratch tree: fd 3 is ROOT/box, granted as "box". */
static inline void twasi_open_box(twasi *t)
{
    twasi_make_tree(t);
    char spec[128];
    snprintf(spec, sizeof spec, "%s::box", t->box);
    const char *dirs[] = {spec};
    char *argv[] = {"prog", NULL};
    twasi_open_with(t, 1, argv, NULL, dirs, 1);
}

static inline void twasi_close(twasi *t)
{
    pvm_wasi_free(t->w);
    pvm_vm_free(t->vm);
    pvm_module_free(t->m);
    if (t->root[0])
        twasi_remove_tree(AT_FDCWD, t->root);
}

/* Guest memory at addr (the tests' one way into it). */
static inline uint8_t *twasi_mem(const twasi *t, uint32_t addr)
{
    return t->vm->memory->bytes + addr;
}

/* The guest memory size. */
static inline uint32_t twasi_mem_size(const twasi *t) { return (uint32_t)t->vm->memory->size; }

/* Call WASI function `name` with args in x0.. and return its errno. */
static inline uint32_t twasi_call_args(twasi *t, const char *name, const uint64_t *args, size_t n)
{
    char full[96];
    snprintf(full, sizeof full, PVM_WASI_MODULE ".%s", name);
    int i = pvm_module_find_import(t->m, full);
    assert_true(i >= 0);
    for (size_t k = 0; k < n; k++)
        t->vm->x[k] = args[k];
    pvm_host_binding *h = &t->vm->hosts[i];
    assert_non_null(h->fn);
    assert_int_equal(h->fn(t->vm, h->ctx), PVM_TRAP_NONE);
    assert_true(t->vm->x[0] <= 76);
    return (uint32_t)t->vm->x[0];
}

#define WASI(t, name, ...)                                                     \
    twasi_call_args((t), #name, (const uint64_t[]){__VA_ARGS__},               \
                    sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t))

/* Guest memory layout helpers. */
static inline uint32_t twasi_u32(const twasi *t, uint32_t addr) { return pvm_rd32(twasi_mem(t, addr)); }
static inline uint64_t twasi_u64(const twasi *t, uint32_t addr) { return pvm_rd64(twasi_mem(t, addr)); }

/* Store string s (no NUL) at addr; returns its length. */
static inline uint32_t twasi_str(twasi *t, uint32_t addr, const char *s)
{
    memcpy(twasi_mem(t, addr), s, strlen(s));
    return (uint32_t)strlen(s);
}

/* Store iovec i of the array at addr: (buf, len). */
static inline void twasi_iovec(twasi *t, uint32_t addr, unsigned i, uint32_t buf, uint32_t len)
{
    pvm_wr32(twasi_mem(t, addr + 8 * i), buf);
    pvm_wr32(twasi_mem(t, addr + 8 * i + 4), len);
}

/* path_open of `path` below fd `dir` with the given oflags, rights and
 * lookup flags; returns the errno and stores the new fd in *fd. */
static inline uint32_t twasi_open_path(twasi *t, uint32_t dir, const char *path, uint32_t lookup,
                                       uint32_t oflags, uint64_t rights, uint32_t *fd)
{
    uint32_t len = twasi_str(t, 1024, path);
    uint32_t e = WASI(t, path_open, dir, lookup, 1024, len, oflags, rights, rights, 0, 2048);
    *fd = e == E_SUCCESS ? twasi_u32(t, 2048) : UINT32_MAX;
    return e;
}

/* The whole contents of host file dir/name, NUL-terminated, in buf. */
static inline void twasi_host_read(const char *dir, const char *name, char *buf, size_t cap)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
}

static inline void twasi_host_write(const char *dir, const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* Rights (WASI's bit numbers), oflags, lookup flags, file types. */
#define ALL_RIGHTS UINT64_C(0x3fffffff)
#define R_FD_READ (UINT64_C(1) << 1)
#define R_FD_SEEK (UINT64_C(1) << 2)
#define R_FD_TELL (UINT64_C(1) << 5)
#define R_FD_WRITE (UINT64_C(1) << 6)
#define R_PATH_CREATE_FILE (UINT64_C(1) << 10)
#define R_PATH_OPEN (UINT64_C(1) << 13)
#define R_FD_READDIR (UINT64_C(1) << 14)
enum { O_CREAT_ = 1, O_DIRECTORY_ = 2, O_EXCL_ = 4, O_TRUNC_ = 8 };
enum { FOLLOW = 1 };
enum { T_DIRECTORY = 3, T_REGULAR = 4, T_SYMLINK = 7 };

#endif
