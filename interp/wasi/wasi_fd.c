/*
 * wasi_fd.c - reading, writing and positioning open files: fd_read,
 * fd_write and their positioned forms, seek and tell, sync, advice and
 * allocation, and a file's status, size and times.
 *
 * Data moves straight between the file and guest memory: every iovec is
 * checked to lie inside guest memory first (EFAULT otherwise).  One call
 * moves at most IOV_MAX buffers and 2 GiB - 1 bytes; a shorter transfer
 * is a valid answer, as with POSIX readv / writev.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/uio.h>
#include <unistd.h>

#include "wasi_internal.h"

#ifndef IOV_MAX
#define IOV_MAX 1024
#endif
#define MAX_IOVS (IOV_MAX < 1024 ? IOV_MAX : 1024)
#define WASI_IOVEC_SIZE 8 /* (buf: u32, buf_len: u32) */
#define MAX_TRANSFER UINT64_C(0x7fffffff)
#define OFF_MAX_U ((uint64_t)(sizeof(off_t) >= 8 ? INT64_MAX : INT32_MAX))

/* Host iovecs for the guest's n (c)iovecs at `iovs`, in out[0..*count).
 * Every guest buffer is checked, even those past the ones used. */
static uint16_t gather(pvm_vm *vm, uint32_t iovs, uint32_t n, struct iovec *out, int *count)
{
    const uint8_t *arr = wasi_guest_bytes(vm, iovs, (uint64_t)n * WASI_IOVEC_SIZE);
    if (!arr)
        return WASI_EFAULT;
    uint64_t total = 0;
    int k = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t buf = pvm_rd32(arr + (size_t)i * WASI_IOVEC_SIZE);
        uint64_t len = pvm_rd32(arr + (size_t)i * WASI_IOVEC_SIZE + 4);
        uint8_t *p = wasi_guest_bytes(vm, buf, len);
        if (!p)
            return WASI_EFAULT;
        if (k == MAX_IOVS || total == MAX_TRANSFER)
            continue;
        if (len > MAX_TRANSFER - total)
            len = MAX_TRANSFER - total;
        out[k++] = (struct iovec){.iov_base = p, .iov_len = (size_t)len};
        total += len;
    }
    *count = k;
    return WASI_ESUCCESS;
}

/* fd_read / fd_write: (fd, iovs, iovs_len, nbytes_out) */
static uint16_t transfer(pvm_wasi *w, pvm_vm *vm, bool write)
{
    wasi_fd *e;
    struct iovec iov[MAX_IOVS];
    int n;
    uint16_t err = wasi_fd_lookup(w, wasi_arg32(vm, 0),
                                  write ? WASI_RIGHT_FD_WRITE : WASI_RIGHT_FD_READ, &e);
    if (err)
        return err;
    uint8_t *nbytes = wasi_guest_bytes(vm, wasi_arg32(vm, 3), 4);
    if (!nbytes)
        return WASI_EFAULT;
    if ((err = gather(vm, wasi_arg32(vm, 1), wasi_arg32(vm, 2), iov, &n)))
        return err;
    ssize_t done;
    do
        done = write ? writev(e->host, iov, n) : readv(e->host, iov, n);
    while (done < 0 && errno == EINTR);
    if (done < 0)
        return wasi_errno(errno);
    pvm_wr32(nbytes, (uint32_t)done);
    return WASI_ESUCCESS;
}

WASI_HOST(fd_read) { return transfer(w, vm, false); }
WASI_HOST(fd_write) { return transfer(w, vm, true); }

/* fd_pread / fd_pwrite: (fd, iovs, iovs_len, offset: u64, nbytes_out).
 * One buffer at a time; a short transfer ends the call. */
static uint16_t transfer_at(pvm_wasi *w, pvm_vm *vm, bool write)
{
    wasi_fd *e;
    struct iovec iov[MAX_IOVS];
    int n;
    uint64_t rights = WASI_RIGHT_FD_SEEK | (write ? WASI_RIGHT_FD_WRITE : WASI_RIGHT_FD_READ);
    uint16_t err = wasi_fd_lookup(w, wasi_arg32(vm, 0), rights, &e);
    if (err)
        return err;
    uint8_t *nbytes = wasi_guest_bytes(vm, wasi_arg32(vm, 4), 4);
    if (!nbytes)
        return WASI_EFAULT;
    if ((err = gather(vm, wasi_arg32(vm, 1), wasi_arg32(vm, 2), iov, &n)))
        return err;
    uint64_t offset = wasi_arg64(vm, 3);
    if (offset > OFF_MAX_U)
        return WASI_EINVAL;
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        size_t len = iov[i].iov_len;
        if (len > OFF_MAX_U - offset - total)
            len = (size_t)(OFF_MAX_U - offset - total);
        ssize_t done;
        do
            done = write ? pwrite(e->host, iov[i].iov_base, len, (off_t)(offset + total))
                         : pread(e->host, iov[i].iov_base, len, (off_t)(offset + total));
        while (done < 0 && errno == EINTR);
        if (done < 0 && total == 0)
            return wasi_errno(errno);
        if (done <= 0)
            break;
        total += (uint64_t)done;
        if ((size_t)done < iov[i].iov_len)
            break;
    }
    pvm_wr32(nbytes, (uint32_t)total);
    return WASI_ESUCCESS;
}

WASI_HOST(fd_pread) { return transfer_at(w, vm, false); }
WASI_HOST(fd_pwrite) { return transfer_at(w, vm, true); }

WASI_HOST(fd_seek) /* (fd, offset: s64, whence, newoffset_out) */
{
    static const int whences[] = {SEEK_SET, SEEK_CUR, SEEK_END};
    int64_t offset = wasi_arg_s64(vm, 1);
    uint32_t whence = wasi_arg32(vm, 2);
    wasi_fd *e;
    /* Asking where one is needs only the right to tell. */
    uint64_t right = whence == 1 && offset == 0 ? WASI_RIGHT_FD_TELL : WASI_RIGHT_FD_SEEK;
    uint16_t err = wasi_fd_lookup(w, wasi_arg32(vm, 0), right, &e);
    if (err)
        return err;
    if (whence > 2)
        return WASI_EINVAL;
    if (sizeof(off_t) < 8 && (offset < INT32_MIN || offset > INT32_MAX))
        return WASI_EOVERFLOW;
    uint8_t *out = wasi_guest_bytes(vm, wasi_arg32(vm, 3), 8);
    if (!out)
        return WASI_EFAULT;
    off_t pos = lseek(e->host, (off_t)offset, whences[whence]);
    if (pos < 0)
        return wasi_errno(errno);
    pvm_wr64(out, (uint64_t)pos);
    return WASI_ESUCCESS;
}

WASI_HOST(fd_tell) /* (fd, offset_out) */
{
    wasi_fd *e;
    uint16_t err = wasi_fd_lookup(w, wasi_arg32(vm, 0), WASI_RIGHT_FD_TELL, &e);
    if (err)
        return err;
    uint8_t *out = wasi_guest_bytes(vm, wasi_arg32(vm, 1), 8);
    if (!out)
        return WASI_EFAULT;
    off_t pos = lseek(e->host, 0, SEEK_CUR);
    if (pos < 0)
        return wasi_errno(errno);
    pvm_wr64(out, (uint64_t)pos);
    return WASI_ESUCCESS;
}

WASI_HOST(fd_sync) /* (fd) */
{
    wasi_fd *e;
    uint16_t err = wasi_fd_lookup(w, wasi_arg32(vm, 0), WASI_RIGHT_FD_SYNC, &e);
    return err ? err : fsync(e->host) == 0 ? WASI_ESUCCESS : wasi_errno(errno);
}

WASI_HOST(fd_datasync) /* (fd) */
{
    wasi_fd *e;
    uint16_t err = wasi_fd_lookup(w, wasi_arg32(vm, 0), WASI_RIGHT_FD_DATASYNC, &e);
    return err ? err : fdatasync(e->host) == 0 ? WASI_ESUCCESS : wasi_errno(errno);
}

/* Is [offset, offset + len) representable as host file offsets? */
static bool range_fits(uint64_t offset, uint64_t len)
{
    return offset <= OFF_MAX_U && len <= OFF_MAX_U - offset;
}

WASI_HOST(fd_advise) /* (fd, offset: u64, len: u64, advice) */
{
    static const int advice[] = {POSIX_FADV_NORMAL,   POSIX_FADV_SEQUENTIAL,
                                 POSIX_FADV_RANDOM,   POSIX_FADV_WILLNEED,
                                 POSIX_FADV_DONTNEED, POSIX_FADV_NOREUSE};
    wasi_fd *e;
    uint16_t err = wasi_fd_lookup(w, wasi_arg32(vm, 0), WASI_RIGHT_FD_ADVISE, &e);
    if (err)
        return err;
    uint64_t offset = wasi_arg64(vm, 1), len = wasi_arg64(vm, 2);
    uint32_t which = wasi_arg32(vm, 3);
    if (which >= sizeof advice / sizeof advice[0] || !range_fits(offset, len))
        return WASI_EINVAL;
    int rc = posix_fadvise(e->host, (off_t)offset, (off_t)len, advice[which]);
    return rc == 0 ? WASI_ESUCCESS : wasi_errno(rc);
}

WASI_HOST(fd_allocate) /* (fd, offset: u64, len: u64) */
{
    wasi_fd *e;
    uint16_t err = wasi_fd_lookup(w, wasi_arg32(vm, 0), WASI_RIGHT_FD_ALLOCATE, &e);
    if (err)
        return err;
    uint64_t offset = wasi_arg64(vm, 1), len = wasi_arg64(vm, 2);
    if (!range_fits(offset, len))
        return WASI_EFBIG;
    int rc = posix_fallocate(e->host, (off_t)offset, (off_t)len);
    return rc == 0 ? WASI_ESUCCESS : wasi_errno(rc);
}

WASI_HOST(fd_filestat_get) /* (fd, filestat_out) */
{
    wasi_fd *e;
    struct stat st;
    uint16_t err = wasi_fd_lookup(w, wasi_arg32(vm, 0), WASI_RIGHT_FD_FILESTAT_GET, &e);
    if (err)
        return err;
    uint8_t *out = wasi_guest_bytes(vm, wasi_arg32(vm, 1), WASI_FILESTAT_SIZE);
    if (!out)
        return WASI_EFAULT;
    if (fstat(e->host, &st) != 0)
        return wasi_errno(errno);
    wasi_put_filestat(out, e->host, &st);
    return WASI_ESUCCESS;
}

WASI_HOST(fd_filestat_set_size) /* (fd, size: u64) */
{
    wasi_fd *e;
    uint16_t err = wasi_fd_lookup(w, wasi_arg32(vm, 0), WASI_RIGHT_FD_FILESTAT_SET_SIZE, &e);
    if (err)
        return err;
    uint64_t size = wasi_arg64(vm, 1);
    if (size > OFF_MAX_U)
        return WASI_EFBIG;
    return ftruncate(e->host, (off_t)size) == 0 ? WASI_ESUCCESS : wasi_errno(errno);
}

uint16_t wasi_set_times(uint64_t atim, uint64_t mtim, uint32_t fst_flags,
                        struct timespec ts[2])
{
    const uint64_t t[2] = {atim, mtim};
    for (int i = 0; i < 2; i++) {
        uint32_t given = i ? WASI_FST_MTIM : WASI_FST_ATIM;
        uint32_t now = i ? WASI_FST_MTIM_NOW : WASI_FST_ATIM_NOW;
        if ((fst_flags & given) && (fst_flags & now))
            return WASI_EINVAL;
        if (fst_flags & now)
            ts[i] = (struct timespec){.tv_nsec = UTIME_NOW};
        else if (fst_flags & given)
            ts[i] = (struct timespec){.tv_sec = (time_t)(t[i] / 1000000000u),
                                      .tv_nsec = (long)(t[i] % 1000000000u)};
        else
            ts[i] = (struct timespec){.tv_nsec = UTIME_OMIT};
    }
    return fst_flags & ~UINT32_C(15) ? WASI_EINVAL : WASI_ESUCCESS;
}

WASI_HOST(fd_filestat_set_times) /* (fd, atim: u64, mtim: u64, fst_flags) */
{
    wasi_fd *e;
    struct timespec ts[2];
    uint16_t err = wasi_fd_lookup(w, wasi_arg32(vm, 0), WASI_RIGHT_FD_FILESTAT_SET_TIMES, &e);
    if (!err)
        err = wasi_set_times(wasi_arg64(vm, 1), wasi_arg64(vm, 2), wasi_arg32(vm, 3), ts);
    if (err)
        return err;
    return futimens(e->host, ts) == 0 ? WASI_ESUCCESS : wasi_errno(errno);
}
