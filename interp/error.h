/*
 * error.h - the error report every loader, parser and checker fills in:
 * one formatted message naming where the problem is and what it is.
 */
#ifndef PULLEY_ERROR_H
#define PULLEY_ERROR_H

typedef struct pvm_error {
    char msg[512];
} pvm_error;

/* Format a message into err (if err is not NULL); always returns -1 so that
 * callers can write `return pvm_errorf(err, ...)`. */
int pvm_errorf(pvm_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
