/*
 * test_reg_isa.h - a small register machine described for libpulleyprof,
 * shared by the collector's tests: variable-length instructions (opcode
 * byte, register bytes, immediate bytes), roles, a branch, a Lua-like CALL
 * with implicit register windows, and a macro op.  Its decoder writes the
 * decode context (a string, when given) into each instruction's text, so
 * that a test sees which context decoded a function.
 */
#ifndef TEST_REG_ISA_H
#define TEST_REG_ISA_H

#include <pulley/profile.h>

#include <stdio.h>
#include <string.h>

enum { R_MOVI, R_ADD, R_CALL, R_JNZ, R_RET, R_ADD2, R_NOPS };

/* CALL A B C: reads R[A]..R[A+B-1] (B = 0: to the top), writes
 * R[A]..R[A+C-2]; as Lua's. */
static const pulleyprof_range reg_call_ranges[] = {
    {.access = PULLEYPROF_READS, .base = 0, .offset = 0, .count_imm = 0, .count_add = -1,
     .open_if_zero = 1},
    {.access = PULLEYPROF_WRITES, .base = 0, .offset = 0, .count_imm = 1, .count_add = -2,
     .open_if_zero = 1},
};

static const pulleyprof_part reg_add2_parts[] = {
    {.opcode = R_ADD, .regs = "0 1 2", .imms = ""},
    {.opcode = R_ADD, .regs = "0 0 3", .imms = ""},
};

/* Bytes: opcode, then one byte per register, then one per immediate. */
static const pulleyprof_opcode reg_ops[R_NOPS] = {
    {.id = R_MOVI, .name = "movi", .operands = "x s8", .roles = "w", .length = 3,
     .semantics = "x[a] = imm"},
    {.id = R_ADD, .name = "add", .operands = "x x x", .roles = "w r r", .length = 4,
     .semantics = "x[a] = x[b] + x[c]"},
    {.id = R_CALL, .name = "call", .operands = "x u8 u8", .roles = "rw", .length = 4,
     .flags = PULLEYPROF_CALL, .semantics = "x[a..a+c-2] = x[a](x[a+1..a+b-1])",
     .implicit = reg_call_ranges, .nimplicit = 2},
    {.id = R_JNZ, .name = "jnz", .operands = "x rel32", .roles = "r", .length = 3,
     .flags = PULLEYPROF_BRANCH, .semantics = "if x[a] != 0: pc += imm"},
    {.id = R_RET, .name = "ret", .length = 1,
     .flags = PULLEYPROF_TERMINATOR | PULLEYPROF_RETURN, .semantics = "return"},
    {.id = R_ADD2, .name = "add2", .operands = "x x x x", .roles = "w r r r", .length = 5,
     .flags = PULLEYPROF_MACRO, .semantics = "x[a] = x[b] + x[c] + x[d]",
     .parts = reg_add2_parts, .nparts = 2},
};

static int reg_decode(const void *ctx, const uint8_t *code, size_t size, size_t off,
                      pulleyprof_insn *in)
{
    if (code[off] >= R_NOPS || reg_ops[code[off]].length > size - off)
        return -1;
    const pulleyprof_opcode *o = &reg_ops[code[off]];
    unsigned nwords = 0, nregs = 0;
    for (const char *p = o->operands; p && *p; p++)
        nwords += (p == o->operands || p[-1] == ' ') && *p != ' ';
    for (const char *p = o->roles; p && *p; p++)
        nregs += (p == o->roles || p[-1] == ' ') && *p != ' ';
    in->opcode = o->id;
    in->length = o->length;
    in->nregs = nregs;
    for (unsigned i = 0; i < nregs; i++)
        in->regs[i] = code[off + 1 + i];
    in->nimms = nwords - nregs;
    for (unsigned i = 0; i < in->nimms; i++)
        in->imms[i] = (int8_t)code[off + 1 + nregs + i];
    if (o->id == R_JNZ) {
        int64_t to = (int64_t)off + in->imms[0];
        if (to < 0 || (size_t)to >= size || pulleyprof_insn_add_target(in, (uint32_t)to) != 0)
            return -1;
    }
    snprintf(in->text, in->text_cap, "%s%s%s", o->name, ctx ? " ; " : "",
             ctx ? (const char *)ctx : "");
    return 0;
}

static const pulleyprof_isa reg_isa = {
    .name = "regtest", .opcodes = reg_ops, .nopcodes = R_NOPS, .decode = reg_decode};

/* A function of 16 bytes: movi x1, 5; add x2, x1, x1; call x0 2 1;
 * jnz x2, -11; ret; ret (instructions at 0, 3, 7, 11, 14, 15). */
static const uint8_t reg_code[16] = {R_MOVI, 1, 5,    R_ADD, 2, 1,   1,    R_CALL,
                                     0,      2, 1,    R_JNZ, 2, 0xf5, R_RET, R_RET};

#endif
