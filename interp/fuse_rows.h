/*
 * fuse_rows.h - what the fusion pass (fuse.c) reads of the build's
 * opcodes and macro ops, made once from the opcode table: a row of facts
 * per opcode, each macro op as a pattern for the cover (fusion/cover.h)
 * with the cover's index, and a recipe that encodes it from its parts'
 * bytes.
 */
#ifndef PULLEY_FUSE_ROWS_H
#define PULLEY_FUSE_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "cover.h"
#include "isa.h"

/* What the pass reads of an opcode, in one row. */
typedef struct op_facts {
    uint16_t wide;      /* the form a macro op's part names (pvm_op_wide) */
    uint16_t fregs;     /* bit r: register operand r is an f register */
    uint8_t length;     /* encoded bytes, a jump table's entries excluded; 0: no opcode */
    uint8_t hdr;        /* opcode bytes */
    uint8_t nregs;
    uint8_t offsets;    /* names code offsets (pvm_format_names_code_offsets) */
    uint8_t rel_at;     /* the byte of its branch offset when that is all it names, else 0 */
    uint8_t ends_block; /* a branch or a terminator: the next instruction leads a block */
    uint8_t ends_pattern; /* some macro op's last part is its wide form */
    uint32_t fadd;      /* added to its first four register bytes as little-endian
                           word: 32 in each byte of an f register (see read_slot) */
} op_facts;

_Static_assert(PVM_MAX_REGS <= 16, "op_facts.fregs has a bit per register operand");

/* How to encode a macro op from its parts' bytes: bytes[j] as it is where
 * part[j] is NO_PART (the opcode), else byte from[j] of part part[j]; a
 * branch offset (rel_at, as in op_facts) is then moved with its target.
 * Only for a macro op without a jump table whose parts' immediates have
 * the macro's sizes; used where each part is the opcode the macro op
 * names (a narrow form goes through pvm_encode). */
#define RECIPE_MAX 48
#define NO_PART 0xff
typedef struct recipe {
    uint8_t usable, length, rel_at;
    uint8_t bytes[RECIPE_MAX], part[RECIPE_MAX], from[RECIPE_MAX];
} recipe;

typedef struct fuse_rows {
    op_facts facts[PVM_OP_END];
    fu_pattern patterns[PVM_OP_END];
    uint16_t pattern_op[PVM_OP_END]; /* the macro opcode of patterns[i] */
    recipe *recipes;                 /* per pattern; NULL (out of memory): none */
    size_t npatterns;
    unsigned max_parts;              /* of any pattern */
    fu_index index;                  /* by last part; start NULL (out of memory): none */
} fuse_rows;

/* The rows of this build, made on first use (any thread). */
const fuse_rows *pvm_fuse_rows(void);

#endif
