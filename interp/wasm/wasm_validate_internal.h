/*
 * wasm_validate_internal.h - the validator's state, shared by its general
 * path (wasm_validate.c: every instruction, every error worded) and its
 * fast path (wasm_validate_fast.c: runs of the common instructions that
 * are valid, checked without decoding them into a pvm_wasm_insn).
 */
#ifndef PULLEY_WASM_VALIDATE_INTERNAL_H
#define PULLEY_WASM_VALIDATE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "wasm_insn.h"
#include "wasm_internal.h"

#define UNKNOWN 0 /* a value of any type, popped from a polymorphic stack */

typedef struct types {
    const uint8_t *t;
    uint32_t n;
} types;

typedef struct frame {
    uint16_t op;      /* BLOCK, LOOP, IF, ELSE, or END for the body */
    bool unreachable;
    uint32_t height;  /* operand stack height at entry, params excluded */
    types params, results;
    uint32_t block;   /* index into blocks, or PVM_WASM_NONE for the body */
    uint32_t checked; /* offset of the last br_table that checked this label */
} frame;

/* How the fast path checks an instruction of one opcode byte (see
 * check_common). */
typedef enum fast_kind {
    FAST_NONE,       /* not on the fast path */
    FAST_TYPED,      /* typed from the table, no immediate */
    FAST_CONST,      /* typed from the table, a constant */
    FAST_MEMORY,     /* a load or store typed from the table */
    FAST_LOCAL_GET,
    FAST_LOCAL_SET,
    FAST_LOCAL_TEE,
    FAST_GLOBAL_GET,
    FAST_CALL,
    FAST_DROP,
    FAST_BR,
    FAST_BR_IF,
    FAST_BLOCK,      /* block or loop of no type or one numeric result */
    FAST_END,        /* the end of a block or loop */
} fast_kind;

typedef struct fast_op {
    uint8_t kind;    /* fast_kind */
    uint8_t npop;    /* FAST_TYPED, CONST, MEMORY: operands */
    uint8_t pop[3];  /* their types, first operand first */
    uint8_t push;    /* result type, or PVM_WASM_T_NONE */
    uint8_t natural; /* a load or store: log2 of the bytes it accesses */
} fast_op;

typedef struct validator {
    pvm_wasm_module *m;
    fast_op fast[256]; /* by first opcode byte */
    pvm_wasm_reader r;
    size_t at;          /* offset of the instruction being checked */
    const char *opname;
    uint8_t *locals;    /* types of params and locals */
    uint32_t nlocals, cap_locals;
    uint8_t *stack;
    uint32_t height, cap_stack, max_height;
    frame *frames;
    uint32_t depth, cap_frames, max_depth;
    pvm_wasm_block *blocks;
    uint32_t nblocks, cap_blocks;
} validator;

/* The types a branch to frame fr's label passes. */
static inline types label_types(const frame *fr)
{
    return fr->op == PVM_WASM_OP_LOOP ? fr->params : fr->results;
}

/* The fast path's row of each opcode byte. */
void pvm_wasm_fast_ops(fast_op fast[256]);

/* Check the instructions from v->r.pos on while the fast path knows them
 * and they are valid as the general path would find them, and advance
 * past them.  It stops, with nothing of the instruction changed, at
 * another instruction, a long immediate, unreachable code, a label with
 * values, a type that does not match or a stack that must grow: the
 * general path checks that one and words any error. */
void pvm_wasm_check_common(validator *v);

#endif
