/*
 * registry.h - what the VM registered with the agent: modules, functions
 * (with a copy of their code) and exact counts, kept in memory until the
 * run ends and they are written.  Not thread-safe: the agent locks it.
 */
#ifndef PULLEY_REGISTRY_H
#define PULLEY_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

typedef struct reg_module {
    char *name;
    const void *decode_ctx;
} reg_module;

typedef struct reg_function {
    int module;
    uint32_t index;
    char *name;
    uintptr_t address;
    uint8_t *code;
    size_t size;
} reg_function;

/* An exact count: an instruction of func at offset `from` (to_func and
 * `to` unused), or a control transfer from offset `from` of func to offset
 * `to` of to_func (the same function for a branch, another for most calls
 * and returns). */
typedef struct reg_count {
    int func, to_func;
    uint32_t from, to;
    uint64_t count;
} reg_count;

typedef struct reg_counts {
    reg_count *items;
    size_t n, cap;
} reg_counts;

typedef struct reg_address {
    uintptr_t address;
    size_t func;
} reg_address;

typedef struct registry {
    reg_module *modules;
    size_t nmodules, modules_cap;
    reg_function *funcs;
    size_t nfuncs, funcs_cap;
    reg_counts execs, edges;
    reg_address *by_address; /* pp__registry_sort: functions by address */
} registry;

/* Each returns the new handle (index), or -1 when out of memory or the
 * arguments are invalid (unknown module, empty name). */
int pp__registry_add_module(registry *r, const char *name, const void *decode_ctx);
int pp__registry_add_function(registry *r, int module, uint32_t index, const char *name,
                          uintptr_t address, const uint8_t *code, size_t size);
/* The answer of pp__registry_add_exec / _add_edge for a count they cannot
 * attribute. */
#define REGISTRY_UNMAPPED (-2)
/* Append an instruction count or a transfer count (see reg_count).
 * Returns 0; -1 when out of memory; REGISTRY_UNMAPPED (nothing stored)
 * when a function handle is unknown or an offset is not inside its
 * function's code. */
int pp__registry_add_exec(registry *r, int func, uint32_t offset, uint64_t count);
int pp__registry_add_edge(registry *r, int func, uint32_t from, int to_func, uint32_t to,
                      uint64_t count);

/* Index functions by address (once every function is registered). */
int pp__registry_sort(registry *r);
/* The function containing pc (after pp__registry_sort), or -1. */
int pp__registry_find_pc(const registry *r, uintptr_t pc);

void pp__registry_free(registry *r);

#endif
