/*
 * out_file.c - output files written whole or not at all (out_file.h).
 */
#include "out_file.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int an_out_open(an_out_file *o, const char *path, char *err, size_t cap)
{
    *o = (an_out_file){.path = path};
    if (strcmp(path, "-") == 0) {
        signal(SIGPIPE, SIG_IGN); /* a closed pipe: EPIPE, handled in an_out_commit */
        o->f = stdout;
        return 0;
    }
    if (!*path) {
        snprintf(err, cap, "the output file name is empty");
        return -1;
    }
    if (snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof o->tmp) {
        snprintf(err, cap, "%s: the name is too long", path);
        return -1;
    }
    o->f = fopen(o->tmp, "w");
    if (!o->f) {
        snprintf(err, cap, "%s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int an_out_commit(an_out_file *o, char *err, size_t cap)
{
    int saved = 0;
    errno = 0;
    if (fflush(o->f) != 0 || ferror(o->f))
        saved = errno ? errno : EIO;
    if (!o->tmp[0]) {
        if (saved && an_out_reader_gone(saved))
            return 0;
        if (saved)
            snprintf(err, cap, "writing the standard output: %s", strerror(saved));
        return saved ? -1 : 0;
    }
    if (fclose(o->f) != 0 && !saved)
        saved = errno;
    o->f = NULL;
    if (!saved && rename(o->tmp, o->path) != 0)
        saved = errno;
    if (saved) {
        snprintf(err, cap, "%s: %s", o->path, strerror(saved));
        unlink(o->tmp);
        return -1;
    }
    return 0;
}

int an_out_reader_gone(int saved_errno)
{
    if (saved_errno == EPIPE)
        return 1;
    /* The write that failed may have been an earlier one, its errno long
     * gone: ask the descriptor whether anybody still reads it. */
    struct stat st;
    if (fstat(STDOUT_FILENO, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
        return 0;
    struct pollfd pfd = {.fd = STDOUT_FILENO, .events = POLLOUT};
    return poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLERR | POLLHUP)) != 0;
}

void an_out_abort(an_out_file *o)
{
    if (!o->tmp[0])
        return;
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    unlink(o->tmp);
}
