/*
 * spec_script.h - walking spec test scripts: each .wast named (or found in
 * a named directory, in name order) is converted by wast2json into a
 * temporary directory, its .json is parsed, and a callback checks its
 * commands; then a line "NAME: N passed, N failed, N skipped" is printed.
 * Shared by pulley-spec and the decode/validate-only wasm_spec_validate.
 */
#ifndef PULLEY_SPEC_SCRIPT_H
#define PULLEY_SPEC_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spec_json.h"

typedef struct spec_totals {
    unsigned passed, failed, skipped;
} spec_totals;

typedef struct spec_script {
    const char *path;          /* the .wast file */
    const char *name;          /* its base name, for messages */
    const char *dir;           /* temporary directory of the .json and .wasm files */
    const spec_json *commands; /* the "commands" array */
    bool verbose;
} spec_script;

typedef struct spec_options {
    const char *wast2json; /* the program; NULL: "wast2json" on the PATH */
    bool verbose;
    /* Run each script's callback in a child process, so that a crash or
     * a hang (longer than timeout seconds; 0: no limit) costs that script
     * only: the commands it had not finished count as failed.  The
     * callback must count each command exactly once. */
    bool isolate;
    unsigned timeout;
} spec_options;

/* Checks the commands of one script, adding to *t. */
typedef void (*spec_script_fn)(const spec_script *s, spec_totals *t, void *ctx);

/* Run fn over the scripts named by paths[0..n), printing a line per script
 * and adding its counts to *all; a script that cannot be converted or
 * parsed counts as one failure.  Returns 0, or -1 (message on stderr) if a
 * named path is neither a readable directory nor a file. */
int spec_run_scripts(char *const *paths, int n, const spec_options *o, spec_script_fn fn,
                     void *ctx, spec_totals *all);

/* The bytes of s->dir/filename, or NULL if it cannot be read (or the name
 * is not a plain file name). */
uint8_t *spec_read_module(const spec_script *s, const char *filename, size_t *size);

/* Print "N passed, N failed, N skipped" alone on a line. */
void spec_print_totals(const spec_totals *t);

#endif
