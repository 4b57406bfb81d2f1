/*
 * cli.h - what every command-line tool of the toolkit does the same way:
 * --help and --version on stdout (exit 0), errors on stderr prefixed by
 * the tool's name, usage errors (exit 2).  No VM, no SQLite: the
 * analysis tools link it as well as the VM's.  The VM's tools add the
 * ISA's hash and module loading (isa_cli.h).
 */
#ifndef PULLEY_COMMON_CLI_H
#define PULLEY_COMMON_CLI_H

#include <getopt.h>

/* The exit statuses of every tool (interp/exit_status.h adds 134, a trap). */
enum { CLI_OK = 0, CLI_FAILURE = 1, CLI_USAGE = 2 };

typedef struct cli_tool {
    const char *name;  /* "pulley-asm" */
    const char *usage; /* the arguments: "[-o OUT.pbc] IN.pasm"; NULL when
                        * `about` starts with the usage lines itself */
    const char *about; /* what the tool does and its options, for --help */
} cli_tool;

/* The options every tool has; they end a tool's getopt_long table.  Pass
 * an optstring containing "hV" (starting with ':' for cli_bad_option). */
#define CLI_STANDARD_OPTIONS                                                   \
    {"help", no_argument, NULL, 'h'}, {"version", no_argument, NULL, 'V'},    \
    {NULL, 0, NULL, 0}

/* --help: "Usage: TOOL USAGE" (when there is a usage) and the about text
 * on stdout; returns CLI_OK. */
int cli_help(const cli_tool *t);

/* --version: "TOOL VERSION (DETAIL)" on stdout, DETAIL formatted as by
 * printf; returns CLI_OK. */
int cli_print_version(const cli_tool *t, const char *version, const char *detail, ...)
    __attribute__((format(printf, 3, 4)));

/* "TOOL: message" on stderr; returns CLI_FAILURE. */
int cli_error(const cli_tool *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A usage error in one line, "TOOL: message" on stderr; returns CLI_USAGE. */
int cli_misuse(const cli_tool *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A usage error: the message, the usage line (when there is one) and a
 * pointer to --help on stderr; returns CLI_USAGE. */
int cli_usage_error(const cli_tool *t, const char *message);

/* A usage error shown as the whole --help text, on stderr; returns
 * CLI_USAGE. */
int cli_usage_help(const cli_tool *t);

/* getopt_long (with opterr 0) returned '?' (unknown option) or ':'
 * (missing argument): cli_usage_error saying which; returns CLI_USAGE. */
int cli_bad_option(const cli_tool *t, char **argv, int opt);

#endif
