/*
 * fuzz_wasm_frontend.c - the Wasm front end under the fuzzer: decode +
 * validate + translate + verify (whole and lazily), see fuzz_wasm_frontend.h.
 *
 * Built as a libFuzzer target (clang -fsanitize=fuzzer,address,undefined)
 * with PULLEY_FUZZ=ON, see tests/fuzz/CMakeLists.txt and run_fuzz.sh; the
 * entry function alone is linked into fuzz_replay in every build.
 */
#include "fuzz_wasm_frontend.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "error.h"
#include "module.h"
#include "lazy.h"
#include "translate.h"
#include "verify.h"
#include "wasm_module.h"

static void broken(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void broken(const char *fmt, ...)
{
    va_list ap;
    fputs("fuzz_wasm_frontend: invariant broken: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

/* Is a translation failure one the translator may report on a valid module:
 * a limit of the VM (frame size, an immediate out of range, a function's
 * code size) or running out of memory?  Anything else (an instruction with
 * no translation, a stack deeper than validation said, bytecode the verifier
 * refuses) is a bug of the translator. */
static int legitimate_limit(const char *msg)
{
    static const char *const bugs[] = {
        "no translation for",
        "deeper than validation found",
        ", offset ", /* the verifier: "function NAME, offset N: problem" */
    };
    for (size_t i = 0; i < sizeof bugs / sizeof bugs[0]; i++)
        if (strstr(msg, bugs[i]))
            return 0;
    return msg[0] != '\0';
}

/* The translated module through .pbc bytes and back, verified again: what
 * the translator builds is what a .pbc file can hold. */
static void round_trip(const pvm_module *m)
{
    pvm_error err = {{0}};
    pvm_buf out = {0};
    if (pvm_module_write(m, &out, &err) != 0) {
        if (strstr(err.msg, "out of memory")) {
            pvm_buf_free(&out);
            return;
        }
        broken("translated module does not serialise: %s", err.msg);
    }
    pvm_module *back = pvm_module_read(out.data, out.len, &err);
    if (!back && strstr(err.msg, "duplicate import name")) {
        /* Known: a Wasm module may import one MODULE.NAME twice (with the
         * same or different types); the translator declares a host import
         * per Wasm import, and .pbc (and .pasm) refuse a repeated import
         * name.  Tolerated here so that the fuzzer looks past it. */
        pvm_buf_free(&out);
        return;
    }
    if (!back)
        broken("translated module does not read back: %s", err.msg);
    if (pvm_verify_module(back, &err) != 0)
        broken("translated module read back fails verification: %s", err.msg);
    if (back->nfuncs != m->nfuncs)
        broken("round trip changed the function count: %u -> %u", (unsigned)m->nfuncs,
               (unsigned)back->nfuncs);
    pvm_module_free(back);
    pvm_buf_free(&out);
}

/* Translate again the way the instance layer does when references cross
 * instances: with store-wide reference values (wasm_refs.c: the host bit
 * and a store index), which ref.func materialises as 64-bit constants. */
static void translate_with_refs(const pvm_wasm_module *wm)
{
    bool any = false;
    for (uint32_t f = 0; f < wm->nfuncs && !any; f++)
        any = wm->funcs[f].referenced;
    if (!any)
        return;
    uint64_t *refs = calloc((size_t)wm->nfuncs + 1, sizeof *refs);
    if (!refs)
        return;
    for (uint32_t f = 0; f < wm->nfuncs; f++)
        refs[f] = (UINT64_C(1) << 63) | (UINT64_C(0x123456789) + f);
    pvm_error err = {{0}};
    pvm_module *m = pvm_wasm_translate(wm, refs, &err);
    if (!m)
        broken("valid module translated without references but not with them: %s", err.msg);
    pvm_module_free(m);
    free(refs);
}

/* Translate again one function at a time, as an instance does (lazy.h):
 * every function then has the size and name the whole translation gave
 * it (host import numbers aside, its code is the same). */
static void translate_lazily(const pvm_wasm_module *wm, const pvm_module *whole)
{
    pvm_error err = {{0}};
    pvm_module *m = pvm_wasm_translate_lazy(wm, NULL, false, &err);
    if (!m) {
        if (strstr(err.msg, "address space")) /* a limit of the fuzzing process */
            return;
        broken("valid module translated whole but not lazily: %s", err.msg);
    }
    if (pvm_lazy_materialize_all(m, &err) != 0)
        broken("a function translated whole fails lazily: %s", err.msg);
    for (uint32_t f = 0; f < whole->nfuncs; f++)
        if (m->funcs[f].size != whole->funcs[f].size ||
            strcmp(m->funcs[f].name, whole->funcs[f].name) != 0)
            broken("function %u is %s, %u bytes, translated lazily; %s, %u bytes whole",
                   (unsigned)f, m->funcs[f].name, (unsigned)m->funcs[f].size,
                   whole->funcs[f].name, (unsigned)whole->funcs[f].size);
    pvm_module_free(m);
}

pulley_fuzz_outcome pulley_fuzz_wasm_frontend(const uint8_t *data, size_t size, pvm_error *why)
{
    pvm_error err = {{0}};
    pvm_wasm_module *wm = pvm_wasm_decode(data, size, &err);
    if (!wm) {
        /* Every rejection names the byte offset and the problem. */
        if (err.msg[0] == '\0')
            broken("rejected with no message");
        if (strncmp(err.msg, "at byte ", 8) != 0 && !strstr(err.msg, "out of memory"))
            broken("rejection names no byte offset: %s", err.msg);
        if (why)
            *why = err;
        return PULLEY_FUZZ_REJECTED;
    }
    if (wm->size != size || (size > 0 && memcmp(wm->bytes, data, size) != 0))
        broken("module's copy of the binary differs from the input");

    pulley_fuzz_outcome outcome;
    pvm_module *m = pvm_wasm_translate(wm, NULL, &err);
    if (!m) {
        if (!legitimate_limit(err.msg))
            broken("valid module not translated: %s", err.msg);
        if (why)
            *why = err;
        outcome = PULLEY_FUZZ_LIMIT;
    } else {
        if (!m->verified)
            broken("translated module not marked verified");
        if (m->nfuncs != wm->nfuncs)
            broken("%u Wasm functions became %u bytecode functions", (unsigned)wm->nfuncs,
                   (unsigned)m->nfuncs);
        round_trip(m);
        translate_lazily(wm, m);
        pvm_module_free(m);
        outcome = PULLEY_FUZZ_TRANSLATED;
        translate_with_refs(wm);
    }
    pvm_wasm_module_free(wm);
    return outcome;
}

#ifdef PULLEY_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)pulley_fuzz_wasm_frontend(data, size, NULL);
    return 0;
}
#endif
