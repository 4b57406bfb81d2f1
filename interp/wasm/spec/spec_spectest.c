/*
 * spec_spectest.c - the `spectest` host module (see spec_spectest.h).
 */
#include "spec_spectest.h"

#include <string.h>

/* The print functions: the scripts only call them; nothing is printed, so
 * that the runner's output stays one line per script. */
static pvm_trap_kind print(pvm_vm *vm, void *ctx)
{
    (void)vm;
    (void)ctx;
    return PVM_TRAP_NONE;
}

int spec_spectest_define(pvm_wasm_store *s, pvm_error *err)
{
    static const struct {
        const char *name, *params;
    } prints[] = {
        {"print", ""},       {"print_i32", "i"},     {"print_i64", "I"},
        {"print_f32", "f"},  {"print_f64", "F"},     {"print_i32_f32", "if"},
        {"print_f64_f64", "FF"},
    };
    for (size_t i = 0; i < sizeof prints / sizeof prints[0]; i++)
        if (pvm_wasm_host_func(s, "spectest", prints[i].name, prints[i].params, "", print, NULL,
                               err))
            return -1;
    float f32 = 666.6f;
    double f64 = 666.6;
    uint32_t f32_bits;
    uint64_t f64_bits;
    memcpy(&f32_bits, &f32, sizeof f32_bits);
    memcpy(&f64_bits, &f64, sizeof f64_bits);
    if (pvm_wasm_host_global(s, "spectest", "global_i32", PVM_WASM_I32, false, 666, err) ||
        pvm_wasm_host_global(s, "spectest", "global_i64", PVM_WASM_I64, false, 666, err) ||
        pvm_wasm_host_global(s, "spectest", "global_f32", PVM_WASM_F32, false, f32_bits, err) ||
        pvm_wasm_host_global(s, "spectest", "global_f64", PVM_WASM_F64, false, f64_bits, err) ||
        pvm_wasm_host_table(s, "spectest", "table", PVM_WASM_FUNCREF, 10, 20, err) ||
        pvm_wasm_host_memory(s, "spectest", "memory", 1, 2, err))
        return -1;
    return 0;
}
