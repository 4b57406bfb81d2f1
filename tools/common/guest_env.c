/*
 * guest_env.c - the guest's environment from --env options (guest_env.h).
 */
#include "guest_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int guest_env_add(guest_env *e, const char *spec, char *msg, size_t cap)
{
    const char *eq = strchr(spec, '=');
    if (eq == spec || !*spec) {
        snprintf(msg, cap, "--env '%s': a variable needs a name (NAME=VALUE or NAME)", spec);
        return -1;
    }
    char *var;
    if (eq) {
        var = strdup(spec);
    } else {
        const char *value = getenv(spec);
        if (!value)
            return 0; /* not set here: not set there */
        size_t n = strlen(spec), m = strlen(value);
        var = malloc(n + m + 2);
        if (var) {
            memcpy(var, spec, n);
            var[n] = '=';
            memcpy(var + n + 1, value, m + 1);
        }
    }
    char **vars = var ? realloc(e->vars, (e->n + 2) * sizeof *vars) : NULL;
    if (!vars) {
        free(var);
        snprintf(msg, cap, "out of memory");
        return -1;
    }
    vars[e->n++] = var;
    vars[e->n] = NULL;
    e->vars = vars;
    return 0;
}

void guest_env_free(guest_env *e)
{
    for (size_t i = 0; i < e->n; i++)
        free(e->vars[i]);
    free(e->vars);
    *e = (guest_env){0};
}
