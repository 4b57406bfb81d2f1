/*
 * wasi_internal.h - what the files of the WASI host share: WASI's constants
 * (errno numbers, file types, rights, flags), the guest fd table, the one
 * place that knows where guest memory lives, and the list of host functions.
 *
 * Every host function is written as
 *
 *     WASI_HOST(fd_tell)              (fd: i32, offset_out: i32) -> errno
 *     {
 *         ... return WASI_ESUCCESS or another WASI errno ...
 *     }
 *
 * which defines wasi_fd_tell(vm, ctx): it runs the body with `w` (the
 * pvm_wasi) and `vm` in scope and stores the returned errno in x0.
 */
#ifndef PULLEY_WASI_INTERNAL_H
#define PULLEY_WASI_INTERNAL_H

#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "bytes.h"
#include "wasi.h"

/* ---- errno (WASI's numbering, not the host's) ----------------------------- */

enum {
    WASI_ESUCCESS, WASI_E2BIG, WASI_EACCES, WASI_EADDRINUSE, WASI_EADDRNOTAVAIL,
    WASI_EAFNOSUPPORT, WASI_EAGAIN, WASI_EALREADY, WASI_EBADF, WASI_EBADMSG,
    WASI_EBUSY, WASI_ECANCELED, WASI_ECHILD, WASI_ECONNABORTED, WASI_ECONNREFUSED,
    WASI_ECONNRESET, WASI_EDEADLK, WASI_EDESTADDRREQ, WASI_EDOM, WASI_EDQUOT,
    WASI_EEXIST, WASI_EFAULT, WASI_EFBIG, WASI_EHOSTUNREACH, WASI_EIDRM,
    WASI_EILSEQ, WASI_EINPROGRESS, WASI_EINTR, WASI_EINVAL, WASI_EIO,
    WASI_EISCONN, WASI_EISDIR, WASI_ELOOP, WASI_EMFILE, WASI_EMLINK,
    WASI_EMSGSIZE, WASI_EMULTIHOP, WASI_ENAMETOOLONG, WASI_ENETDOWN, WASI_ENETRESET,
    WASI_ENETUNREACH, WASI_ENFILE, WASI_ENOBUFS, WASI_ENODEV, WASI_ENOENT,
    WASI_ENOEXEC, WASI_ENOLCK, WASI_ENOLINK, WASI_ENOMEM, WASI_ENOMSG,
    WASI_ENOPROTOOPT, WASI_ENOSPC, WASI_ENOSYS, WASI_ENOTCONN, WASI_ENOTDIR,
    WASI_ENOTEMPTY, WASI_ENOTRECOVERABLE, WASI_ENOTSOCK, WASI_ENOTSUP, WASI_ENOTTY,
    WASI_ENXIO, WASI_EOVERFLOW, WASI_EOWNERDEAD, WASI_EPERM, WASI_EPIPE,
    WASI_EPROTO, WASI_EPROTONOSUPPORT, WASI_EPROTOTYPE, WASI_ERANGE, WASI_EROFS,
    WASI_ESPIPE, WASI_ESRCH, WASI_ESTALE, WASI_ETIMEDOUT, WASI_ETXTBSY,
    WASI_EXDEV, WASI_ENOTCAPABLE,
};

/* The WASI errno for a host errno value (EIO for one WASI has no name for). */
uint16_t wasi_errno(int host_errno);

/* ---- file types, flags, rights -------------------------------------------- */

enum {
    WASI_FILETYPE_UNKNOWN, WASI_FILETYPE_BLOCK_DEVICE, WASI_FILETYPE_CHARACTER_DEVICE,
    WASI_FILETYPE_DIRECTORY, WASI_FILETYPE_REGULAR_FILE, WASI_FILETYPE_SOCKET_DGRAM,
    WASI_FILETYPE_SOCKET_STREAM, WASI_FILETYPE_SYMBOLIC_LINK,
};

enum { /* fdflags */
    WASI_FDFLAG_APPEND = 1, WASI_FDFLAG_DSYNC = 2, WASI_FDFLAG_NONBLOCK = 4,
    WASI_FDFLAG_RSYNC = 8, WASI_FDFLAG_SYNC = 16,
};
enum { /* oflags */
    WASI_O_CREAT = 1, WASI_O_DIRECTORY = 2, WASI_O_EXCL = 4, WASI_O_TRUNC = 8,
};
enum { WASI_LOOKUP_SYMLINK_FOLLOW = 1 };
enum { /* fstflags */
    WASI_FST_ATIM = 1, WASI_FST_ATIM_NOW = 2, WASI_FST_MTIM = 4, WASI_FST_MTIM_NOW = 8,
};

#define WASI_RIGHT(n) (UINT64_C(1) << (n))
#define WASI_RIGHT_FD_DATASYNC WASI_RIGHT(0)
#define WASI_RIGHT_FD_READ WASI_RIGHT(1)
#define WASI_RIGHT_FD_SEEK WASI_RIGHT(2)
#define WASI_RIGHT_FD_FDSTAT_SET_FLAGS WASI_RIGHT(3)
#define WASI_RIGHT_FD_SYNC WASI_RIGHT(4)
#define WASI_RIGHT_FD_TELL WASI_RIGHT(5)
#define WASI_RIGHT_FD_WRITE WASI_RIGHT(6)
#define WASI_RIGHT_FD_ADVISE WASI_RIGHT(7)
#define WASI_RIGHT_FD_ALLOCATE WASI_RIGHT(8)
#define WASI_RIGHT_PATH_CREATE_DIRECTORY WASI_RIGHT(9)
#define WASI_RIGHT_PATH_CREATE_FILE WASI_RIGHT(10)
#define WASI_RIGHT_PATH_LINK_SOURCE WASI_RIGHT(11)
#define WASI_RIGHT_PATH_LINK_TARGET WASI_RIGHT(12)
#define WASI_RIGHT_PATH_OPEN WASI_RIGHT(13)
#define WASI_RIGHT_FD_READDIR WASI_RIGHT(14)
#define WASI_RIGHT_PATH_READLINK WASI_RIGHT(15)
#define WASI_RIGHT_PATH_RENAME_SOURCE WASI_RIGHT(16)
#define WASI_RIGHT_PATH_RENAME_TARGET WASI_RIGHT(17)
#define WASI_RIGHT_PATH_FILESTAT_GET WASI_RIGHT(18)
#define WASI_RIGHT_PATH_FILESTAT_SET_SIZE WASI_RIGHT(19)
#define WASI_RIGHT_PATH_FILESTAT_SET_TIMES WASI_RIGHT(20)
#define WASI_RIGHT_FD_FILESTAT_GET WASI_RIGHT(21)
#define WASI_RIGHT_FD_FILESTAT_SET_SIZE WASI_RIGHT(22)
#define WASI_RIGHT_FD_FILESTAT_SET_TIMES WASI_RIGHT(23)
#define WASI_RIGHT_PATH_SYMLINK WASI_RIGHT(24)
#define WASI_RIGHT_PATH_REMOVE_DIRECTORY WASI_RIGHT(25)
#define WASI_RIGHT_PATH_UNLINK_FILE WASI_RIGHT(26)
#define WASI_RIGHT_POLL_FD_READWRITE WASI_RIGHT(27)
#define WASI_RIGHT_SOCK_SHUTDOWN WASI_RIGHT(28)
#define WASI_RIGHT_SOCK_ACCEPT WASI_RIGHT(29)

/* ---- the guest fd table ----------------------------------------------------- */

typedef struct wasi_fd {
    int host;            /* host fd; -1: this guest fd is free */
    bool own;            /* close `host` when the guest closes it (not stdio) */
    uint8_t type;        /* WASI_FILETYPE_* */
    uint64_t base;       /* rights of the fd */
    uint64_t inheriting; /* rights of fds opened through it */
    char *preopen;       /* guest name of a granted directory, or NULL */
    DIR *dir;            /* fd_readdir stream, opened on first use */
    uint64_t dir_pos;    /* cookie of the entry `dir` reads next */
} wasi_fd;

struct pvm_wasi {
    char *args;          /* argc NUL-terminated strings, back to back */
    uint32_t argc, args_size;
    char *env;           /* likewise for the environment */
    uint32_t envc, env_size;
    wasi_fd *fds;        /* indexed by guest fd */
    uint32_t nfds;       /* slots in use or free below the highest open fd */
    uint32_t cap;
};

/* Highest number of guest fds open at once. */
#define WASI_MAX_FDS 65536u

/* The open guest fd `fd` with every right in `rights`: WASI_ESUCCESS with
 * *out set, WASI_EBADF (not open, or fd_read / fd_write without the right)
 * or WASI_ENOTCAPABLE (another right missing). */
uint16_t wasi_fd_lookup(pvm_wasi *w, uint32_t fd, uint64_t rights, wasi_fd **out);
/* Give host fd `host` guest fd `fd` (free, below WASI_MAX_FDS), with its
 * file type and at most `base` / `inheriting` of the rights that type
 * allows.  `own`: close `host` with the guest fd.  On failure (WASI_EMFILE,
 * WASI_ENOMEM, the errno of fstat) closes `host` if owned. */
uint16_t wasi_fd_place(pvm_wasi *w, uint32_t fd, int host, bool own, uint64_t base,
                       uint64_t inheriting);
/* The same for an owned host fd at the lowest free guest fd (*fd_out). */
uint16_t wasi_fd_insert(pvm_wasi *w, int host, uint64_t base, uint64_t inheriting,
                        uint32_t *fd_out);
/* Close guest fd e: its host fd if owned, its directory stream. */
void wasi_fd_release(wasi_fd *e);
/* Guest fds 0-2 for the host's open stdio fds (not owned). */
uint16_t wasi_fd_add_stdio(pvm_wasi *w);
/* The rights a file of this type can have (base and inheriting). */
void wasi_type_rights(uint8_t type, uint64_t *base, uint64_t *inheriting);
/* The WASI file type of host fd `host` with status st (host < 0: a path). */
uint8_t wasi_filetype(int host, const struct stat *st);

/* ---- paths inside a directory (wasi_resolve.c) ------------------------------ */

#define WASI_PATH_MAX 4096
#define WASI_NAME_MAX 255

/* Where a guest path leads: the last component, in a directory. */
typedef struct wasi_target {
    int dir;                      /* host fd of that directory (owned) */
    char name[WASI_NAME_MAX + 1]; /* no '/', never "..": "." or a name */
    bool must_dir;                /* the path ended in '/' */
    unsigned depth;               /* directories between the root and dir */
} wasi_target;

/* Resolve guest path path[0..len) below host directory `root`, following
 * symbolic links in it (and in the last component too when `follow`, or
 * when the path ends in '/').  Errors: WASI_EPERM for a path that leaves
 * `root` (absolute, too many "..", a link that is absolute or leads out),
 * WASI_EINVAL for a NUL byte, WASI_ELOOP, WASI_ENAMETOOLONG, or the errno
 * of a component that cannot be opened. */
uint16_t wasi_resolve(int root, const uint8_t *path, size_t len, bool follow, wasi_target *t);

/* ---- links the guest makes (wasi_links.c) ---------------------------------- */

/* WASI_EPERM unless the link text text[0..len), in a directory `depth`
 * levels below the guest's directory, leads to a place inside it (some
 * "..", no more than depth, then names). */
uint16_t wasi_link_text_check(const char *text, size_t len, unsigned depth);
/* The file `name` in `dir`, about to move to a directory `depth` levels
 * below the guest's: a link's text is checked there, and when whole_tree,
 * a directory's every link below it too.  WASI_EPERM for a link that would
 * lead out. */
uint16_t wasi_link_check_moved(int dir, const char *name, unsigned depth, bool whole_tree);

/* ---- guest memory: the only code that knows where it lives --------------- */

/* Bytes of guest (Wasm linear) memory. */
static inline uint64_t wasi_guest_size(const pvm_vm *vm) { return vm->memory->size; }

/* Host address of guest bytes [addr, addr + len), or NULL when any of them
 * is outside guest memory. */
static inline uint8_t *wasi_guest_bytes(pvm_vm *vm, uint64_t addr, uint64_t len)
{
    uint64_t size = wasi_guest_size(vm);
    if (len > size || addr > size - len)
        return NULL;
    return vm->memory->bytes + addr;
}

/* Store a u64 result at guest address addr (WASI_EFAULT if outside). */
static inline uint16_t wasi_store64(pvm_vm *vm, uint64_t addr, uint64_t v)
{
    uint8_t *p = wasi_guest_bytes(vm, addr, 8);
    if (!p)
        return WASI_EFAULT;
    pvm_wr64(p, v);
    return WASI_ESUCCESS;
}

/* ---- arguments and shared helpers ----------------------------------------- */

/* Argument k as an i32 (zero-extended in its register) or an i64. */
static inline uint32_t wasi_arg32(const pvm_vm *vm, unsigned k) { return (uint32_t)vm->x[k]; }
static inline uint64_t wasi_arg64(const pvm_vm *vm, unsigned k) { return vm->x[k]; }

/* Argument k as an s64 (the two's complement bits of its register). */
static inline int64_t wasi_arg_s64(const pvm_vm *vm, unsigned k)
{
    uint64_t v = vm->x[k];
    return v <= INT64_MAX ? (int64_t)v : -(int64_t)~v - 1;
}

/* A WASI timestamp (ns) from a host time, clamped to 0..UINT64_MAX. */
uint64_t wasi_timestamp(const struct timespec *ts);
/* The 64-byte WASI filestat of st, at out. */
void wasi_put_filestat(uint8_t *out, int host, const struct stat *st);
/* The host times for futimens / utimensat from WASI's (atim, mtim,
 * fst_flags): WASI_EINVAL for a time both given and "now". */
uint16_t wasi_set_times(uint64_t atim, uint64_t mtim, uint32_t fst_flags,
                        struct timespec ts[2]);
/* Bytes of a filestat. */
#define WASI_FILESTAT_SIZE 64

#define WASI_HOST(name)                                                        \
    static uint16_t name##_body(pvm_wasi *w, pvm_vm *vm);                      \
    pvm_trap_kind wasi_##name(pvm_vm *vm, void *ctx)                           \
    {                                                                          \
        vm->x[0] = name##_body(ctx, vm);                                       \
        return PVM_TRAP_NONE;                                                  \
    }                                                                          \
    static uint16_t name##_body(pvm_wasi *w __attribute__((unused)),           \
                                pvm_vm *vm __attribute__((unused)))

/* ---- the host functions, by file ------------------------------------------ */

#define WASI_FUNCTIONS(F)                                                      \
    /* wasi_proc.c */                                                          \
    F(args_get) F(args_sizes_get) F(environ_get) F(environ_sizes_get)         \
    F(clock_res_get) F(clock_time_get) F(random_get) F(proc_exit)             \
    F(proc_raise) F(sched_yield)                                               \
    F(sock_accept) F(sock_recv) F(sock_send) F(sock_shutdown)                  \
    /* wasi_poll.c */                                                          \
    F(poll_oneoff)                                                             \
    /* wasi_fd.c */                                                            \
    F(fd_read) F(fd_write) F(fd_pread) F(fd_pwrite) F(fd_seek) F(fd_tell)      \
    F(fd_sync) F(fd_datasync) F(fd_advise) F(fd_allocate)                      \
    F(fd_filestat_get) F(fd_filestat_set_size) F(fd_filestat_set_times)        \
    /* wasi_fdstat.c */                                                        \
    F(fd_close) F(fd_renumber) F(fd_fdstat_get) F(fd_fdstat_set_flags)         \
    F(fd_fdstat_set_rights) F(fd_prestat_get) F(fd_prestat_dir_name)           \
    F(fd_readdir)                                                              \
    /* wasi_path.c */                                                          \
    F(path_open) F(path_filestat_get) F(path_filestat_set_times)               \
    F(path_create_directory) F(path_remove_directory) F(path_unlink_file)      \
    F(path_rename) F(path_link) F(path_symlink) F(path_readlink)

#define WASI_DECLARE(name) pvm_trap_kind wasi_##name(pvm_vm *vm, void *ctx);
WASI_FUNCTIONS(WASI_DECLARE)
#undef WASI_DECLARE

#endif
