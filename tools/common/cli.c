/*
 * cli.c - --help, --version and usage errors, the same in every tool.
 */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>

static void print_help(FILE *out, const cli_tool *t)
{
    if (t->usage)
        fprintf(out, "Usage: %s %s\n", t->name, t->usage);
    fputs(t->about, out);
}

int cli_help(const cli_tool *t)
{
    print_help(stdout, t);
    return CLI_OK;
}

int cli_print_version(const cli_tool *t, const char *version, const char *detail, ...)
{
    va_list ap;
    va_start(ap, detail);
    printf("%s %s (", t->name, version);
    vprintf(detail, ap);
    fputs(")\n", stdout);
    va_end(ap);
    return CLI_OK;
}

/* "TOOL: message\n" on stderr. */
static void vreport(const cli_tool *t, const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: ", t->name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int cli_error(const cli_tool *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(t, fmt, ap);
    va_end(ap);
    return CLI_FAILURE;
}

int cli_misuse(const cli_tool *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(t, fmt, ap);
    va_end(ap);
    return CLI_USAGE;
}

int cli_usage_error(const cli_tool *t, const char *message)
{
    fprintf(stderr, "%s: %s\n", t->name, message);
    if (t->usage)
        fprintf(stderr, "Usage: %s %s\n", t->name, t->usage);
    fprintf(stderr, "Try '%s --help' for more information.\n", t->name);
    return CLI_USAGE;
}

int cli_usage_help(const cli_tool *t)
{
    print_help(stderr, t);
    return CLI_USAGE;
}

int cli_bad_option(const cli_tool *t, char **argv, int opt)
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
