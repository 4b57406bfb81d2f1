/*
 * wasi_poll.c - poll_oneoff: wait until a clock subscription's time has
 * come (this is how sleep() works) or an fd subscription's file is ready to
 * read or write.  Subscriptions with a bad clock id or fd are reported at
 * once as events carrying an error.  Clock waits use the monotonic clock;
 * an absolute time on another clock is turned into a duration first.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "wasi_internal.h"

#define SUBSCRIPTION_SIZE 48
#define EVENT_SIZE 32
enum { EVENT_CLOCK, EVENT_FD_READ, EVENT_FD_WRITE };
enum { SUBCLOCK_ABSTIME = 1 };
enum { EVENT_FD_HANGUP = 1 };

typedef struct sub {
    uint64_t userdata;
    uint8_t type;
    uint16_t error;   /* reported at once */
    uint64_t wait;    /* clock: ns from now */
    int poll_index;   /* fd: its pollfd, or -1 */
    int host;
} sub;

static uint64_t now_ns(clockid_t clock)
{
    struct timespec ts;
    return clock_gettime(clock, &ts) == 0 ? wasi_timestamp(&ts) : 0;
}

/* Decode subscription p into s (and a pollfd for an fd one). */
static uint16_t parse(pvm_wasi *w, const uint8_t *p, sub *s, struct pollfd *pfds, int *npoll)
{
    static const clockid_t clocks[] = {CLOCK_REALTIME, CLOCK_MONOTONIC,
                                       CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID};
    *s = (sub){.userdata = pvm_rd64(p), .type = p[8], .poll_index = -1};
    if (s->type == EVENT_CLOCK) {
        uint32_t id = pvm_rd32(p + 16);
        uint64_t timeout = pvm_rd64(p + 24);
        if (id >= sizeof clocks / sizeof clocks[0]) {
            s->error = WASI_EINVAL;
        } else if (pvm_rd16(p + 40) & SUBCLOCK_ABSTIME) {
            uint64_t now = now_ns(clocks[id]);
            s->wait = timeout > now ? timeout - now : 0;
        } else {
            s->wait = timeout;
        }
        return WASI_ESUCCESS;
    }
    if (s->type != EVENT_FD_READ && s->type != EVENT_FD_WRITE)
        return WASI_EINVAL;
    wasi_fd *e;
    s->error = wasi_fd_lookup(w, pvm_rd32(p + 16), WASI_RIGHT_POLL_FD_READWRITE, &e);
    if (!s->error) {
        s->host = e->host;
        s->poll_index = *npoll;
        pfds[(*npoll)++] = (struct pollfd){
            .fd = e->host, .events = s->type == EVENT_FD_READ ? POLLIN : POLLOUT};
    }
    return WASI_ESUCCESS;
}

/* Wait `ns` nanoseconds, or for an fd to be ready when there are any. */
static uint16_t wait_for(struct pollfd *pfds, int npoll, uint64_t ns, bool forever)
{
    if (npoll == 0) {
        struct timespec t = {.tv_sec = (time_t)(ns / 1000000000u),
                             .tv_nsec = (long)(ns % 1000000000u)};
        int rc;
        while ((rc = clock_nanosleep(CLOCK_MONOTONIC, 0, &t, &t)) == EINTR)
            ;
        return rc == 0 ? WASI_ESUCCESS : wasi_errno(rc);
    }
    uint64_t ms = ns / 1000000u + (ns % 1000000u != 0);
    int timeout = forever ? -1 : ms > INT_MAX ? INT_MAX : (int)ms;
    int rc;
    while ((rc = poll(pfds, (nfds_t)npoll, timeout)) < 0 && errno == EINTR)
        ;
    return rc < 0 ? wasi_errno(errno) : WASI_ESUCCESS;
}

/* Bytes ready to read from host fd `fd`, when the host can say. */
static uint64_t readable_bytes(int fd)
{
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        off_t pos = lseek(fd, 0, SEEK_CUR);
        return pos >= 0 && st.st_size > pos ? (uint64_t)(st.st_size - pos) : 0;
    }
#ifdef FIONREAD
    int n = 0;
    if (ioctl(fd, FIONREAD, &n) == 0 && n > 0)
        return (uint64_t)n;
#endif
    return 0;
}

static void put_event(uint8_t *out, const sub *s, uint16_t error, uint64_t nbytes,
                      uint16_t flags)
{
    memset(out, 0, EVENT_SIZE);
    pvm_wr64(out, s->userdata);
    pvm_wr16(out + 8, error);
    out[10] = s->type;
    pvm_wr64(out + 16, nbytes);
    pvm_wr16(out + 24, flags);
}

WASI_HOST(poll_oneoff) /* (in, out, nsubscriptions, nevents_out) */
{
    uint32_t n = wasi_arg32(vm, 2);
    if (n == 0)
        return WASI_EINVAL;
    const uint8_t *in = wasi_guest_bytes(vm, wasi_arg32(vm, 0), (uint64_t)n * SUBSCRIPTION_SIZE);
    uint8_t *out = wasi_guest_bytes(vm, wasi_arg32(vm, 1), (uint64_t)n * EVENT_SIZE);
    uint8_t *nevents = wasi_guest_bytes(vm, wasi_arg32(vm, 3), 4);
    if (!in || !out || !nevents)
        return WASI_EFAULT;
    sub *subs = malloc((size_t)n * sizeof *subs);
    struct pollfd *pfds = malloc((size_t)n * sizeof *pfds);
    uint16_t err = subs && pfds ? WASI_ESUCCESS : WASI_ENOMEM;
    int npoll = 0;
    bool errors = false, clocks = false;
    uint64_t wait = UINT64_MAX;
    /* Read every subscription before writing any event: they may overlap. */
    for (uint32_t i = 0; i < n && !err; i++) {
        sub *s = &subs[i];
        err = parse(w, in + (size_t)i * SUBSCRIPTION_SIZE, s, pfds, &npoll);
        errors |= s->error != 0;
        if (!err && !s->error && s->type == EVENT_CLOCK) {
            clocks = true;
            wait = s->wait < wait ? s->wait : wait;
        }
    }
    uint64_t start = now_ns(CLOCK_MONOTONIC);
    if (!err && (npoll > 0 || clocks))
        err = wait_for(pfds, npoll, errors ? 0 : wait, !errors && !clocks);
    uint64_t elapsed = now_ns(CLOCK_MONOTONIC) - start;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n && !err; i++) {
        const sub *s = &subs[i];
        uint8_t *ev = out + (size_t)k * EVENT_SIZE;
        if (s->error) {
            put_event(ev, s, s->error, 0, 0);
            k++;
        } else if (s->poll_index >= 0 && pfds[s->poll_index].revents) {
            short re = pfds[s->poll_index].revents;
            uint16_t e = re & POLLNVAL ? WASI_EBADF : re & POLLERR ? WASI_EIO : 0;
            uint64_t nbytes = s->type == EVENT_FD_READ && !e ? readable_bytes(s->host) : 0;
            put_event(ev, s, e, nbytes, re & POLLHUP ? EVENT_FD_HANGUP : 0);
            k++;
        }
    }
    /* The clocks whose time has come; at least the earliest when nothing
     * else happened. */
    bool none = k == 0;
    for (uint32_t i = 0; i < n && !err; i++) {
        const sub *s = &subs[i];
        if (s->type == EVENT_CLOCK && !s->error &&
            (s->wait <= elapsed || (none && !errors && s->wait == wait)))
            put_event(out + (size_t)k++ * EVENT_SIZE, s, 0, 0, 0);
    }
    free(subs);
    free(pfds);
    if (!err)
        pvm_wr32(nevents, k);
    return err;
}
