/*
 * big_code_gen.h - a large synthetic bytecode module shaped like what the
 * Wasm translator emits (interp/wasm/): callee-saved registers pushed and
 * popped, the shadow stack pointer in global #0, heap accesses as
 * bcheck32 + xadd64 x30, x31 + load/store, constants feeding arithmetic,
 * compare + branch, if/else, counted and while loops, br_table switches,
 * direct, host and checked indirect calls.  Encoded with the real encoder
 * (interp/insn.h) and accepted by the real verifier.
 *
 * Each instruction also gets a relative execution frequency within its
 * function (the product of the trip counts of the loops around it and
 * the probabilities of the branches taken to reach it), from which
 * make_big_profile.c draws samples.
 */
#ifndef BIG_CODE_GEN_H
#define BIG_CODE_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "module.h"

typedef struct big_code {
    pvm_module *module;  /* verified; function f is module->funcs[f] */
    size_t ninsns;       /* instructions of every function */
    uint32_t *insn_off;  /* [ninsns] offset in module->code */
    double *insn_freq;   /* [ninsns] executions per call of its function */
    uint32_t *first;     /* [nfuncs + 1] index of each function's first instruction */
} big_code;

/* Generate functions until their code reaches `bytes` bytes (at least one
 * function), deterministically for `seed`.  Returns 0, or -1 with err. */
int big_code_generate(big_code *c, size_t bytes, uint64_t seed, char *err, size_t errcap);
void big_code_free(big_code *c);

#endif
