/*
 * error.h - the error message of a failed step: functions that fail say
 * why into a caller's buffer (char *err, size_t cap) and return -1, and
 * base_fail does both in one call.
 */
#ifndef BASE_ERROR_H
#define BASE_ERROR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* The message fmt, ... into err (cap bytes, cut to fit); returns -1. */
static inline int base_fail(char *err, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline int base_fail(char *err, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return -1;
}

#endif
