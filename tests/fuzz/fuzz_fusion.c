/*
 * fuzz_fusion.c - fused and unfused runs of one Wasm module must agree
 * (fuzz_fusion.h).  A run writes a digest of what it observed (FNV-1a of
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
    const uint8_t *p = data;
    for (size_t i = 0; i < n; i++)
        *h = (*h ^ p[i]) * 0x100000001b3ull;
}

/* One run (in the child): instantiate, call every exported function. */
static void run(const uint8_t *data, size_t size, int fuse, digest *d)
{
    d->hash = 0xcbf29ce484222325ull;
    size_t len = 0;
    pvm_error err;
    pvm_wasm_store *s = pvm_wasm_store_new(1u << 20);
    if (!s)
        return;
    pvm_wasm_store_set_fusion(s, fuse);
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
    int imports = wm->nimports > 0;
    pvm_wasm_module_free(wm);
    if (imports)
        return PULLEY_FUSION_SKIPPED;
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
