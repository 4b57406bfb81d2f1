/*
 * wasi_fdstat.c - the guest fd table as the guest sees it: closing and
 * renumbering fds, their status (type, flags, rights), the names of the
 * preopened directories, and reading directories (fd_readdir).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "wasi_internal.h"

#define FDSTAT_SIZE 24
#define PRESTAT_SIZE 8
#define DIRENT_SIZE 24

WASI_HOST(fd_close) /* (fd) */
{
    wasi_fd *e;
    uint16_t err = wasi_fd_lookup(w, wasi_arg32(vm, 0), 0, &e);
    if (err)
        return err;
    wasi_fd_release(e);
    return WASI_ESUCCESS;
}

WASI_HOST(fd_renumber) /* (fd, to): fd becomes `to`; `to` is closed first */
{
    wasi_fd *from, *to;
    uint16_t err = wasi_fd_lookup(w, wasi_arg32(vm, 0), 0, &from);
    if (!err)
        err = wasi_fd_lookup(w, wasi_arg32(vm, 1), 0, &to);
    if (err || from == to)
        return err;
    wasi_fd_release(to);
    *to = *from;
    *from = (wasi_fd){.host = -1};
    return WASI_ESUCCESS;
}

WASI_HOST(fd_fdstat_get) /* (fd, fdstat_out) */
{
    wasi_fd *e;
    uint16_t err = wasi_fd_lookup(w, wasi_arg32(vm, 0), 0, &e);
    if (err)
        return err;
    uint8_t *out = wasi_guest_bytes(vm, wasi_arg32(vm, 1), FDSTAT_SIZE);
    if (!out)
        return WASI_EFAULT;
    int fl = fcntl(e->host, F_GETFL);
    if (fl < 0)
        return wasi_errno(errno);
    uint16_t flags = 0;
    if (fl & O_APPEND)
        flags |= WASI_FDFLAG_APPEND;
    if (fl & O_NONBLOCK)
        flags |= WASI_FDFLAG_NONBLOCK;
    if ((fl & O_DSYNC) == O_DSYNC)
        flags |= WASI_FDFLAG_DSYNC;
    if ((fl & O_SYNC) == O_SYNC)
        flags |= WASI_FDFLAG_SYNC;
    memset(out, 0, FDSTAT_SIZE);
    out[0] = e->type;
    pvm_wr16(out + 2, flags);
    pvm_wr64(out + 8, e->base);
    pvm_wr64(out + 16, e->inheriting);
    return WASI_ESUCCESS;
}

WASI_HOST(fd_fdstat_set_flags) /* (fd, fdflags): APPEND and NONBLOCK only */
{
    wasi_fd *e;
    uint16_t err = wasi_fd_lookup(w, wasi_arg32(vm, 0), WASI_RIGHT_FD_FDSTAT_SET_FLAGS, &e);
    if (err)
        return err;
    uint32_t flags = wasi_arg32(vm, 1);
    if (flags & ~UINT32_C(31))
        return WASI_EINVAL;
    if (flags & (WASI_FDFLAG_DSYNC | WASI_FDFLAG_RSYNC | WASI_FDFLAG_SYNC))
        return WASI_ENOTSUP; /* the host cannot change them on an open file */
    int fl = fcntl(e->host, F_GETFL);
    if (fl < 0)
        return wasi_errno(errno);
    fl &= ~(O_APPEND | O_NONBLOCK);
    if (flags & WASI_FDFLAG_APPEND)
        fl |= O_APPEND;
    if (flags & WASI_FDFLAG_NONBLOCK)
        fl |= O_NONBLOCK;
    return fcntl(e->host, F_SETFL, fl) == 0 ? WASI_ESUCCESS : wasi_errno(errno);
}

WASI_HOST(fd_fdstat_set_rights) /* (fd, base: u64, inheriting: u64): only shrink */
{
    wasi_fd *e;
    uint16_t err = wasi_fd_lookup(w, wasi_arg32(vm, 0), 0, &e);
    if (err)
        return err;
    uint64_t base = wasi_arg64(vm, 1), inheriting = wasi_arg64(vm, 2);
    if ((base & ~e->base) || (inheriting & ~e->inheriting))
        return WASI_ENOTCAPABLE;
    e->base = base;
    e->inheriting = inheriting;
    return WASI_ESUCCESS;
}

/* The granted directory with guest fd `fd`, or NULL. */
static wasi_fd *preopen(pvm_wasi *w, uint32_t fd)
{
    wasi_fd *e;
    return wasi_fd_lookup(w, fd, 0, &e) == WASI_ESUCCESS && e->preopen ? e : NULL;
}

WASI_HOST(fd_prestat_get) /* (fd, prestat_out): EBADF if not a granted directory */
{
    wasi_fd *e = preopen(w, wasi_arg32(vm, 0));
    if (!e)
        return WASI_EBADF;
    uint8_t *out = wasi_guest_bytes(vm, wasi_arg32(vm, 1), PRESTAT_SIZE);
    if (!out)
        return WASI_EFAULT;
    memset(out, 0, PRESTAT_SIZE); /* tag 0: a directory */
    pvm_wr32(out + 4, (uint32_t)strlen(e->preopen));
    return WASI_ESUCCESS;
}

WASI_HOST(fd_prestat_dir_name) /* (fd, path, path_len): the name, no NUL */
{
    wasi_fd *e = preopen(w, wasi_arg32(vm, 0));
    if (!e)
        return WASI_EBADF;
    size_t len = strlen(e->preopen);
    if (wasi_arg32(vm, 2) < len)
        return WASI_ENAMETOOLONG;
    uint8_t *out = wasi_guest_bytes(vm, wasi_arg32(vm, 1), len);
    if (!out)
        return WASI_EFAULT;
    memcpy(out, e->preopen, len);
    return WASI_ESUCCESS;
}

/* ---- fd_readdir ---------------------------------------------------------- */

/* Position e's directory stream (opened on first use, with its own file
 * offset) before entry number `cookie`.  Returns an errno. */
static uint16_t seek_dir(wasi_fd *e, uint64_t cookie)
{
    if (!e->dir) {
        int fd = openat(e->host, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
            return wasi_errno(errno);
        if (!(e->dir = fdopendir(fd))) {
            int err = errno;
            close(fd);
            return wasi_errno(err);
        }
        e->dir_pos = 0;
    }
    if (cookie < e->dir_pos) {
        rewinddir(e->dir);
        e->dir_pos = 0;
    }
    while (e->dir_pos < cookie) {
        errno = 0;
        if (!readdir(e->dir))
            return errno ? wasi_errno(errno) : WASI_ESUCCESS; /* past the end */
        e->dir_pos++;
    }
    return WASI_ESUCCESS;
}

/* Entries from number `cookie` on, each a 24-byte dirent (d_next: the
 * cookie of the entry after it) and its name, until buf_len bytes are
 * filled; the last one is cut short when it does not fit, and a full
 * buffer tells the guest to ask again from the last whole entry. */
WASI_HOST(fd_readdir) /* (fd, buf, buf_len, cookie: u64, bufused_out) */
{
    wasi_fd *e;
    uint16_t err = wasi_fd_lookup(w, wasi_arg32(vm, 0), WASI_RIGHT_FD_READDIR, &e);
    if (err)
        return err;
    uint32_t buf_len = wasi_arg32(vm, 2);
    uint8_t *buf = wasi_guest_bytes(vm, wasi_arg32(vm, 1), buf_len);
    uint8_t *used_out = wasi_guest_bytes(vm, wasi_arg32(vm, 4), 4);
    if (!buf || !used_out)
        return WASI_EFAULT;
    if ((err = seek_dir(e, wasi_arg64(vm, 3))))
        return err;
    uint32_t used = 0;
    while (used < buf_len) {
        errno = 0;
        struct dirent *de = readdir(e->dir);
        if (!de) {
            if (errno && used == 0)
                return wasi_errno(errno);
            break;
        }
        e->dir_pos++;
        struct stat st;
        uint8_t head[DIRENT_SIZE] = {0};
        size_t namlen = strlen(de->d_name);
        bool stat_ok = fstatat(dirfd(e->dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0;
        pvm_wr64(head, e->dir_pos);
        pvm_wr64(head + 8, stat_ok ? (uint64_t)st.st_ino : (uint64_t)de->d_ino);
        pvm_wr32(head + 16, (uint32_t)namlen);
        head[20] = stat_ok ? wasi_filetype(-1, &st) : WASI_FILETYPE_UNKNOWN;
        size_t n = buf_len - used < DIRENT_SIZE ? buf_len - used : DIRENT_SIZE;
        memcpy(buf + used, head, n);
        used += (uint32_t)n;
        n = buf_len - used < namlen ? buf_len - used : namlen;
        memcpy(buf + used, de->d_name, n);
        used += (uint32_t)n;
    }
    pvm_wr32(used_out, used);
    return WASI_ESUCCESS;
}
