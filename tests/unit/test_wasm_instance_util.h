/*
 * test_wasm_instance_util.h - what the translator and instance tests share:
 * reading the test modules (the .wat files of tests/wasm, built to
 * PULLEY_TEST_WASM by wat2wasm), decoding and instantiating them, and calling exports with i32/i64/f64
 * arguments.  Include cmocka.h first.
 */
#ifndef PULLEY_TEST_WASM_INSTANCE_UTIL_H
#define PULLEY_TEST_WASM_INSTANCE_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module.h"
#include "wasm_instance.h"
#include "wasm_module.h"

/* The bytes of test module NAME.wasm. */
static inline uint8_t *wt_read(const char *name, size_t *size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.wasm", PULLEY_TEST_WASM, name);
    pvm_error err;
    uint8_t *bytes = pvm_read_file(path, size, &err);
    if (!bytes)
        fail_msg("%s", err.msg);
    return bytes;
}

/* Test module NAME.wasm decoded (and validated); fails the test if not. */
static inline pvm_wasm_module *wt_decode(const char *name)
{
    size_t size;
    uint8_t *bytes = wt_read(name, &size);
    pvm_error err;
    pvm_wasm_module *wm = pvm_wasm_decode(bytes, size, &err);
    free(bytes);
    if (!wm)
        fail_msg("%s: %s", name, err.msg);
    return wm;
}

/* Instantiate NAME.wasm in s; returns the status (err filled). */
static inline pvm_wasm_status wt_try(pvm_wasm_store *s, const char *name,
                                     pvm_wasm_instance **out, pvm_error *err)
{
    size_t size;
    uint8_t *bytes = wt_read(name, &size);
    pvm_wasm_status status;
    *out = pvm_wasm_instantiate(s, bytes, size, &status, err);
    free(bytes);
    return status;
}

static inline pvm_wasm_instance *wt_instance(pvm_wasm_store *s, const char *name)
{
    pvm_error err;
    pvm_wasm_instance *inst;
    if (wt_try(s, name, &inst, &err) != PVM_WASM_OK)
        fail_msg("%s: %s", name, err.msg);
    return inst;
}

static inline pvm_wasm_value wt_i32(uint32_t v) { return (pvm_wasm_value){PVM_WASM_I32, v}; }
static inline pvm_wasm_value wt_i64(uint64_t v) { return (pvm_wasm_value){PVM_WASM_I64, v}; }
static inline pvm_wasm_value wt_f64(double d)
{
    pvm_wasm_value v = {PVM_WASM_F64, 0};
    memcpy(&v.bits, &d, sizeof d);
    return v;
}
static inline pvm_wasm_value wt_f32(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return (pvm_wasm_value){PVM_WASM_F32, bits};
}

/* Call export `name`; returns the trap kind (failing the test on a call
 * error); the first result, if any, in *result. */
static inline int wt_call(pvm_wasm_instance *inst, const char *name, const pvm_wasm_value *args,
                          uint32_t nargs, uint64_t *result)
{
    pvm_wasm_value results[32];
    uint32_t n = 0;
    pvm_error err;
    int trap = pvm_wasm_invoke(inst, name, strlen(name), args, nargs, results, 32, &n, &err);
    if (trap < 0)
        fail_msg("%s: %s", name, err.msg);
    if (result && n > 0)
        *result = results[0].bits;
    return trap;
}

/* The first result of a call that must not trap. */
static inline uint64_t wt_value(pvm_wasm_instance *inst, const char *name,
                                const pvm_wasm_value *args, uint32_t nargs)
{
    uint64_t result = 0;
    int trap = wt_call(inst, name, args, nargs, &result);
    if (trap != PVM_TRAP_NONE)
        fail_msg("%s trapped: %s", name, pvm_trap_message((unsigned)trap));
    return result;
}

#define WT_ARGS(...) ((pvm_wasm_value[]){__VA_ARGS__}), \
    (uint32_t)(sizeof((pvm_wasm_value[]){__VA_ARGS__}) / sizeof(pvm_wasm_value))
#define WT_NOARGS NULL, 0

#endif
