/*
 * wasi_path.c - the path_* functions: opening, creating, removing,
 * renaming and linking files by path, and their status and times.  Every
 * path is relative to a directory fd the guest holds and is resolved by
 * wasi_resolve (the sandbox); the operation then acts on the last
 * component with an *at() call that does not follow a final symlink.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wasi_internal.h"

/* The rights that give a file write access when it is opened. */
#define RIGHTS_WRITE_ACCESS                                                    \
    (WASI_RIGHT_FD_WRITE | WASI_RIGHT_FD_DATASYNC | WASI_RIGHT_FD_ALLOCATE |    \
     WASI_RIGHT_FD_FILESTAT_SET_SIZE)

/* Resolve the guest path at (path, len) below directory fd `fd`, which
 * needs `right`.  On success the caller closes t->dir. */
static uint16_t target(pvm_wasi *w, pvm_vm *vm, uint32_t fd, uint64_t right, uint32_t path,
                       uint32_t len, bool follow, wasi_target *t)
{
    wasi_fd *e;
    uint16_t err = wasi_fd_lookup(w, fd, 0, &e);
    if (!err && e->type != WASI_FILETYPE_DIRECTORY)
        err = WASI_ENOTDIR;
    if (!err)
        err = wasi_fd_lookup(w, fd, right, &e);
    if (err)
        return err;
    const uint8_t *p = wasi_guest_bytes(vm, path, len);
    if (!p)
        return WASI_EFAULT;
    return wasi_resolve(e->host, p, len, follow, t);
}

/* The errno of a host call's result rc, after closing t's directory. */
static uint16_t finish(wasi_target *t, int rc)
{
    uint16_t err = rc == 0 ? WASI_ESUCCESS : wasi_errno(errno);
    close(t->dir);
    return err;
}

/* A path that ends in '/' must name a directory: ENOTDIR if it is another
 * kind of file. */
static uint16_t check_dir(const wasi_target *t)
{
    struct stat st;
    if (!t->must_dir)
        return WASI_ESUCCESS;
    if (fstatat(t->dir, t->name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return wasi_errno(errno);
    return S_ISDIR(st.st_mode) ? WASI_ESUCCESS : WASI_ENOTDIR;
}

/* A link cannot be created under a name ending in '/': the error POSIX
 * gives for what is there. */
static uint16_t slash_create_error(const wasi_target *t)
{
    struct stat st;
    if (fstatat(t->dir, t->name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return wasi_errno(errno);
    return S_ISDIR(st.st_mode) ? WASI_EEXIST : WASI_ENOTDIR;
}

/* Host open flags for WASI's oflags and fdflags, and the access mode the
 * requested rights need. */
static int open_flags(uint32_t oflags, uint32_t fdflags, uint64_t base, bool must_dir)
{
    int fl = O_CLOEXEC | O_NOFOLLOW | O_NOCTTY;
    if (oflags & WASI_O_CREAT)
        fl |= O_CREAT;
    if (oflags & WASI_O_EXCL)
        fl |= O_EXCL;
    if (oflags & WASI_O_TRUNC)
        fl |= O_TRUNC;
    if (fdflags & WASI_FDFLAG_APPEND)
        fl |= O_APPEND;
    if (fdflags & WASI_FDFLAG_NONBLOCK)
        fl |= O_NONBLOCK;
    if (fdflags & WASI_FDFLAG_DSYNC)
        fl |= O_DSYNC;
    if (fdflags & WASI_FDFLAG_SYNC)
        fl |= O_SYNC;
#ifdef O_RSYNC
    if (fdflags & WASI_FDFLAG_RSYNC)
        fl |= O_RSYNC;
#else
    if (fdflags & WASI_FDFLAG_RSYNC)
        fl |= O_SYNC;
#endif
    bool read = base & (WASI_RIGHT_FD_READ | WASI_RIGHT_FD_READDIR);
    bool write = base & RIGHTS_WRITE_ACCESS;
    if ((oflags & WASI_O_DIRECTORY) || must_dir)
        return fl | O_DIRECTORY | O_RDONLY;
    return fl | (write ? (read ? O_RDWR : O_WRONLY) : O_RDONLY);
}

/* (fd, dirflags, path, path_len, oflags, rights_base: u64,
 *  rights_inheriting: u64, fdflags, fd_out) */
WASI_HOST(path_open)
{
    uint32_t dirfd = wasi_arg32(vm, 0), oflags = wasi_arg32(vm, 4), fdflags = wasi_arg32(vm, 7);
    uint64_t base = wasi_arg64(vm, 5), inheriting = wasi_arg64(vm, 6);
    if (oflags & ~UINT32_C(15) || fdflags & ~UINT32_C(31))
        return WASI_EINVAL;
    uint64_t need = WASI_RIGHT_PATH_OPEN;
    if (oflags & WASI_O_CREAT)
        need |= WASI_RIGHT_PATH_CREATE_FILE;
    if (oflags & WASI_O_TRUNC)
        need |= WASI_RIGHT_PATH_FILESTAT_SET_SIZE;
    uint8_t *fd_out = wasi_guest_bytes(vm, wasi_arg32(vm, 8), 4);
    if (!fd_out)
        return WASI_EFAULT;
    /* O_CREAT | O_EXCL never follows a final link (POSIX). */
    bool exclusive = (oflags & WASI_O_CREAT) && (oflags & WASI_O_EXCL);
    bool follow = (wasi_arg32(vm, 1) & WASI_LOOKUP_SYMLINK_FOLLOW) && !exclusive;
    wasi_target t;
    uint16_t err = target(w, vm, dirfd, need, wasi_arg32(vm, 2), wasi_arg32(vm, 3), follow, &t);
    if (err)
        return err;
    /* A file gets at most what its directory passes on. */
    const wasi_fd *dir = &w->fds[dirfd];
    base &= dir->inheriting;
    inheriting &= dir->inheriting;
    int host = openat(t.dir, t.name, open_flags(oflags, fdflags, base, t.must_dir), 0666);
    if ((err = finish(&t, host < 0 ? -1 : 0)))
        return err;
    uint32_t fd;
    if ((err = wasi_fd_insert(w, host, base, inheriting, &fd)))
        return err;
    pvm_wr32(fd_out, fd);
    return WASI_ESUCCESS;
}

WASI_HOST(path_filestat_get) /* (fd, lookupflags, path, path_len, filestat_out) */
{
    wasi_target t;
    struct stat st;
    uint8_t *out = wasi_guest_bytes(vm, wasi_arg32(vm, 4), WASI_FILESTAT_SIZE);
    if (!out)
        return WASI_EFAULT;
    bool follow = wasi_arg32(vm, 1) & WASI_LOOKUP_SYMLINK_FOLLOW;
    uint16_t err = target(w, vm, wasi_arg32(vm, 0), WASI_RIGHT_PATH_FILESTAT_GET,
                          wasi_arg32(vm, 2), wasi_arg32(vm, 3), follow, &t);
    if (err)
        return err;
    if (!(err = check_dir(&t)) && fstatat(t.dir, t.name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        err = wasi_errno(errno);
    close(t.dir);
    if (!err)
        wasi_put_filestat(out, -1, &st);
    return err;
}

/* (fd, lookupflags, path, path_len, atim: u64, mtim: u64, fst_flags) */
WASI_HOST(path_filestat_set_times)
{
    wasi_target t;
    struct timespec ts[2];
    uint16_t err = wasi_set_times(wasi_arg64(vm, 4), wasi_arg64(vm, 5), wasi_arg32(vm, 6), ts);
    bool follow = wasi_arg32(vm, 1) & WASI_LOOKUP_SYMLINK_FOLLOW;
    if (!err)
        err = target(w, vm, wasi_arg32(vm, 0), WASI_RIGHT_PATH_FILESTAT_SET_TIMES,
                     wasi_arg32(vm, 2), wasi_arg32(vm, 3), follow, &t);
    if (err)
        return err;
    return finish(&t, utimensat(t.dir, t.name, ts, AT_SYMLINK_NOFOLLOW));
}

WASI_HOST(path_create_directory) /* (fd, path, path_len) */
{
    wasi_target t;
    uint16_t err = target(w, vm, wasi_arg32(vm, 0), WASI_RIGHT_PATH_CREATE_DIRECTORY,
                          wasi_arg32(vm, 1), wasi_arg32(vm, 2), false, &t);
    return err ? err : finish(&t, mkdirat(t.dir, t.name, 0777));
}

WASI_HOST(path_remove_directory) /* (fd, path, path_len) */
{
    wasi_target t;
    uint16_t err = target(w, vm, wasi_arg32(vm, 0), WASI_RIGHT_PATH_REMOVE_DIRECTORY,
                          wasi_arg32(vm, 1), wasi_arg32(vm, 2), false, &t);
    return err ? err : finish(&t, unlinkat(t.dir, t.name, AT_REMOVEDIR));
}

WASI_HOST(path_unlink_file) /* (fd, path, path_len) */
{
    wasi_target t;
    uint16_t err = target(w, vm, wasi_arg32(vm, 0), WASI_RIGHT_PATH_UNLINK_FILE,
                          wasi_arg32(vm, 1), wasi_arg32(vm, 2), false, &t);
    if (err)
        return err;
    if ((err = check_dir(&t))) {
        close(t.dir);
        return err;
    }
    return finish(&t, unlinkat(t.dir, t.name, 0));
}

/* (fd, old_path, old_path_len, new_fd, new_path, new_path_len) */
WASI_HOST(path_rename)
{
    wasi_target from, to;
    uint16_t err = target(w, vm, wasi_arg32(vm, 0), WASI_RIGHT_PATH_RENAME_SOURCE,
                          wasi_arg32(vm, 1), wasi_arg32(vm, 2), false, &from);
    if (err)
        return err;
    err = target(w, vm, wasi_arg32(vm, 3), WASI_RIGHT_PATH_RENAME_TARGET, wasi_arg32(vm, 4),
                 wasi_arg32(vm, 5), false, &to);
    if (err) {
        close(from.dir);
        return err;
    }
    /* A trailing '/' on either side: only a directory may move.  A link
     * moved, or a directory moved up with links below it, must still lead
     * inside from its new place (wasi_links.c). */
    from.must_dir |= to.must_dir;
    bool up = wasi_arg32(vm, 0) != wasi_arg32(vm, 3) || to.depth < from.depth;
    if (!(err = check_dir(&from)) &&
        !(err = wasi_link_check_moved(from.dir, from.name, to.depth, up)))
        err = finish(&from, renameat(from.dir, from.name, to.dir, to.name));
    else
        close(from.dir);
    close(to.dir);
    return err;
}

/* (old_fd, old_flags, old_path, old_path_len, new_fd, new_path, new_path_len) */
WASI_HOST(path_link)
{
    wasi_target from, to;
    bool follow = wasi_arg32(vm, 1) & WASI_LOOKUP_SYMLINK_FOLLOW;
    uint16_t err = target(w, vm, wasi_arg32(vm, 0), WASI_RIGHT_PATH_LINK_SOURCE,
                          wasi_arg32(vm, 2), wasi_arg32(vm, 3), follow, &from);
    if (err)
        return err;
    err = target(w, vm, wasi_arg32(vm, 4), WASI_RIGHT_PATH_LINK_TARGET, wasi_arg32(vm, 5),
                 wasi_arg32(vm, 6), false, &to);
    if (err) {
        close(from.dir);
        return err;
    }
    /* A hard link to a symbolic link is a link at a new depth. */
    if (!(err = check_dir(&from)) && !(err = to.must_dir ? slash_create_error(&to) : 0) &&
        !(err = wasi_link_check_moved(from.dir, from.name, to.depth, false)))
        err = finish(&from, linkat(from.dir, from.name, to.dir, to.name, 0));
    else
        close(from.dir);
    close(to.dir);
    return err;
}

/* (old_path, old_path_len, fd, new_path, new_path_len): a link whose text
 * is old_path.  A text that would lead the host out of the directory fd
 * (absolute, or more ".." than the link's depth below it) is refused with
 * EPERM (wasi_links.c): the guest's own lookups never follow it out, but
 * the host's would. */
WASI_HOST(path_symlink)
{
    uint32_t len = wasi_arg32(vm, 1);
    const uint8_t *text = wasi_guest_bytes(vm, wasi_arg32(vm, 0), len);
    if (!text)
        return WASI_EFAULT;
    if (len == 0)
        return WASI_ENOENT;
    if (memchr(text, '\0', len))
        return WASI_EINVAL;
    if (text[0] == '/')
        return WASI_EPERM;
    if (len > WASI_PATH_MAX)
        return WASI_ENAMETOOLONG;
    char copy[WASI_PATH_MAX + 1];
    memcpy(copy, text, len);
    copy[len] = '\0';
    wasi_target t;
    uint16_t err = target(w, vm, wasi_arg32(vm, 2), WASI_RIGHT_PATH_SYMLINK, wasi_arg32(vm, 3),
                          wasi_arg32(vm, 4), false, &t);
    if (err)
        return err;
    if (t.must_dir || (err = wasi_link_text_check(copy, len, t.depth))) {
        if (t.must_dir)
            err = slash_create_error(&t);
        close(t.dir);
        return err;
    }
    return finish(&t, symlinkat(copy, t.dir, t.name));
}

/* (fd, path, path_len, buf, buf_len, bufused_out): the link's text, cut
 * to buf_len bytes, no NUL. */
WASI_HOST(path_readlink)
{
    uint32_t buf_len = wasi_arg32(vm, 4);
    uint8_t *buf = wasi_guest_bytes(vm, wasi_arg32(vm, 3), buf_len);
    uint8_t *used = wasi_guest_bytes(vm, wasi_arg32(vm, 5), 4);
    if (!buf || !used)
        return WASI_EFAULT;
    wasi_target t;
    uint16_t err = target(w, vm, wasi_arg32(vm, 0), WASI_RIGHT_PATH_READLINK, wasi_arg32(vm, 1),
                          wasi_arg32(vm, 2), false, &t);
    if (err)
        return err;
    ssize_t n = readlinkat(t.dir, t.name, (char *)buf, buf_len);
    if ((err = finish(&t, n < 0 ? -1 : 0)))
        return err;
    pvm_wr32(used, (uint32_t)n);
    return WASI_ESUCCESS;
}
