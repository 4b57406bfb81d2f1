/*
 * spec_runner.h - executing the commands of a spec test script against
 * the instance layer (wasm_instance.h): modules, registrations, actions
 * and every assertion kind.  Each command counts once: passed, failed, or
 * skipped (only text-format assert_malformed, which is out of scope).
 */
#ifndef PULLEY_SPEC_RUNNER_H
#define PULLEY_SPEC_RUNNER_H

#include "spec_script.h"

/* A spec_script_fn: runs the script's commands in a new store holding the
 * spectest module; with s->verbose, prints each failing command (line,
 * what was expected, what happened).  ctx is unused. */
void spec_run_commands(const spec_script *s, spec_totals *t, void *ctx);

#endif
