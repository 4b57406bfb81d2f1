/*
 * guest_env.h - a WebAssembly program's environment from the command line
 * (pulley-run and pulley-collect --env): a program starts with an empty
 * environment, and each --env adds one variable: NAME=VALUE as given, or
 * NAME alone for this process's value of NAME (nothing when it is unset),
 * as wasmtime's and wasm3's users expect.
 */
#ifndef PULLEY_GUEST_ENV_H
#define PULLEY_GUEST_ENV_H

#include <stddef.h>

typedef struct guest_env {
    char **vars; /* "NAME=VALUE" strings, NULL-terminated (NULL while empty) */
    size_t n;
} guest_env;

/* Add one --env spec.  Returns 0, or -1 with msg (an empty name, a name
 * with '=' first, out of memory). */
int guest_env_add(guest_env *e, const char *spec, char *msg, size_t cap);

void guest_env_free(guest_env *e);

#endif
