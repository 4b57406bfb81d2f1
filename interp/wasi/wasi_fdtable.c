/*
 * wasi_fdtable.c - the guest fd table: guest fds are indexes into a table
 * of host fds, so the guest never sees a host fd number.  Each entry keeps
 * the WASI file type and rights of the fd; rights only ever shrink (a file
 * opened through a directory gets at most the directory's inheriting
 * rights, and at most what its type allows).  Also the WASI filestat of a
 * host file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/grow.h"
#include "wasi_internal.h"

#define RIGHTS_FILE                                                            \
    (WASI_RIGHT_FD_DATASYNC | WASI_RIGHT_FD_READ | WASI_RIGHT_FD_SEEK |         \
     WASI_RIGHT_FD_FDSTAT_SET_FLAGS | WASI_RIGHT_FD_SYNC | WASI_RIGHT_FD_TELL |  \
     WASI_RIGHT_FD_WRITE | WASI_RIGHT_FD_ADVISE | WASI_RIGHT_FD_ALLOCATE |       \
     WASI_RIGHT_FD_FILESTAT_GET | WASI_RIGHT_FD_FILESTAT_SET_SIZE |             \
     WASI_RIGHT_FD_FILESTAT_SET_TIMES | WASI_RIGHT_POLL_FD_READWRITE)
#define RIGHTS_DIRECTORY                                                       \
    (WASI_RIGHT_FD_FDSTAT_SET_FLAGS | WASI_RIGHT_FD_SYNC | WASI_RIGHT_FD_ADVISE | \
     WASI_RIGHT_PATH_CREATE_DIRECTORY | WASI_RIGHT_PATH_CREATE_FILE |           \
     WASI_RIGHT_PATH_LINK_SOURCE | WASI_RIGHT_PATH_LINK_TARGET |                \
     WASI_RIGHT_PATH_OPEN | WASI_RIGHT_FD_READDIR | WASI_RIGHT_PATH_READLINK |   \
     WASI_RIGHT_PATH_RENAME_SOURCE | WASI_RIGHT_PATH_RENAME_TARGET |            \
     WASI_RIGHT_PATH_FILESTAT_GET | WASI_RIGHT_PATH_FILESTAT_SET_SIZE |         \
     WASI_RIGHT_PATH_FILESTAT_SET_TIMES | WASI_RIGHT_FD_FILESTAT_GET |          \
     WASI_RIGHT_FD_FILESTAT_SET_TIMES | WASI_RIGHT_PATH_SYMLINK |               \
     WASI_RIGHT_PATH_REMOVE_DIRECTORY | WASI_RIGHT_PATH_UNLINK_FILE |           \
     WASI_RIGHT_POLL_FD_READWRITE)
/* Pipes, sockets, terminals: no seeking (this is how wasi-libc's isatty
 * tells a terminal from a file). */
#define RIGHTS_STREAM                                                          \
    (WASI_RIGHT_FD_READ | WASI_RIGHT_FD_WRITE | WASI_RIGHT_FD_FDSTAT_SET_FLAGS | \
     WASI_RIGHT_FD_FILESTAT_GET | WASI_RIGHT_POLL_FD_READWRITE)
#define RIGHTS_SOCKET (RIGHTS_STREAM | WASI_RIGHT_SOCK_SHUTDOWN | WASI_RIGHT_SOCK_ACCEPT)

void wasi_type_rights(uint8_t type, uint64_t *base, uint64_t *inheriting)
{
    *inheriting = 0;
    switch (type) {
    case WASI_FILETYPE_DIRECTORY:
        *base = RIGHTS_DIRECTORY;
        *inheriting = RIGHTS_DIRECTORY | RIGHTS_FILE;
        break;
    case WASI_FILETYPE_REGULAR_FILE:
    case WASI_FILETYPE_BLOCK_DEVICE:
    case WASI_FILETYPE_CHARACTER_DEVICE: /* a terminal loses seek below */
        *base = RIGHTS_FILE;
        break;
    case WASI_FILETYPE_SOCKET_DGRAM:
    case WASI_FILETYPE_SOCKET_STREAM:
        *base = RIGHTS_SOCKET;
        break;
    case WASI_FILETYPE_SYMBOLIC_LINK:
        *base = 0;
        break;
    default:
        *base = RIGHTS_STREAM;
        break;
    }
}

uint8_t wasi_filetype(int host, const struct stat *st)
{
    if (S_ISREG(st->st_mode))
        return WASI_FILETYPE_REGULAR_FILE;
    if (S_ISDIR(st->st_mode))
        return WASI_FILETYPE_DIRECTORY;
    if (S_ISCHR(st->st_mode))
        return WASI_FILETYPE_CHARACTER_DEVICE;
    if (S_ISBLK(st->st_mode))
        return WASI_FILETYPE_BLOCK_DEVICE;
    if (S_ISLNK(st->st_mode))
        return WASI_FILETYPE_SYMBOLIC_LINK;
    if (S_ISSOCK(st->st_mode)) {
        int type = 0;
        socklen_t len = sizeof type;
        if (host >= 0 && getsockopt(host, SOL_SOCKET, SO_TYPE, &type, &len) == 0 &&
            type == SOCK_DGRAM)
            return WASI_FILETYPE_SOCKET_DGRAM;
        return WASI_FILETYPE_SOCKET_STREAM;
    }
    return WASI_FILETYPE_UNKNOWN; /* FIFOs among others */
}

uint64_t wasi_timestamp(const struct timespec *ts)
{
    if (ts->tv_sec < 0)
        return 0;
    if ((uint64_t)ts->tv_sec > (UINT64_MAX - 999999999u) / 1000000000u)
        return UINT64_MAX;
    return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

void wasi_put_filestat(uint8_t *out, int host, const struct stat *st)
{
    memset(out, 0, WASI_FILESTAT_SIZE);
    pvm_wr64(out + 0, (uint64_t)st->st_dev);
    pvm_wr64(out + 8, (uint64_t)st->st_ino);
    out[16] = wasi_filetype(host, st);
    pvm_wr64(out + 24, (uint64_t)st->st_nlink);
    pvm_wr64(out + 32, st->st_size > 0 ? (uint64_t)st->st_size : 0);
    pvm_wr64(out + 40, wasi_timestamp(&st->st_atim));
    pvm_wr64(out + 48, wasi_timestamp(&st->st_mtim));
    pvm_wr64(out + 56, wasi_timestamp(&st->st_ctim));
}

uint16_t wasi_fd_lookup(pvm_wasi *w, uint32_t fd, uint64_t rights, wasi_fd **out)
{
    if (fd >= w->nfds || w->fds[fd].host < 0)
        return WASI_EBADF;
    uint64_t missing = rights & ~w->fds[fd].base;
    if (missing & (WASI_RIGHT_FD_READ | WASI_RIGHT_FD_WRITE))
        return WASI_EBADF; /* as POSIX says of an fd not open for it */
    if (missing)
        return WASI_ENOTCAPABLE;
    *out = &w->fds[fd];
    return WASI_ESUCCESS;
}

/* Make fds[0..n) valid slots (new ones free). */
static uint16_t ensure_slots(pvm_wasi *w, uint32_t n)
{
    if (n > WASI_MAX_FDS)
        return WASI_EMFILE;
    size_t cap = w->cap; /* at most 2 * WASI_MAX_FDS */
    if (BASE_GROW(w->fds, cap, n, 16) != 0)
        return WASI_ENOMEM;
    w->cap = (uint32_t)cap;
    for (; w->nfds < n; w->nfds++)
        w->fds[w->nfds] = (wasi_fd){.host = -1};
    return WASI_ESUCCESS;
}

uint16_t wasi_fd_place(pvm_wasi *w, uint32_t fd, int host, bool own, uint64_t base,
                       uint64_t inheriting)
{
    struct stat st;
    uint16_t e = fstat(host, &st) == 0 ? WASI_ESUCCESS : wasi_errno(errno);
    if (e == WASI_ESUCCESS)
        e = fd < WASI_MAX_FDS ? ensure_slots(w, fd + 1) : WASI_EMFILE;
    if (e != WASI_ESUCCESS) {
        if (own)
            close(host);
        return e;
    }
    uint8_t type = wasi_filetype(host, &st);
    uint64_t type_base, type_inheriting;
    wasi_type_rights(type, &type_base, &type_inheriting);
    if (type == WASI_FILETYPE_CHARACTER_DEVICE && isatty(host))
        type_base &= ~(WASI_RIGHT_FD_SEEK | WASI_RIGHT_FD_TELL);
    w->fds[fd] = (wasi_fd){
        .host = host,
        .own = own,
        .type = type,
        .base = base & type_base,
        .inheriting = inheriting & type_inheriting,
    };
    return WASI_ESUCCESS;
}

uint16_t wasi_fd_insert(pvm_wasi *w, int host, uint64_t base, uint64_t inheriting,
                        uint32_t *fd_out)
{
    uint32_t fd = 0;
    while (fd < w->nfds && w->fds[fd].host >= 0)
        fd++;
    uint16_t e = wasi_fd_place(w, fd, host, true, base, inheriting);
    if (e == WASI_ESUCCESS)
        *fd_out = fd;
    return e;
}

void wasi_fd_release(wasi_fd *e)
{
    if (e->dir)
        closedir(e->dir);
    if (e->own && e->host >= 0)
        close(e->host);
    free(e->preopen);
    *e = (wasi_fd){.host = -1};
}

uint16_t wasi_fd_add_stdio(pvm_wasi *w)
{
    for (int fd = 0; fd < 3; fd++) {
        if (fcntl(fd, F_GETFD) == -1)
            continue; /* closed on the host: closed in the guest too */
        uint16_t e = wasi_fd_place(w, (uint32_t)fd, fd, false, UINT64_MAX, UINT64_MAX);
        if (e != WASI_ESUCCESS && e != WASI_EBADF)
            return e;
    }
    return WASI_ESUCCESS;
}
