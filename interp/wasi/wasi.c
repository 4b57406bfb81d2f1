/*
 * wasi.c - the life of a WASI host: its arguments, environment and granted
 * directories, binding its functions to a module's imports by name, and
 * naming the WASI imports it does not implement.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wasi_internal.h"

#define PREFIX PVM_WASI_MODULE "."

static const struct {
    const char *name;
    pvm_host_fn fn;
} functions[] = {
#define WASI_ENTRY(name) {#name, wasi_##name},
    WASI_FUNCTIONS(WASI_ENTRY)
#undef WASI_ENTRY
};

static pvm_host_fn find_function(const char *name)
{
    for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++)
        if (strcmp(functions[i].name, name) == 0)
            return functions[i].fn;
    return NULL;
}

int pvm_wasi_implements(const char *name) { return find_function(name) != NULL; }

/* The WASI function name of import `import`, or NULL if it is not WASI's. */
static const char *wasi_name(const char *import)
{
    size_t n = strlen(PREFIX);
    return strncmp(import, PREFIX, n) == 0 ? import + n : NULL;
}

int pvm_wasi_bind(pvm_wasi *w, pvm_vm *vm)
{
    int bound = 0;
    for (uint32_t i = 0; i < vm->module->nimports; i++) {
        const char *name = wasi_name(vm->module->imports[i]);
        pvm_host_fn fn = name ? find_function(name) : NULL;
        if (fn) {
            vm->hosts[i] = (pvm_host_binding){fn, w};
            bound++;
        }
    }
    return bound;
}

const char *pvm_wasi_unsupported_import(const pvm_module *m)
{
    for (uint32_t i = 0; i < m->nimports; i++) {
        const char *name = wasi_name(m->imports[i]);
        if (name && !find_function(name))
            return m->imports[i];
    }
    return NULL;
}

/* Copy strings list[0..n) back to back, NUL-terminated, into *out; their
 * count and total size must fit WASI's u32 sizes. */
static int pack_strings(char *const *list, size_t n, char **out, uint32_t *count,
                        uint32_t *size, const char *what, pvm_error *err)
{
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        total += strlen(list[i]) + 1;
        if (total > UINT32_MAX || i >= UINT32_MAX / 4)
            return pvm_errorf(err, "the %s do not fit in 4 GiB", what);
    }
    *out = malloc(total ? (size_t)total : 1);
    if (!*out)
        return pvm_errorf(err, "out of memory for the %s", what);
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(list[i]) + 1;
        memcpy(*out + at, list[i], len);
        at += len;
    }
    *count = (uint32_t)n;
    *size = (uint32_t)total;
    return 0;
}

/* Open granted directory `spec` ("HOST" or "HOST::GUEST") as guest fd fd. */
static int add_preopen(pvm_wasi *w, uint32_t fd, const char *spec, pvm_error *err)
{
    const char *sep = strstr(spec, "::");
    const char *guest = sep ? sep + 2 : spec;
    size_t host_len = sep ? (size_t)(sep - spec) : strlen(spec);
    char *host = strndup(spec, host_len);
    char *name = strdup(guest);
    if (!host || !name) {
        free(host);
        free(name);
        return pvm_errorf(err, "out of memory");
    }
    int hfd = open(host, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (hfd < 0) {
        int e = errno;
        pvm_errorf(err, "cannot open directory %s: %s", host, strerror(e));
        free(host);
        free(name);
        return -1;
    }
    free(host);
    uint64_t base, inheriting;
    wasi_type_rights(WASI_FILETYPE_DIRECTORY, &base, &inheriting);
    if (wasi_fd_place(w, fd, hfd, true, base, inheriting) != WASI_ESUCCESS) {
        free(name);
        return pvm_errorf(err, "cannot give directory %s a guest fd", spec);
    }
    w->fds[fd].preopen = name;
    return 0;
}

pvm_wasi *pvm_wasi_new(int argc, char *const *argv, char *const *envp,
                       const char *const *dirs, size_t ndirs, pvm_error *err)
{
    pvm_wasi *w = calloc(1, sizeof *w);
    if (!w) {
        pvm_errorf(err, "out of memory");
        return NULL;
    }
    size_t nenv = 0;
    while (envp && envp[nenv])
        nenv++;
    if (pack_strings(argv, argc > 0 ? (size_t)argc : 0, &w->args, &w->argc,
                     &w->args_size, "arguments", err) != 0 ||
        pack_strings(envp, nenv, &w->env, &w->envc, &w->env_size, "environment", err) != 0)
        goto fail;
    if (ndirs > WASI_MAX_FDS - 3) {
        pvm_errorf(err, "too many directories (%zu)", ndirs);
        goto fail;
    }
    if (wasi_fd_add_stdio(w) != WASI_ESUCCESS) {
        pvm_errorf(err, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < ndirs; i++)
        if (add_preopen(w, (uint32_t)(3 + i), dirs[i], err) != 0)
            goto fail;
    return w;
fail:
    pvm_wasi_free(w);
    return NULL;
}

void pvm_wasi_free(pvm_wasi *w)
{
    if (!w)
        return;
    for (uint32_t fd = 0; fd < w->nfds; fd++)
        wasi_fd_release(&w->fds[fd]);
    free(w->fds);
    free(w->args);
    free(w->env);
    free(w);
}
