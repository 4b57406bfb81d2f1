/*
 * registry.h - what the interpreter registered with the agent: modules,
 * functions (with a copy of their code, decoded when first needed) and
 * exact counts, kept in memory until the run ends and they are written;
 * which functions are live, by address; and the address each function is
 * stored at (include/pulley/profile.h, "Stored addresses").  Every call
 * that refuses its arguments says why in (why, cap).  Not thread-safe:
 * the agent locks it.
 */
#ifndef PULLEY_REGISTRY_H
#define PULLEY_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pulley/profile.h>

#include "addr_index.h"
#include "func_rows.h"
#include "isa_rows.h"

typedef struct reg_module {
    char *name;
    const void *decode_ctx;
} reg_module;

typedef struct reg_function {
    int module;
    uint32_t index;
    char *name;
    uintptr_t address;      /* where the interpreter runs it */
    uintptr_t stored;       /* where the run stores it (address unless moved) */
    uint8_t *code;
    size_t size;
    const void *decode_ctx; /* its own or its module's; unused once decoded */
    bool live;              /* not unregistered */
    bool decoded;           /* starts and rows hold its decoding */
    bool written;           /* its rows are in the database (and released) */
    uint8_t *starts;        /* after decoding: a bit per byte, set at instruction starts */
    uint8_t *ends;          /* and at those that end a run (in starts' allocation) */
    float *costs;           /* with run_costs: each instruction's handler cost, in order */
    uint32_t ncosts;
    func_rows rows;
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

typedef struct registry {
    const isa_rows *isa;
    reg_module *modules;
    size_t nmodules, modules_cap;
    reg_function *funcs;
    size_t nfuncs, funcs_cap;
    reg_counts execs, edges;
    addr_index live;      /* live functions by address */
    addr_index stored;    /* every function by stored address */
    uintptr_t fresh;      /* where the next moved function may go */
    bool moved;           /* some function is stored away from its address */
    /* Keep each instruction's cost for spreading the samples of a run
     * (run_spread.h): the opcode's, or when it has none default_cost. */
    bool run_costs;
    double default_cost;
    func_decoder decoder; /* scratch */
} registry;

/* An empty registry decoding with isa. */
void pp__registry_init(registry *r, const isa_rows *isa);

/* Each returns the new handle (index), or -1 with why: out of memory, or
 * invalid arguments (no name, unknown module, no code, a range that
 * overlaps a live function's). */
int pp__registry_add_module(registry *r, const char *name, const void *decode_ctx, char *why,
                            size_t cap);
int pp__registry_add_function(registry *r, const pulleyprof_function *f, char *why, size_t cap);

/* Function func's code dies: decode it now (its context is still valid),
 * and take it out of the live functions.  0, or -1 with why. */
int pp__registry_unregister(registry *r, int func, char *why, size_t cap);

/* Unregister func and add f: f's handle, or -1 with why (func stays
 * registered when f is refused). */
int pp__registry_replace(registry *r, int func, const pulleyprof_function *f, char *why,
                         size_t cap);

/* Decode function i if it is not yet: 0, or -1 when out of memory. */
int pp__registry_decode(registry *r, size_t i);
/* Its rows are written: release them. */
void pp__registry_written(registry *r, size_t i);

/* The answer of pp__registry_add_exec / _add_edge for a count they cannot
 * attribute. */
#define REGISTRY_UNMAPPED (-2)
/* Append an instruction count or a transfer count (see reg_count).
 * Returns 0; -1 when out of memory; REGISTRY_UNMAPPED (nothing stored,
 * why set) when a function handle is unknown or an offset is not an
 * instruction start of its function. */
int pp__registry_add_exec(registry *r, int func, uint32_t offset, uint64_t count, char *why,
                          size_t cap);
int pp__registry_add_edge(registry *r, int func, uint32_t from, int to_func, uint32_t to,
                          uint64_t count, char *why, size_t cap);

/* A sampled pc as stored: the stored address + offset of the live
 * function holding it, else pc itself. */
uintptr_t pp__registry_translate(const registry *r, uintptr_t pc);
/* The function whose stored range holds stored pc, or -1. */
int pp__registry_find_stored(const registry *r, uintptr_t pc);

void pp__registry_free(registry *r);

#endif
