/*
 * wasm_module.h - a decoded and validated WebAssembly 2.0 module (no SIMD),
 * shaped for the translator to VM bytecode.
 *
 * pvm_wasm_decode() checks the binary format and validates the module as the
 * core specification defines; a module it returns is valid, so consumers need
 * no checks of their own.  Everything that points into the binary (names,
 * function types, function bodies, data bytes, custom sections) points into
 * the module's own copy, `bytes`, which lives as long as the module.
 *
 * Index spaces follow the spec: imports come first in the function, table,
 * memory and global spaces; `import` says which entries are imported.
 * Offsets (`*_pos`, `start`, ...) are byte offsets into `bytes`.
 */
#ifndef PULLEY_WASM_MODULE_H
#define PULLEY_WASM_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define PVM_WASM_NONE UINT32_MAX /* "no index" */

/* Implementation limits (the spec allows them; these are the JS API's). */
#define PVM_WASM_MAX_LOCALS 50000u    /* per function, parameters included */
#define PVM_WASM_MAX_PARAMS 1000u     /* per function type */
#define PVM_WASM_MAX_RESULTS 1000u    /* per function type */
#define PVM_WASM_MAX_STACK 1000000u   /* operand stack height, in values */
#define PVM_WASM_MAX_PAGES 65536u     /* 64 KiB pages of a memory (the spec's) */

/* Value types, by their binary codes. */
typedef enum pvm_wasm_valtype {
    PVM_WASM_I32 = 0x7F,
    PVM_WASM_I64 = 0x7E,
    PVM_WASM_F32 = 0x7D,
    PVM_WASM_F64 = 0x7C,
    PVM_WASM_FUNCREF = 0x70,
    PVM_WASM_EXTERNREF = 0x6F,
} pvm_wasm_valtype;

/* Import and export kinds, by their binary codes. */
typedef enum pvm_wasm_extern_kind {
    PVM_WASM_EXTERN_FUNC = 0,
    PVM_WASM_EXTERN_TABLE = 1,
    PVM_WASM_EXTERN_MEMORY = 2,
    PVM_WASM_EXTERN_GLOBAL = 3,
} pvm_wasm_extern_kind;

/* A name: valid UTF-8, not NUL-terminated (print with "%.*s"). */
typedef struct pvm_wasm_name {
    const char *str;
    uint32_t len;
} pvm_wasm_name;

typedef struct pvm_wasm_functype {
    uint32_t nparams, nresults;
    const uint8_t *params;  /* nparams pvm_wasm_valtype codes */
    const uint8_t *results; /* nresults pvm_wasm_valtype codes */
} pvm_wasm_functype;

typedef struct pvm_wasm_limits {
    uint32_t min;
    uint32_t max; /* UINT32_MAX when !has_max (tables: also a valid bound) */
    bool has_max;
} pvm_wasm_limits;

/* A constant expression (Wasm 2.0: always exactly one instruction). */
typedef enum pvm_wasm_const_kind {
    PVM_WASM_CONST_NUM,      /* type i32/i64/f32/f64; value in bits */
    PVM_WASM_CONST_REF_NULL, /* type funcref/externref */
    PVM_WASM_CONST_REF_FUNC, /* type funcref; function `index` */
    PVM_WASM_CONST_GLOBAL,   /* global.get of imported immutable global `index` */
} pvm_wasm_const_kind;

typedef struct pvm_wasm_const {
    uint8_t kind;  /* pvm_wasm_const_kind */
    uint8_t type;  /* pvm_wasm_valtype of the value */
    uint32_t index;
    uint64_t bits; /* i32 (zero-extended), i64, f32 or f64 raw bits */
} pvm_wasm_const;

typedef struct pvm_wasm_import {
    pvm_wasm_name module, name;
    uint8_t kind;   /* pvm_wasm_extern_kind */
    uint32_t index; /* into funcs, tables, memories or globals */
} pvm_wasm_import;

typedef struct pvm_wasm_export {
    pvm_wasm_name name; /* unique among the exports */
    uint8_t kind;       /* pvm_wasm_extern_kind */
    uint32_t index;
} pvm_wasm_export;

/* A run of locals of one type, as declared: `count` locals of `type`. */
typedef struct pvm_wasm_local_run {
    uint32_t count;
    uint8_t type;
} pvm_wasm_local_run;

/* A block, loop or if of a function body, in the order the opcodes appear.
 * The translator, walking the body, takes the next entry at each of them. */
typedef struct pvm_wasm_block {
    uint8_t op;          /* pvm_wasm_op: BLOCK, LOOP or IF */
    uint32_t pos;        /* offset of the opcode */
    uint32_t else_pos;   /* offset of the matching else, or 0 (if only) */
    uint32_t end_pos;    /* offset of the matching end */
    uint32_t height;     /* operand stack height at entry, params excluded */
    uint32_t nparams, nresults;
    const uint8_t *params, *results; /* valtype codes */
} pvm_wasm_block;

typedef struct pvm_wasm_func {
    uint32_t type;      /* index into types */
    uint32_t import;    /* index into imports, or PVM_WASM_NONE if defined */
    bool referenced;    /* in C.refs: an element, an export, or ref.func'd */
    pvm_wasm_name name; /* from the "name" custom section; len 0 if none */
    /* Defined functions only. */
    uint32_t nruns;     /* local declarations, as runs */
    pvm_wasm_local_run *runs;
    uint32_t nlocals;   /* declared locals (params excluded) */
    uint32_t body_pos;  /* offset of the first instruction */
    uint32_t body_end;  /* offset just after the final end */
    /* What validation learned. */
    uint32_t max_stack; /* operand stack height bound, in values (counts
                           what unreachable code pushes too) */
    uint32_t max_depth; /* maximum nesting of blocks (the body counts 1) */
    uint32_t nblocks;
    pvm_wasm_block *blocks;
} pvm_wasm_func;

typedef struct pvm_wasm_table {
    uint8_t elemtype; /* PVM_WASM_FUNCREF or PVM_WASM_EXTERNREF */
    pvm_wasm_limits limits;
    uint32_t import;  /* index into imports, or PVM_WASM_NONE */
} pvm_wasm_table;

typedef struct pvm_wasm_memory {
    pvm_wasm_limits limits; /* in 64 KiB pages, at most PVM_WASM_MAX_PAGES */
    uint32_t import;
} pvm_wasm_memory;

typedef struct pvm_wasm_global {
    uint8_t type;    /* pvm_wasm_valtype */
    bool is_mutable;
    uint32_t import; /* index into imports, or PVM_WASM_NONE */
    pvm_wasm_const init; /* defined globals only */
} pvm_wasm_global;

typedef enum pvm_wasm_segment_mode {
    PVM_WASM_SEG_ACTIVE,
    PVM_WASM_SEG_PASSIVE,
    PVM_WASM_SEG_DECLARATIVE, /* elements only */
} pvm_wasm_segment_mode;

typedef struct pvm_wasm_elem {
    uint8_t mode;   /* pvm_wasm_segment_mode */
    uint8_t type;   /* PVM_WASM_FUNCREF or PVM_WASM_EXTERNREF */
    uint32_t table; /* active only */
    pvm_wasm_const offset; /* active only: an i32 */
    uint32_t count;
    pvm_wasm_const *items; /* REF_FUNC, REF_NULL or GLOBAL, of `type` */
} pvm_wasm_elem;

typedef struct pvm_wasm_data {
    uint8_t mode;    /* ACTIVE or PASSIVE */
    uint32_t memory; /* active only */
    pvm_wasm_const offset; /* active only: an i32 */
    uint32_t start, size;  /* the bytes: module->bytes + start */
} pvm_wasm_data;

typedef struct pvm_wasm_custom {
    pvm_wasm_name name;
    uint32_t start, size; /* the payload after the name */
} pvm_wasm_custom;

typedef struct pvm_wasm_module {
    uint8_t *bytes; /* a copy of the binary */
    size_t size;

    uint32_t ntypes;
    pvm_wasm_functype *types;
    uint32_t nimports;
    pvm_wasm_import *imports;
    uint32_t nfuncs, nfunc_imports; /* imports first */
    pvm_wasm_func *funcs;
    uint32_t ntables, ntable_imports;
    pvm_wasm_table *tables;
    uint32_t nmemories, nmemory_imports; /* nmemories <= 1 */
    pvm_wasm_memory *memories;
    uint32_t nglobals, nglobal_imports;
    pvm_wasm_global *globals;
    uint32_t nexports;
    pvm_wasm_export *exports;
    uint32_t start; /* start function, or PVM_WASM_NONE */
    uint32_t nelems;
    pvm_wasm_elem *elems;
    bool has_data_count;
    uint32_t ndatas;
    pvm_wasm_data *datas;
    uint32_t ncustoms;
    pvm_wasm_custom *customs;
} pvm_wasm_module;

/* Decode and validate a binary module.  Returns NULL, with a message naming
 * the byte offset and the problem in err, if it is malformed or invalid. */
pvm_wasm_module *pvm_wasm_decode(const uint8_t *bytes, size_t size, pvm_error *err);
void pvm_wasm_module_free(pvm_wasm_module *m);

/* The type of function `func` (any index below nfuncs). */
const pvm_wasm_functype *pvm_wasm_func_type(const pvm_wasm_module *m, uint32_t func);
/* The export named `name` of this kind, or NULL. */
const pvm_wasm_export *pvm_wasm_find_export(const pvm_wasm_module *m, const char *name,
                                            pvm_wasm_extern_kind kind);
/* True if name holds exactly the C string s. */
bool pvm_wasm_name_is(pvm_wasm_name name, const char *s);
/* "i32", "funcref", ...; "?" for a code that is not a value type. */
const char *pvm_wasm_valtype_name(unsigned type);
/* "func", "table", "memory", "global". */
const char *pvm_wasm_extern_kind_name(unsigned kind);

#endif
