/*
 * regvm_isa.h - the instruction set of regvm, a small register machine
 * written as an outside interpreter would be (tests/outside/regvm/): the
 * one table every other part of it is made from, and its encoding.
 *
 * An instruction is its opcode byte, then one byte per register operand
 * (r0 .. r255), then each immediate as a signed LEB128 number, so
 * instructions vary in length with their opcode and their values.  Branch offsets are relative to the
 * branching instruction's first byte and always written in 5 bytes, so
 * that code can be laid out before its offsets are known.
 */
#ifndef REGVM_ISA_H
#define REGVM_ISA_H

#include <pulley/profile.h>

#include <stddef.h>
#include <stdint.h>

/* OP(NAME, operands, roles, register operands, immediates, flags): the
 * operands are the words of pulleyprof_opcode.operands (register kind r,
 * then immediates), the roles its roles. */
#define REGVM_OPS(OP)                                                                              \
    OP(halt, "", "", 0, 0, PULLEYPROF_TERMINATOR)                                                  \
    OP(loadi, "r i64", "w", 1, 1, 0)                                                               \
    OP(mov, "r r", "w r", 2, 0, 0)                                                                 \
    OP(add, "r r r", "w r r", 3, 0, 0)                                                             \
    OP(sub, "r r r", "w r r", 3, 0, 0)                                                             \
    OP(mul, "r r r", "w r r", 3, 0, 0)                                                             \
    OP(addi, "r r i64", "w r", 2, 1, 0)                                                            \
    OP(lt, "r r r", "w r r", 3, 0, 0)                                                              \
    OP(load, "r r", "w r", 2, 0, PULLEYPROF_TRAPS)                                                 \
    OP(store, "r r", "r r", 2, 0, PULLEYPROF_TRAPS)                                                \
    OP(sum, "r r u32", "w r", 2, 1, 0)                                                             \
    OP(jmp, "rel32", "", 0, 1, PULLEYPROF_BRANCH | PULLEYPROF_TERMINATOR)                          \
    OP(jnz, "r rel32", "r", 1, 1, PULLEYPROF_BRANCH)                                               \
    OP(jz, "r rel32", "r", 1, 1, PULLEYPROF_BRANCH)                                                \
    OP(print, "r", "r", 1, 0, 0)                                                                   \
    OP(eval, "r r", "w r", 2, 0, PULLEYPROF_CALL)                                                  \
    OP(ret, "r", "r", 1, 0, PULLEYPROF_TERMINATOR | PULLEYPROF_RETURN)

enum {
#define REGVM_ENUM(name, operands, roles, nregs, nimms, flags) OP_##name,
    REGVM_OPS(REGVM_ENUM)
#undef REGVM_ENUM
    REGVM_NBASE, /* macro ops follow, in the order of the build's set */
#define MACRO_OP(NAME, INDEX, NPARTS, NREGS, NIMMS, KINDS) OP_##NAME = REGVM_NBASE + (INDEX),
#include "pulley_macro_list.def" /* by pulley-macrogen --outside, or empty */
};

#define REGVM_MAX_REGS 16
#define REGVM_MAX_IMMS 8
#define REGVM_MAX_OPS 256
#define REGVM_REL_BYTES 5 /* a branch offset's encoding */
#define REGVM_MAX_INSN (1 + REGVM_MAX_REGS + 10 * REGVM_MAX_IMMS) /* bytes of one */

/* What the interpreter knows of each opcode (base and macro). */
typedef struct regvm_op {
    const char *name;
    uint8_t nregs, nimms;
    unsigned flags;
    int8_t rel;   /* the immediate that is a branch offset, or -1 */
} regvm_op;

extern regvm_op regvm_ops[REGVM_MAX_OPS];
extern unsigned regvm_nops; /* base ops, then the build's macro ops */

/* One decoded instruction. */
typedef struct regvm_insn {
    unsigned op, len;
    uint8_t reg[REGVM_MAX_REGS];
    int64_t imm[REGVM_MAX_IMMS];
} regvm_insn;

/* Fill regvm_ops (base rows, then the build's macro ops); 0, or -1 when
 * the build's macro ops do not fit. */
int regvm_isa_init(void);

/* Decode the instruction at code[off] (off < size); 0, or -1 if the
 * bytes are not one. */
int regvm_decode(const uint8_t *code, size_t size, size_t off, regvm_insn *in);

/* Write the encoding of in to out (room for REGVM_MAX_INSN bytes); its
 * length. */
unsigned regvm_encode(const regvm_insn *in, uint8_t *out);

/* The table for libpulleyprof (built by regvm_isa_init): its rows, one
 * per opcode of regvm_ops. */
extern pulleyprof_isa regvm_isa;
extern pulleyprof_opcode regvm_rows[REGVM_MAX_OPS];

/* The words of base op `op`'s operands and roles ("r r i64", "w r"). */
const char *regvm_base_operands(unsigned op);
const char *regvm_base_roles(unsigned op);

#endif
