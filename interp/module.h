/*
 * module.h - a bytecode module in memory: its functions (all code in one
 * blob, each function at an offset), host imports, type table, heap limits,
 * global and table counts and data segments; and the .pbc binary container
 * that stores it.
 *
 * .pbc layout (little-endian; every string is a u32 length and its bytes):
 *
 *   magic "\0PBC"   u32 format version (PVM_PBC_VERSION)
 *   u32 entry function index (PVM_NO_ENTRY: none)
 *   u64 initial heap bytes   u64 maximum heap bytes
 *   u32 global count         u32 table count
 *   u32 import count;   per import:   string name
 *   u32 type count;     per type:     string params, string results
 *   u32 function count; per function: string name, string params,
 *                                     string results, u32 code size, code
 *   u32 data count;     per segment:  u64 heap offset, u32 size, bytes
 *   u32 start function index (PVM_NO_ENTRY: none)
 *   u32 heap register (PVM_NO_HEAP_REG: none)
 *   per global:  u64 initial value
 *   per table:   u32 initial size, u32 maximum size
 *   u32 element segment count; per segment: u32 table, u32 offset,
 *                                u32 count, count x u32 function index
 *                                (PVM_NO_ENTRY: a null reference)
 *
 * Parameter and result types are strings of letters (PVM_TYPE_LETTERS):
 * i (i32), l (i64), f (f32), d (f64), r (funcref), e (externref).
 * Argument and result k (0-based position) travel in register k of its
 * class: x[k] for integers and references, f[k] for floats, so
 * f(i64, f64, i64) -> f64 takes x0, f1, x2 and returns in f0 (the
 * convention of translated Wasm, interp/wasm/TRANSLATION.md).  Positions
 * 16 and above travel in memory; the command-line tools (run_args.h) call
 * only functions with at most 16 parameters and 16 results.  References
 * are distinct letters so that sigcheck tells them from i64.  The type table lists signatures for
 * sigcheck (a function's own signature need not be in it).
 *
 * The initial state a VM creates for the module (vm.h): the heap with the
 * data segments copied in, each global with its initial value, each table
 * with its initial size (null references) and the element segments'
 * function references written in.  An embedder may bind its own globals
 * and tables instead (the Wasm instance layer does).  The start function,
 * if any, is run by the embedder before anything else (Wasm's start).
 * Code that addresses the heap from a register the embedder sets (the
 * heap register: translated Wasm's x31) gets it on every call into the VM.
 */
#ifndef PULLEY_MODULE_H
#define PULLEY_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bytes.h"
#include "error.h"

#define PVM_PBC_MAGIC "\0PBC"
#define PVM_PBC_VERSION 3u /* 3: start, globals, tables, elements; 2: register
                              * operands a byte each; 1: 5-bit packs */
#define PVM_NO_ENTRY UINT32_MAX
#define PVM_NO_HEAP_REG 0xffu
#define PVM_TYPE_LETTERS "ilfdre"
/* Zero bytes kept after the code blob: the interpreter may read a few bytes
 * past the end of a short final instruction. */
#define PVM_CODE_PADDING 8
/* Limits checked when a module is built or loaded. */
#define PVM_MAX_NAME 4096
#define PVM_MAX_TYPES 1000 /* Wasm's limit on parameters and results */
#define PVM_MAX_FUNCS (1u << 20)
#define PVM_MAX_IMPORTS (1u << 16)
#define PVM_MAX_CODE (1u << 30)
#define PVM_MAX_HEAP (UINT64_C(8) << 30) /* 8 GiB */
#define PVM_MAX_FUNCTYPES (1u << 20)
#define PVM_MAX_GLOBALS (1u << 20)
#define PVM_MAX_TABLES (1u << 20)
#define PVM_MAX_TABLE_ENTRIES (1u << 24) /* entries of one table, ever */

typedef struct pvm_function {
    char *name;
    char *params;    /* type letters, NUL-terminated */
    char *results;
    uint32_t offset; /* of the first instruction in the module's code blob */
    uint32_t size;   /* bytes of code */
} pvm_function;

/* An entry of the type table: a signature, as type letters. */
typedef struct pvm_functype {
    char *params;
    char *results;
} pvm_functype;

typedef struct pvm_data_segment {
    uint64_t offset; /* heap offset the bytes are copied to at start-up */
    uint32_t size;
    uint8_t *bytes;
} pvm_data_segment;

/* A table's initial size and its maximum. */
typedef struct pvm_table_decl {
    uint32_t size, max;
} pvm_table_decl;

/* Function references written into a table at start-up: funcs[k] (a
 * function index, PVM_NO_ENTRY for null) at entry offset + k. */
typedef struct pvm_elem_segment {
    uint32_t table, offset, count;
    uint32_t *funcs;
} pvm_elem_segment;

/* A module's functions translated on first call (lazy.h). */
typedef struct pvm_lazy pvm_lazy;

typedef struct pvm_module {
    uint8_t *code;      /* every function's code, then PVM_CODE_PADDING zeros */
    size_t code_size;   /* without the padding */
    size_t code_cap;
    pvm_function *funcs;
    uint32_t nfuncs;
    char **imports;
    uint32_t nimports;
    pvm_functype *types; /* sigcheck's type immediates index this */
    uint32_t ntypes;
    uint32_t nglobals;   /* global immediates are below this */
    uint32_t ntables;    /* table immediates are below this */
    pvm_data_segment *data;
    uint32_t ndata;
    uint32_t entry;     /* function index or PVM_NO_ENTRY */
    uint32_t start;     /* run before the entry: function index or PVM_NO_ENTRY */
    uint8_t heap_reg;   /* x register given the heap's data-space address on
                         * every call from the embedder, or PVM_NO_HEAP_REG */
    uint64_t *global_init;      /* nglobals initial values; NULL: all 0 */
    pvm_table_decl *table_decl; /* ntables sizes; NULL: all empty */
    pvm_elem_segment *elems;
    uint32_t nelems;
    uint64_t heap_min;  /* bytes */
    uint64_t heap_max;  /* bytes */
    /* Set by the verifier: one bit per code byte, set where an instruction
     * starts (bit k of byte k / 8), in whole 64-bit words
     * (pvm_insn_starts_bytes).  The interpreter runs only verified
     * modules. */
    uint8_t *insn_starts;
    bool verified;
    /* Functions still to translate, and the code's reservation (lazy.h);
     * NULL: every function's code is here. */
    pvm_lazy *lazy;
} pvm_module;

/* Bytes of an insn_starts map covering code offsets 0..code_size: whole
 * 64-bit words, so that ret's check reads the word holding a bit. */
static inline size_t pvm_insn_starts_bytes(size_t code_size)
{
    return (code_size / 64 + 1) * 8;
}

pvm_module *pvm_module_new(void);
void pvm_module_free(pvm_module *m);

/* Append a function (code is copied).  Returns its index, or -1 with err
 * filled (bad type letters, name or code too long, out of memory). */
int pvm_module_add_function(pvm_module *m, const char *name, const char *params,
                            const char *results, const uint8_t *code,
                            size_t size, pvm_error *err);
/* Append a host import by name.  Returns its index or -1. */
int pvm_module_add_import(pvm_module *m, const char *name, pvm_error *err);
/* Append a signature to the type table (duplicates are allowed).  Returns
 * its index, or -1 with err filled (bad type letters, too many types, out
 * of memory). */
int pvm_module_add_type(pvm_module *m, const char *params, const char *results,
                        pvm_error *err);
/* Append a data segment (bytes are copied).  Returns its index or -1. */
int pvm_module_add_data(pvm_module *m, uint64_t offset, const uint8_t *bytes,
                        uint32_t size, pvm_error *err);

/* Set global i's initial value, table i's initial size and maximum
 * (i below the module's count), or append an element segment (funcs
 * copied).  0, or -1 with err. */
int pvm_module_set_global(pvm_module *m, uint32_t i, uint64_t value, pvm_error *err);
int pvm_module_set_table(pvm_module *m, uint32_t i, uint32_t size, uint32_t max, pvm_error *err);
int pvm_module_add_elem(pvm_module *m, uint32_t table, uint32_t offset, const uint32_t *funcs,
                        uint32_t count, pvm_error *err);
/* Are the start function and every element segment's table, range (within
 * the table's initial size) and functions valid for m?  0, or -1 with err
 * naming the first problem. */
int pvm_module_check_state(const pvm_module *m, pvm_error *err);

/* Index of the function or import with this name, or -1. */
int pvm_module_find_function(const pvm_module *m, const char *name);
int pvm_module_find_import(const pvm_module *m, const char *name);

/* Is every letter of s a type letter (PVM_TYPE_LETTERS), and are there at
 * most PVM_MAX_TYPES of them? */
bool pvm_valid_types(const char *s);

/* Serialise to .pbc bytes (appended to out).  Returns 0 or -1. */
int pvm_module_write(const pvm_module *m, pvm_buf *out, pvm_error *err);
/* Parse .pbc bytes.  Every count, length and index is checked against the
 * bytes that remain, before anything is allocated from it; errors name the
 * byte offset.  The result is not yet verified. */
pvm_module *pvm_module_read(const uint8_t *bytes, size_t size, pvm_error *err);

/* Read a whole file into memory (for the tools).  Returns NULL with err
 * naming the file on failure. */
uint8_t *pvm_read_file(const char *path, size_t *size, pvm_error *err);

#endif
