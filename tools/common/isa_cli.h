/*
 * isa_cli.h - what the VM's command-line tools share beyond cli.h
 * (tools/common: --help, errors prefixed by the tool's name, usage
 * errors): the exit status of a trap (exit_status.h: 0 success, 1
 * failure, 2 bad usage, 134 a trap), --version with the ISA's hash, sizes,
 * and loading a module from a .pbc or a .pasm file (told apart by the
 * magic bytes, not by the file name).
 */
#ifndef PULLEY_ISA_CLI_H
#define PULLEY_ISA_CLI_H

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm.h"
#include "cli.h"
#include "exit_status.h"
#include "isa.h"
#include "module.h"

#ifndef PULLEY_VERSION
#error "PULLEY_VERSION is defined by the build (tools/CMakeLists.txt)"
#endif

_Static_assert((int)CLI_OK == (int)PVM_EXIT_OK && (int)CLI_FAILURE == (int)PVM_EXIT_FAILURE &&
                   (int)CLI_USAGE == (int)PVM_EXIT_USAGE,
               "cli.h and exit_status.h agree");
enum { CLI_TRAP = PVM_EXIT_TRAP };

/* --version: the version and the ISA's hash; returns CLI_OK. */
static inline int cli_version(const cli_tool *t)
{
    return cli_print_version(t, PULLEY_VERSION, "ISA %016" PRIx64, pvm_isa_hash());
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
