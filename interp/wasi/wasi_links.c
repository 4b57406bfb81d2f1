/*
 * wasi_links.c - the rule for the symbolic links a guest makes: none may
 * lead out of the directory the guest named it through, so that the host
 * (which follows links without the sandbox) is never led out either.
 *
 * A link's text is accepted when it is relative and is some "..", then
 * names only ("." anywhere): "../a/b", "sub/file".  Its ".." are counted
 * against the depth of the link's own directory below the guest's
 * directory fd; more of them than that depth is a way out.  A ".." after a
 * name ("a/../b") is refused outright: if "a" were a link, the host would
 * climb from where "a" leads, not from the link's directory.
 *
 * The same rule holds for links that move: a hard link or a rename of a
 * symbolic link checks its text at the new depth, and a directory moved to
 * a shallower place has every link below it checked at its new depth.
 * Errors are WASI_EPERM, as for the sandbox's other ways out.
 */
#define _GNU_SOURCE /* O_PATH */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wasi_internal.h"

/* Directories below a moved one that are searched for links; a deeper
 * tree is not moved to a shallower place (EPERM). */
#define MAX_MOVED_DEPTH 64

uint16_t wasi_link_text_check(const char *text, size_t len, unsigned depth)
{
    size_t ups = 0;
    bool named = false;
    if (len > 0 && text[0] == '/')
        return WASI_EPERM;
    for (size_t i = 0; i < len;) {
        size_t end = i;
        while (end < len && text[end] != '/')
            end++;
        size_t n = end - i;
        if (n == 2 && text[i] == '.' && text[i + 1] == '.') {
            if (named)
                return WASI_EPERM;
            if (++ups > depth)
                return WASI_EPERM;
        } else if (n > 0 && !(n == 1 && text[i] == '.')) {
            named = true;
        }
        i = end + (end < len);
    }
    return WASI_ESUCCESS;
}

/* The link `name` in directory `dir`, read and checked at `depth`
 * (not a link: accepted). */
static uint16_t check_link_at(int dir, const char *name, unsigned depth)
{
    char text[WASI_PATH_MAX + 1];
    ssize_t n = readlinkat(dir, name, text, sizeof text);
    if (n < 0)
        return errno == EINVAL ? WASI_ESUCCESS : wasi_errno(errno);
    if ((size_t)n > WASI_PATH_MAX)
        return WASI_ENAMETOOLONG;
    return wasi_link_text_check(text, (size_t)n, depth);
}

/* Every link below directory `fd` (owned, closed here), whose entries are
 * at `depth`; `left` more levels may be searched. */
static uint16_t check_tree(int fd, unsigned depth, unsigned left)
{
    DIR *d = fdopendir(fd);
    if (!d) {
        uint16_t err = wasi_errno(errno);
        close(fd);
        return err;
    }
    uint16_t err = WASI_ESUCCESS;
    errno = 0;
    for (struct dirent *e; !err && (e = readdir(d)) != NULL; errno = 0) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            err = wasi_errno(errno);
        } else if (S_ISLNK(st.st_mode)) {
            err = check_link_at(dirfd(d), e->d_name, depth);
        } else if (S_ISDIR(st.st_mode)) {
            if (left == 0) {
                err = WASI_EPERM;
            } else {
                int sub = openat(dirfd(d), e->d_name,
                                 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                err = sub < 0 ? wasi_errno(errno) : check_tree(sub, depth + 1, left - 1);
            }
        }
    }
    if (!err && errno != 0)
        err = wasi_errno(errno);
    closedir(d);
    return err;
}

uint16_t wasi_link_check_moved(int dir, const char *name, unsigned depth, bool whole_tree)
{
    struct stat st;
    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return WASI_ESUCCESS; /* the move itself reports it */
    if (S_ISLNK(st.st_mode))
        return check_link_at(dir, name, depth);
    if (!S_ISDIR(st.st_mode) || !whole_tree)
        return WASI_ESUCCESS;
    int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return wasi_errno(errno);
    return check_tree(fd, depth + 1, MAX_MOVED_DEPTH);
}
