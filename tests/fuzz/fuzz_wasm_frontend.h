/*
 * fuzz_wasm_frontend.h - one input through the Wasm front end: decode and
 * validate (pvm_wasm_decode), translate and verify (pvm_wasm_translate), and
 * the translated module through .pbc serialisation and the verifier again.
 *
 * Shared by the libFuzzer target (fuzz_wasm_frontend.c, PULLEY_FUZZ=ON) and
 * the regression replay driver (fuzz_replay.c, every build).
 */
#ifndef PULLEY_FUZZ_WASM_FRONTEND_H
#define PULLEY_FUZZ_WASM_FRONTEND_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef enum pulley_fuzz_outcome {
    PULLEY_FUZZ_REJECTED,     /* malformed or invalid: decode said why */
    PULLEY_FUZZ_LIMIT,        /* valid, but beyond a limit of the VM */
    PULLEY_FUZZ_TRANSLATED,   /* valid, translated, verified, round-tripped */
} pulley_fuzz_outcome;

/* Run one input.  An input that breaks an invariant of the front end (a
 * rejection with no message or no byte offset, a valid module whose
 * translation the verifier refuses, a translated module that does not
 * survive serialisation) is reported on stderr and abort()s, so that
 * libFuzzer records it and the replay test fails; memory errors and
 * undefined behaviour are the sanitizers' to catch.  why (may be NULL)
 * receives the rejection or the limit. */
pulley_fuzz_outcome pulley_fuzz_wasm_frontend(const uint8_t *data, size_t size, pvm_error *why);

#endif
