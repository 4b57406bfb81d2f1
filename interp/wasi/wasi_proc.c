/*
 * wasi_proc.c - the process around the program: arguments, environment,
 * clocks, random bytes, exit, yield; and the functions this host does not
 * support (proc_raise: ENOSYS; sockets: ENOTSUP).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__) && defined(__has_include)
#if __has_include(<sys/random.h>)
#include <sys/random.h>
#define HAVE_GETRANDOM 1
#endif
#endif

#include "wasi_internal.h"

/* ---- arguments and environment -------------------------------------------- */

/* Write the `count` strings of `strings` (`size` bytes) to guest memory at
 * buf, and a pointer to each at ptrs (u32 each). */
static uint16_t put_strings(pvm_vm *vm, const char *strings, uint32_t count, uint32_t size,
                            uint32_t ptrs, uint32_t buf)
{
    uint8_t *p = wasi_guest_bytes(vm, ptrs, 4 * (uint64_t)count);
    uint8_t *b = wasi_guest_bytes(vm, buf, size);
    if (!p || !b)
        return WASI_EFAULT;
    uint32_t at = 0;
    for (uint32_t i = 0; i < count; i++) {
        pvm_wr32(p + 4 * (size_t)i, buf + at);
        at += (uint32_t)strlen(strings + at) + 1;
    }
    memcpy(b, strings, size);
    return WASI_ESUCCESS;
}

/* Both results, or neither when a pointer is bad. */
static uint16_t put_sizes(pvm_vm *vm, uint32_t count, uint32_t size)
{
    uint8_t *c = wasi_guest_bytes(vm, wasi_arg32(vm, 0), 4);
    uint8_t *s = wasi_guest_bytes(vm, wasi_arg32(vm, 1), 4);
    if (!c || !s)
        return WASI_EFAULT;
    pvm_wr32(c, count);
    pvm_wr32(s, size);
    return WASI_ESUCCESS;
}

WASI_HOST(args_sizes_get) /* (argc_out, argv_buf_size_out) */
{
    return put_sizes(vm, w->argc, w->args_size);
}

WASI_HOST(args_get) /* (argv, argv_buf) */
{
    return put_strings(vm, w->args, w->argc, w->args_size, wasi_arg32(vm, 0),
                       wasi_arg32(vm, 1));
}

WASI_HOST(environ_sizes_get) /* (count_out, buf_size_out) */
{
    return put_sizes(vm, w->envc, w->env_size);
}

WASI_HOST(environ_get) /* (environ, environ_buf) */
{
    return put_strings(vm, w->env, w->envc, w->env_size, wasi_arg32(vm, 0),
                       wasi_arg32(vm, 1));
}

/* ---- clocks ------------------------------------------------------------------ */

/* The host clock for a WASI clock id, or -1. */
static int host_clock(uint32_t id, clockid_t *out)
{
    static const clockid_t clocks[] = {CLOCK_REALTIME, CLOCK_MONOTONIC,
                                       CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID};
    if (id >= sizeof clocks / sizeof clocks[0])
        return -1;
    *out = clocks[id];
    return 0;
}

WASI_HOST(clock_res_get) /* (id, resolution_out) */
{
    clockid_t clock;
    struct timespec ts;
    if (host_clock(wasi_arg32(vm, 0), &clock) != 0)
        return WASI_EINVAL;
    if (clock_getres(clock, &ts) != 0)
        return wasi_errno(errno);
    return wasi_store64(vm, wasi_arg32(vm, 1), wasi_timestamp(&ts));
}

WASI_HOST(clock_time_get) /* (id, precision: i64, time_out) */
{
    clockid_t clock;
    struct timespec ts;
    if (host_clock(wasi_arg32(vm, 0), &clock) != 0)
        return WASI_EINVAL;
    if (clock_gettime(clock, &ts) != 0)
        return wasi_errno(errno);
    return wasi_store64(vm, wasi_arg32(vm, 2), wasi_timestamp(&ts));
}

/* ---- random bytes ------------------------------------------------------------ */

static int fill_from_urandom(uint8_t *p, size_t n)
{
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    while (n > 0) {
        ssize_t got = read(fd, p, n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            int e = got < 0 ? errno : EIO;
            close(fd);
            errno = e;
            return -1;
        }
        p += got;
        n -= (size_t)got;
    }
    return close(fd);
}

WASI_HOST(random_get) /* (buf, buf_len) */
{
    uint32_t len = wasi_arg32(vm, 1);
    uint8_t *p = wasi_guest_bytes(vm, wasi_arg32(vm, 0), len);
    if (!p)
        return WASI_EFAULT;
#ifdef HAVE_GETRANDOM
    size_t done = 0;
    while (done < len) {
        ssize_t got = getrandom(p + done, len - done, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0 && errno == ENOSYS)
            break;
        if (got < 0)
            return wasi_errno(errno);
        done += (size_t)got;
    }
    if (done == len)
        return WASI_ESUCCESS;
    p += done;
    len -= (uint32_t)done;
#endif
    return fill_from_urandom(p, len) == 0 ? WASI_ESUCCESS : wasi_errno(errno);
}

/* ---- process --------------------------------------------------------------------- */

/* (rval) -> no result: stops the VM with trap EXIT. */
pvm_trap_kind wasi_proc_exit(pvm_vm *vm, void *ctx)
{
    (void)ctx;
    uint32_t rval = wasi_arg32(vm, 0);
    /* The i32 as the guest's exit(int) meant it. */
    vm->exit_status = rval <= INT32_MAX ? (int)rval : (int)((int64_t)rval - 4294967296);
    return PVM_TRAP_EXIT;
}

WASI_HOST(proc_raise) /* (sig): signals are not supported */
{
    return WASI_ENOSYS;
}

WASI_HOST(sched_yield) /* () */
{
    return sched_yield() == 0 ? WASI_ESUCCESS : wasi_errno(errno);
}

/* ---- sockets: not supported ------------------------------------------------------- */

WASI_HOST(sock_accept) { return WASI_ENOTSUP; }
WASI_HOST(sock_recv) { return WASI_ENOTSUP; }
WASI_HOST(sock_send) { return WASI_ENOTSUP; }
WASI_HOST(sock_shutdown) { return WASI_ENOTSUP; }
