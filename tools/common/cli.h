/*
 * cli.h - what the command-line tools share: --help and --version, error
 * messages on stderr prefixed by the tool's name, exit statuses
 * (exit_status.h: 0 success, 1 failure, 2 bad usage, 134 a trap), and loading a module from a .pbc or a .pasm file
 * (told apart by the magic bytes, not by the file name).
 */
#ifndef PULLEY_CLI_H
#define PULLEY_CLI_H

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm.h"
#include "exit_status.h"
#include "isa.h"
#include "module.h"

#ifndef PULLEY_VERSION
#error "PULLEY_VERSION is defined by the build (tools/CMakeLists.txt)"
#endif

enum { CLI_OK = PVM_EXIT_OK, CLI_FAILURE = PVM_EXIT_FAILURE, CLI_USAGE = PVM_EXIT_USAGE,
       CLI_TRAP = PVM_EXIT_TRAP };

typedef struct cli_tool {
    const char *name;  /* "pulley-asm" */
    const char *usage; /* the arguments: "[-o OUT.pbc] IN.pasm" */
    const char *about; /* what the tool does and its options, for --help */
} cli_tool;

/* The options every tool has; they end a tool's getopt_long table.  Pass
 * an optstring starting with ':' and containing "hV". */
#define CLI_STANDARD_OPTIONS                                                   \
    {"help", no_argument, NULL, 'h'}, {"version", no_argument, NULL, 'V'},    \
    {NULL, 0, NULL, 0}

/* "TOOL: message" on stderr; returns CLI_FAILURE. */
static inline int cli_error(const cli_tool *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline int cli_error(const cli_tool *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", t->name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return CLI_FAILURE;
}

/* A usage error: the message and a pointer to --help; returns CLI_USAGE. */
static inline int cli_usage_error(const cli_tool *t, const char *message)
{
    fprintf(stderr, "%s: %s\nUsage: %s %s\nTry '%s --help' for more information.\n",
            t->name, message, t->name, t->usage, t->name);
    return CLI_USAGE;
}

/* getopt_long returned '?' (unknown option) or ':' (missing argument). */
static inline int cli_bad_option(const cli_tool *t, char **argv, int opt)
{
    char message[200];
    if (opt == ':') /* only the last argument can lack its argument */
        snprintf(message, sizeof message, "option '%s' needs an argument", argv[optind - 1]);
    else if (optopt) /* a short option */
        snprintf(message, sizeof message, "unknown option '-%c'", optopt);
    else
        snprintf(message, sizeof message, "unknown option '%s'", argv[optind - 1]);
    return cli_usage_error(t, message);
}

static inline int cli_help(const cli_tool *t)
{
    printf("Usage: %s %s\n%s", t->name, t->usage, t->about);
    return CLI_OK;
}

static inline int cli_version(const cli_tool *t)
{
    printf("%s %s (ISA %016" PRIx64 ")\n", t->name, PULLEY_VERSION, pvm_isa_hash());
    return CLI_OK;
}

/* A size in bytes: decimal or 0x hex, optionally followed by K, M or G
 * (KiB, MiB, GiB).  Returns 0, or -1 for anything else (and overflow). */
static inline int cli_parse_size(const char *s, uint64_t *out)
{
    char *end;
    if (!*s || *s == '-')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s)
        return -1;
    unsigned shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
    if (shift)
        end++;
    if (*end || v > (UINT64_MAX >> shift))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

/* The module in `path`: read as .pbc if it starts with the .pbc magic,
 * otherwise assembled as .pasm.  NULL once the error has been reported.
 * The module is not verified. */
static inline pvm_module *cli_load_module(const cli_tool *t, const char *path)
{
    pvm_error err;
    size_t size;
    uint8_t *bytes = pvm_read_file(path, &size, &err);
    if (!bytes) {
        cli_error(t, "%s", err.msg);
        return NULL;
    }
    bool pbc = size >= 4 && memcmp(bytes, PVM_PBC_MAGIC, 4) == 0;
    pvm_module *m = pbc ? pvm_module_read(bytes, size, &err)
                        : pvm_assemble(path, (const char *)bytes, size, &err);
    free(bytes);
    if (!m && pbc)
        cli_error(t, "%s: %s", path, err.msg);
    else if (!m)
        cli_error(t, "%s", err.msg); /* already "FILE:LINE:COL: ..." */
    return m;
}

#endif
