/* pthread.h - a single-threaded stand-in: the wasi-libc of Debian 12 has no
 * threads.  QuickJS locks its class-id and Atomics mutexes (no-ops here);
 * Atomics.wait cannot block (the condition calls fail), which no benchmark
 * script of this directory calls. */
#ifndef WASI_PTHREAD_STUB_H
#define WASI_PTHREAD_STUB_H
#include <errno.h>
#include <time.h>
typedef int pthread_mutex_t;
typedef int pthread_cond_t;
#define PTHREAD_MUTEX_INITIALIZER 0
static inline int pthread_mutex_lock(pthread_mutex_t *m) { (void)m; return 0; }
static inline int pthread_mutex_unlock(pthread_mutex_t *m) { (void)m; return 0; }
static inline int pthread_cond_init(pthread_cond_t *c, const void *a) { (void)c; (void)a; return 0; }
static inline int pthread_cond_destroy(pthread_cond_t *c) { (void)c; return 0; }
static inline int pthread_cond_signal(pthread_cond_t *c) { (void)c; return 0; }
static inline int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    (void)c, (void)m;
    return EINVAL;
}
static inline int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                         const struct timespec *t)
{
    (void)c, (void)m, (void)t;
    return ETIMEDOUT;
}
#endif
