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

/* An exact count: an instruction (`to` unused) or a branch edge. */
typedef struct reg_count {
    int func;
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
    reg_address *by_address; /* registry_sort: functions by address */
} registry;

/* Each returns the new handle (index), or -1 when out of memory or the
 * arguments are invalid (unknown module, empty name). */
int registry_add_module(registry *r, const char *name, const void *decode_ctx);
int registry_add_function(registry *r, int module, uint32_t index, const char *name,
                          uintptr_t address, const uint8_t *code, size_t size);
/* Append a count for a registered function; 0 or -1. */
int registry_add_count(registry *r, reg_counts *c, int func, uint32_t from, uint32_t to,
                       uint64_t count);

/* Index functions by address (once every function is registered). */
int registry_sort(registry *r);
/* The function containing pc (after registry_sort), or -1. */
int registry_find_pc(const registry *r, uintptr_t pc);

void registry_free(registry *r);

#endif
