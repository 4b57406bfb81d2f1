/*
 * fuzz_fusion.c - fused and unfused runs of one Wasm module must agree
 * (fuzz_fusion.h).  Its imports are provided: functions that return zeros,
 * and globals, tables and memories of the imported types.  A run writes a digest of what it observed (FNV-1a of
 * every call's trap kind and results, then of the memory) to a pipe; the
 * parent compares the two digests and, on a difference, the two logs.
 */
#include "fuzz_fusion.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/hash.h"
#include "vm.h"
#include "wasm_instance.h"
#include "wasm_module.h"

enum { TIME_LIMIT_S = 2, MAX_CALLS = 64 };

typedef struct digest {
    uint64_t hash;
    char log[512]; /* the first calls' outcomes, for the report */
} digest;

static void mix(uint64_t *h, const void *data, size_t n)
{
    *h = base_fnv1a64_bytes(*h, data, n);
}

/* An imported function: results zero. */
static pvm_trap_kind zeros(pvm_vm *vm, void *ctx)
{
    (void)ctx;
    memset(vm->x, 0, 16 * sizeof vm->x[0]);
    for (unsigned i = 0; i < 16; i++)
        vm->f[i].bits = 0;
    return PVM_TRAP_NONE;
}

static char type_letter(uint8_t t)
{
    switch (t) {
    case PVM_WASM_I32: return 'i';
    case PVM_WASM_I64: return 'I';
    case PVM_WASM_F32: return 'f';
    case PVM_WASM_F64: return 'F';
    case PVM_WASM_FUNCREF: return 'r';
    default: return 'e';
    }
}

/* Host items for every import of wm; 0, or -1 when one cannot be made. */
static int provide_imports(pvm_wasm_store *s, const pvm_wasm_module *wm)
{
    for (uint32_t i = 0; i < wm->nimports; i++) {
        const pvm_wasm_import *im = &wm->imports[i];
        char mod[256], name[256];
        if (im->module.len >= sizeof mod || im->name.len >= sizeof name ||
            memchr(im->module.str, 0, im->module.len) || memchr(im->name.str, 0, im->name.len))
            return -1;
        memcpy(mod, im->module.str, im->module.len);
        mod[im->module.len] = '\0';
        memcpy(name, im->name.str, im->name.len);
        name[im->name.len] = '\0';
        pvm_error err;
        int rc = -1;
        if (im->kind == PVM_WASM_EXTERN_FUNC) {
            const pvm_wasm_functype *t = pvm_wasm_func_type(wm, im->index);
            char params[32], results[32];
            if (t->nparams >= sizeof params || t->nresults >= sizeof results)
                return -1;
            for (uint32_t k = 0; k < t->nparams; k++)
                params[k] = type_letter(t->params[k]);
            params[t->nparams] = '\0';
            for (uint32_t k = 0; k < t->nresults; k++)
                results[k] = type_letter(t->results[k]);
            results[t->nresults] = '\0';
            rc = pvm_wasm_host_func(s, mod, name, params, results, zeros, NULL, &err);
        } else if (im->kind == PVM_WASM_EXTERN_GLOBAL) {
            const pvm_wasm_global *g = &wm->globals[im->index];
            rc = pvm_wasm_host_global(s, mod, name, g->type, g->is_mutable, 0, &err);
        } else if (im->kind == PVM_WASM_EXTERN_TABLE) {
            const pvm_wasm_table *t = &wm->tables[im->index];
            rc = pvm_wasm_host_table(s, mod, name, t->elemtype, t->limits.min, t->limits.max,
                                     &err);
        } else if (im->kind == PVM_WASM_EXTERN_MEMORY) {
            const pvm_wasm_memory *m = &wm->memories[im->index];
            rc = pvm_wasm_host_memory(s, mod, name, m->limits.min, m->limits.max, &err);
        }
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* One run (in the child): instantiate, call every exported function. */
static void run(const uint8_t *data, size_t size, int fuse, digest *d)
{
    d->hash = BASE_FNV1A64_INIT;
    size_t len = 0;
    pvm_error err;
    pvm_wasm_store *s = pvm_wasm_store_new(1u << 20);
    if (!s)
        return;
    pvm_wasm_store_set_fusion(s, fuse);
    pvm_wasm_module *wm0 = pvm_wasm_decode(data, size, &err);
    int provided = wm0 && provide_imports(s, wm0) == 0;
    pvm_wasm_module_free(wm0);
    mix(&d->hash, &provided, sizeof provided);
    pvm_wasm_status st;
    pvm_wasm_instance *inst = pvm_wasm_instantiate(s, data, size, &st, &err);
    mix(&d->hash, &st, sizeof st);
    const pvm_wasm_module *wm = inst ? pvm_wasm_instance_module(inst) : NULL;
    for (uint32_t e = 0; wm && e < wm->nexports && e < MAX_CALLS; e++) {
        const pvm_wasm_export *x = &wm->exports[e];
        if (x->kind != PVM_WASM_EXTERN_FUNC)
            continue;
        const pvm_wasm_functype *t = pvm_wasm_func_type(wm, x->index);
        pvm_wasm_value args[16] = {{0}}, res[16];
        if (t->nparams > 16 || t->nresults > 16)
            continue;
        for (uint32_t i = 0; i < t->nparams; i++)
            args[i].type = t->params[i];
        uint32_t nres = 0;
        int kind = pvm_wasm_invoke(inst, x->name.str, x->name.len, args,
                                   t->nparams, res, 16, &nres, &err);
        mix(&d->hash, &kind, sizeof kind);
        for (uint32_t i = 0; kind == 0 && i < nres; i++)
            mix(&d->hash, &res[i].bits, sizeof res[i].bits);
        if (len < sizeof d->log)
            len += (size_t)snprintf(d->log + len, sizeof d->log - len, "%s%.*s:%s", len ? " " : "",
                                    (int)(x->name.len > 20 ? 20 : x->name.len),
                                    x->name.str,
                                    kind < 0 ? "error" : pvm_trap_name((unsigned)kind));
    }
    if (inst) {
        const pvm_vm *vm = pvm_wasm_instance_vm(inst);
        mix(&d->hash, vm->memory->bytes, vm->memory->size);
        for (uint32_t g = 0; g < vm->module->nglobals; g++)
            mix(&d->hash, &vm->globals[g]->value, sizeof vm->globals[g]->value);
        for (uint32_t t = 0; t < vm->module->ntables; t++)
            mix(&d->hash, vm->tables[t]->elems, vm->tables[t]->size * sizeof(uint64_t));
    }
    pvm_wasm_store_free(s);
}

/* Run in a child with a time limit; 0 with *d, or -1 if it did not finish. */
static int run_in_child(const uint8_t *data, size_t size, int fuse, digest *d)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        close(fd[0]);
        signal(SIGALRM, SIG_DFL); /* libFuzzer's own handler would not stop us */
        alarm(TIME_LIMIT_S);
        digest mine;
        memset(&mine, 0, sizeof mine);
        run(data, size, fuse, &mine);
        ssize_t w = write(fd[1], &mine, sizeof mine);
        _exit(w == (ssize_t)sizeof mine ? 0 : 1);
    }
    close(fd[1]);
    size_t got = 0;
    while (got < sizeof *d) {
        ssize_t n = read(fd[0], (char *)d + got, sizeof *d - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return got == sizeof *d && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

pulley_fusion_outcome pulley_fuzz_fusion(const uint8_t *data, size_t size)
{
    pvm_error err;
    pvm_wasm_module *wm = pvm_wasm_decode(data, size, &err);
    if (!wm)
        return PULLEY_FUSION_SKIPPED;
    pvm_wasm_module_free(wm);
    digest plain, fused;
    if (run_in_child(data, size, 0, &plain) != 0 || run_in_child(data, size, 1, &fused) != 0)
        return PULLEY_FUSION_TIMEOUT;
    if (plain.hash != fused.hash) {
        fprintf(stderr, "fuzz_fusion: fused and unfused runs differ\n  unfused: %s\n  fused:   %s\n",
                plain.log, fused.log);
        abort();
    }
    return PULLEY_FUSION_SAME;
}

#ifdef PULLEY_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pulley_fuzz_fusion(data, size);
    return 0;
}
#endif
