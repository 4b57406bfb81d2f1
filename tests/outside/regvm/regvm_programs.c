/*
 * regvm_programs.c - the programs regvm runs, written with its emitter:
 *   sum N     the sum of i*i for i = N .. 1
 *   sieve N   the primes below N, counted with a sieve in memory
 *   chunks N  for i = N .. 1, code made for i at run time (EVAL: loaded,
 *             run, unloaded, as an interpreter's collected code is), and
 *             a window of registers summed (SUM)
 */
#include <stdlib.h>
#include <string.h>

#include "regvm.h"

const char *const regvm_program_names = "sum, sieve, chunks";

size_t regvm_emit(regvm_code *c, unsigned op, const int64_t *operands)
{
    regvm_insn in = {.op = op};
    const regvm_op *o = &regvm_ops[op];
    for (unsigned i = 0; i < o->nregs; i++)
        in.reg[i] = (uint8_t)operands[i];
    for (unsigned i = 0; i < o->nimms; i++)
        in.imm[i] = operands[o->nregs + i];
    size_t at = c->len;
    if (c->cap - c->len < REGVM_MAX_INSN) {
        uint8_t *grown = realloc(c->b, c->cap * 2 + 2 * REGVM_MAX_INSN);
        if (!grown) {
            c->failed = 1;
            return at;
        }
        c->b = grown;
        c->cap = c->cap * 2 + 2 * REGVM_MAX_INSN;
    }
    c->len += regvm_encode(&in, c->b + c->len);
    return at;
}

void regvm_patch(regvm_code *c, size_t at, size_t to)
{
    regvm_insn in;
    if (c->failed || regvm_decode(c->b, c->len, at, &in) != 0)
        return;
    in.imm[regvm_ops[in.op].rel] = (int64_t)to - (int64_t)at;
    regvm_encode(&in, c->b + at); /* the same length: offsets take 5 bytes */
}

static void sum(int64_t n, regvm_code *c)
{
    REGVM_EMIT(c, OP_loadi, 0, 0);
    REGVM_EMIT(c, OP_loadi, 1, n);
    size_t skip = REGVM_EMIT(c, OP_jz, 1, 0);
    size_t loop = REGVM_EMIT(c, OP_mul, 2, 1, 1);
    REGVM_EMIT(c, OP_add, 0, 0, 2);
    REGVM_EMIT(c, OP_addi, 1, 1, -1);
    size_t back = REGVM_EMIT(c, OP_jnz, 1, 0);
    regvm_patch(c, back, loop);
    regvm_patch(c, skip, REGVM_EMIT(c, OP_print, 0));
    REGVM_EMIT0(c, OP_halt);
}

/* r1 = n, r2 = i, r3 = j, r4 = primes, r5 = flag or i*i, r6 = 1. */
static void sieve(int64_t n, regvm_code *c)
{
    REGVM_EMIT(c, OP_loadi, 1, n);
    REGVM_EMIT(c, OP_loadi, 2, 2);
    REGVM_EMIT(c, OP_loadi, 4, 0);
    REGVM_EMIT(c, OP_loadi, 6, 1);
    size_t outer = REGVM_EMIT(c, OP_lt, 5, 2, 1);
    size_t done = REGVM_EMIT(c, OP_jz, 5, 0);
    REGVM_EMIT(c, OP_load, 5, 2);
    size_t next = REGVM_EMIT(c, OP_jnz, 5, 0);
    REGVM_EMIT(c, OP_addi, 4, 4, 1);
    REGVM_EMIT(c, OP_mul, 3, 2, 2);
    size_t inner = REGVM_EMIT(c, OP_lt, 5, 3, 1);
    size_t inner_done = REGVM_EMIT(c, OP_jz, 5, 0);
    REGVM_EMIT(c, OP_store, 3, 6);
    REGVM_EMIT(c, OP_add, 3, 3, 2);
    regvm_patch(c, REGVM_EMIT(c, OP_jmp, 0), inner);
    size_t step = REGVM_EMIT(c, OP_addi, 2, 2, 1);
    regvm_patch(c, inner_done, step);
    regvm_patch(c, next, step);
    regvm_patch(c, REGVM_EMIT(c, OP_jmp, 0), outer);
    regvm_patch(c, done, REGVM_EMIT(c, OP_print, 4));
    REGVM_EMIT0(c, OP_halt);
}

void regvm_chunk(int64_t arg, regvm_code *c)
{
    REGVM_EMIT(c, OP_loadi, 1, 3 + arg % 5);
    REGVM_EMIT(c, OP_mul, 1, 0, 1);
    REGVM_EMIT(c, OP_addi, 1, 1, arg % 7);
    REGVM_EMIT(c, OP_add, 0, 0, 1);
    REGVM_EMIT(c, OP_ret, 0);
}

/* r0 = total, r2 = i; r4 .. r7 summed into r1 (r4 = i, r5 = the chunk's
 * result, r6 = 1, r7 = 2). */
static void chunks(int64_t n, regvm_code *c)
{
    REGVM_EMIT(c, OP_loadi, 0, 0);
    REGVM_EMIT(c, OP_loadi, 2, n);
    REGVM_EMIT(c, OP_loadi, 6, 1);
    REGVM_EMIT(c, OP_loadi, 7, 2);
    size_t skip = REGVM_EMIT(c, OP_jz, 2, 0);
    size_t loop = REGVM_EMIT(c, OP_eval, 5, 2);
    REGVM_EMIT(c, OP_mov, 4, 2);
    REGVM_EMIT(c, OP_sum, 1, 4, 4);
    REGVM_EMIT(c, OP_add, 0, 0, 1);
    REGVM_EMIT(c, OP_addi, 2, 2, -1);
    regvm_patch(c, REGVM_EMIT(c, OP_jnz, 2, 0), loop);
    regvm_patch(c, skip, REGVM_EMIT(c, OP_print, 0));
    REGVM_EMIT0(c, OP_halt);
}

int regvm_program(const char *name, int64_t n, regvm_code *c)
{
    static const struct {
        const char *name;
        void (*write)(int64_t, regvm_code *);
    } programs[] = {{"sum", sum}, {"sieve", sieve}, {"chunks", chunks}};
    for (size_t i = 0; i < sizeof programs / sizeof programs[0]; i++)
        if (strcmp(programs[i].name, name) == 0) {
            programs[i].write(n, c);
            return 0;
        }
    return -1;
}
