/*
 * regvm.h - regvm's machine: its functions (code the interpreter runs,
 * registered with libpulleyprof while they live), the interpreter, and
 * the programs it runs.
 */
#ifndef REGVM_H
#define REGVM_H

#include <pulley/profile.h>

#include <stddef.h>
#include <stdint.h>

#include "regvm_isa.h"

typedef struct regvm regvm;

typedef struct regvm_func {
    char name[32];
    uint8_t *code;
    size_t size;
    int handle;       /* the profile's, or -1 */
    uint64_t *counts; /* per byte offset: executions (exact runs), or NULL */
} regvm_func;

/* Make a function of code[0 .. size) (copied, fused with the build's
 * macro ops unless the machine was told not to) and register it with the
 * profile; NULL when out of memory. */
regvm_func *regvm_load(regvm *vm, const char *name, const uint8_t *code, size_t size);
/* Report its counts, unregister it from the profile and free it. */
void regvm_unload(regvm *vm, regvm_func *f);
/* Run f with r0 = arg; what it returns (ret), or 0 for halt. */
int64_t regvm_run(regvm *vm, const regvm_func *f, int64_t arg);

/* A program being written: instructions appended, branches patched. */
typedef struct regvm_code {
    uint8_t *b;
    size_t len, cap;
    int failed;
} regvm_code;

/* Append op with its register operands and immediates (as many as the
 * table says) and return its offset. */
size_t regvm_emit(regvm_code *c, unsigned op, const int64_t *operands);
#define REGVM_EMIT(c, op, ...) regvm_emit((c), (op), (const int64_t[]){__VA_ARGS__})
#define REGVM_EMIT0(c, op) regvm_emit((c), (op), NULL)
/* Point the branch at `at` to offset `to`. */
void regvm_patch(regvm_code *c, size_t at, size_t to);

/* Write program `name` with size argument n into c; 0, or -1 if there is
 * no such program.  The chunk code EVAL runs is regvm_chunk's. */
int regvm_program(const char *name, int64_t n, regvm_code *c);
void regvm_chunk(int64_t arg, regvm_code *c);
extern const char *const regvm_program_names;

#endif
