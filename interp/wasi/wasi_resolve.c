/*
 * wasi_resolve.c - the sandbox: resolving a guest path below a directory
 * the guest holds, so that no path, however written, reaches a file outside
 * that directory.
 *
 * The path is walked one component at a time.  Each directory on the way
 * is opened with openat(current, NAME, O_DIRECTORY | O_NOFOLLOW) from the
 * previous one, so the host kernel never follows a symbolic link and never
 * sees "..".  Here:
 *   - an absolute path is refused (EPERM);
 *   - ".." goes back one directory of the walk (re-opened from the root
 *     along the names walked so far); ".." at the root is refused (EPERM);
 *   - a symbolic link met on the way (and the last component when following
 *     is asked for, or the path ends in '/') is read with readlinkat and
 *     its text replaces it in the path: an absolute link is refused
 *     (EPERM), a relative one is walked by these same rules, so it cannot
 *     climb above the root either; after 32 links: ELOOP.
 * The caller gets the last directory's fd and the last component (never
 * "..", never containing '/') and acts on it with an *at() call that does
 * not follow a final symlink (O_NOFOLLOW, AT_SYMLINK_NOFOLLOW, unlinkat,
 * renameat, ...).  A link swapped in after it was checked therefore makes
 * the operation fail; it cannot redirect it.
 *
 * Not prevented (outside a path's reach): hard links and mount points that
 * the host placed inside the directory, and another host process moving a
 * directory out of the tree while the guest holds it open.
 */
#define _GNU_SOURCE /* O_PATH */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wasi_internal.h"

#ifdef O_PATH
#define WALK_FLAGS (O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#else
#define WALK_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#endif
#define MAX_SYMLINKS 32

typedef struct walk {
    int root;
    int cur;                          /* the directory reached (owned) */
    char rest[WASI_PATH_MAX + 1];     /* what is left of the path */
    size_t pos;                       /* next byte of rest to read */
    char done[WASI_PATH_MAX + 1];     /* directories walked from the root, '/'-separated */
    size_t done_len;
    int links;
} walk;

/* Step into subdirectory `name` of the current one. */
static uint16_t descend(walk *k, const char *name)
{
    size_t n = strlen(name);
    if (k->done_len + 1 + n > WASI_PATH_MAX)
        return WASI_ENAMETOOLONG;
    int fd = openat(k->cur, name, WALK_FLAGS);
    if (fd < 0)
        return wasi_errno(errno);
    close(k->cur);
    k->cur = fd;
    if (k->done_len)
        k->done[k->done_len++] = '/';
    memcpy(k->done + k->done_len, name, n + 1);
    k->done_len += n;
    return WASI_ESUCCESS;
}

/* Step back to the parent of the current directory, by walking again
 * from the root (a link swapped in since then makes this fail). */
static uint16_t ascend(walk *k)
{
    if (k->done_len == 0)
        return WASI_EPERM;
    while (k->done_len > 0 && k->done[k->done_len - 1] != '/')
        k->done_len--;
    if (k->done_len > 0)
        k->done_len--; /* the '/' before the last name */
    k->done[k->done_len] = '\0';
    int fd = openat(k->root, ".", WALK_FLAGS);
    if (fd < 0)
        return wasi_errno(errno);
    close(k->cur);
    k->cur = fd;
    for (char *name = k->done; *name;) {
        char *end = strchr(name, '/');
        size_t n = end ? (size_t)(end - name) : strlen(name);
        char part[WASI_NAME_MAX + 1];
        memcpy(part, name, n);
        part[n] = '\0';
        if ((fd = openat(k->cur, part, WALK_FLAGS)) < 0)
            return wasi_errno(errno);
        close(k->cur);
        k->cur = fd;
        name += n + (end != NULL);
    }
    return WASI_ESUCCESS;
}

/* If `name` in the current directory is a symbolic link, replace it in the
 * path by its text (*expanded = true). */
static uint16_t expand_link(walk *k, const char *name, size_t after, bool *expanded)
{
    char text[WASI_PATH_MAX + 1];
    ssize_t n = readlinkat(k->cur, name, text, sizeof text);
    *expanded = n >= 0;
    if (n < 0)
        return WASI_ESUCCESS;
    if (++k->links > MAX_SYMLINKS)
        return WASI_ELOOP;
    size_t tail = strlen(k->rest + after);
    if ((size_t)n > WASI_PATH_MAX || (size_t)n + tail > WASI_PATH_MAX)
        return WASI_ENAMETOOLONG;
    if (n == 0)
        return WASI_ENOENT;
    if (text[0] == '/')
        return WASI_EPERM;
    memmove(k->rest + n, k->rest + after, tail + 1);
    memcpy(k->rest, text, (size_t)n);
    k->pos = 0;
    return WASI_ESUCCESS;
}

/* Walk k->rest; on success fill t with the last component. */
static uint16_t run(walk *k, bool follow, wasi_target *t)
{
    for (;;) {
        const char *r = k->rest;
        while (r[k->pos] == '/')
            k->pos++;
        size_t start = k->pos, end = start;
        while (r[end] && r[end] != '/')
            end++;
        size_t next = end;
        while (r[next] == '/')
            next++;
        bool last = r[next] == '\0', trailing = last && next > end;
        size_t n = end - start;
        k->pos = end;
        if (n > WASI_NAME_MAX)
            return WASI_ENAMETOOLONG;
        char name[WASI_NAME_MAX + 1];
        memcpy(name, r + start, n);
        name[n] = '\0';
        uint16_t err;
        if (n == 0 || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
            if (strcmp(name, "..") == 0 && (err = ascend(k)))
                return err;
            if (last) {
                strcpy(t->name, ".");
                t->must_dir = false;
                return WASI_ESUCCESS;
            }
            continue;
        }
        bool expanded;
        if (!last) {
            if ((err = descend(k, name)) == WASI_ESUCCESS)
                continue;
            uint16_t e2 = expand_link(k, name, end, &expanded);
            if (e2 || !expanded)
                return e2 ? e2 : err;
            continue;
        }
        if (follow || trailing) {
            if ((err = expand_link(k, name, end, &expanded)))
                return err;
            if (expanded)
                continue;
        }
        memcpy(t->name, name, n + 1);
        t->must_dir = trailing;
        return WASI_ESUCCESS;
    }
}

uint16_t wasi_resolve(int root, const uint8_t *path, size_t len, bool follow, wasi_target *t)
{
    if (len == 0)
        return WASI_ENOENT;
    if (memchr(path, '\0', len))
        return WASI_EINVAL;
    if (path[0] == '/')
        return WASI_EPERM;
    if (len > WASI_PATH_MAX)
        return WASI_ENAMETOOLONG;
    walk *k = malloc(sizeof *k);
    if (!k)
        return WASI_ENOMEM;
    k->root = root;
    k->pos = k->done_len = 0;
    k->done[0] = '\0';
    k->links = 0;
    memcpy(k->rest, path, len);
    k->rest[len] = '\0';
    k->cur = openat(root, ".", WALK_FLAGS);
    uint16_t err = k->cur < 0 ? wasi_errno(errno) : run(k, follow, t);
    if (err == WASI_ESUCCESS) {
        t->dir = k->cur;
        t->depth = 0;
        for (size_t i = 0; i < k->done_len; i++)
            t->depth += k->done[i] == '/';
        t->depth += k->done_len > 0;
    }
    else if (k->cur >= 0)
        close(k->cur);
    free(k);
    return err;
}
