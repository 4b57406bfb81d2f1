/*
 * exit_status.h - the exit statuses of the tools that run programs
 * (pulley-run, pulley-trace, pulley-collect) and of every other tool (the
 * README's table "Exit statuses"): 0 success, 1 failure, 2 bad usage, and
 * for a program that trapped 134 - what a native program that aborts
 * exits with in a shell (128 + SIGABRT), and what wasmtime uses.  A
 * program's own exit status (the exit import, WASI proc_exit) passes
 * through unchanged.
 */
#ifndef PULLEY_EXIT_STATUS_H
#define PULLEY_EXIT_STATUS_H

enum { PVM_EXIT_OK = 0, PVM_EXIT_FAILURE = 1, PVM_EXIT_USAGE = 2, PVM_EXIT_TRAP = 134 };

/* The end of a running tool's --help. */
#define PVM_EXIT_HELP_RUNNER                                                     \
    "Exit status: the program's (0 after it returns, the status it gives to\n" \
    "exit or proc_exit); 134 after a trap (as a native program that aborts);\n" \
    "1 when it cannot be loaded or run; 2 for bad usage.\n"

/* The end of every other tool's --help. */
#define PVM_EXIT_HELP_TOOL "Exit status: 0 on success, 1 on failure, 2 for bad usage.\n"

#endif
