/*
 * toy_harness.c - the toy register machine of toy_ops.h, with the macro
 * ops pulley-macrogen --outside made of its bodies (tests/e2e/
 * macrogen_outside.sh compiles it with the generated files on the
 * include path).  Every macro op of the generated list runs, on random
 * registers and immediates, against its parts run in sequence, and must
 * leave the same registers and take the same jump.  Prints how many it
 * checked; exit status 1 at the first difference.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OPERANDS 16
#define NREGS 32

typedef struct insn {
    int op;
    unsigned reg[MAX_OPERANDS]; /* decoded operands: the machine's own encoding */
    int64_t imm[MAX_OPERANDS];
} insn;

enum {
    OP_LOADK, OP_ADD, OP_MUL, OP_ABS, OP_SELECT, OP_JNZ, OP_HALT,
#define MACRO_OP(name, index, nparts, nregs, nimms, kinds) OP_##name,
#include "pulley_macro_list.def"
};

/* Run code from its start: 0 when it halts, 1 when it jumps (*jump: the offset). */
static int run(const insn *code, uint64_t *r, int64_t *jump)
{
    size_t pc = 0;
    const insn *in;
dispatch:
    in = &code[pc];
#define R(n) r[n]
#define A (in->reg[0])
#define B (in->reg[1])
#define C (in->reg[2])
#define D (in->reg[3])
#define IMM0 (in->imm[0])
#define OPCODE(name) case OP_##name: {
#define END_OPCODE }
#define NEXT() do { pc++; goto dispatch; } while (0)
#define JUMP(off) do { *jump = (off); return 1; } while (0)
#define MACRO_REG_TYPE(kind) unsigned
#define MACRO_REG(kind, i) (in->reg[i])
#define MACRO_IMM_TYPE(op, j) int64_t
#define MACRO_IMM(i) (in->imm[i])
    switch (in->op) {
#include "toy_ops.h"
#include "pulley_macro_handlers.h"
    }
    return -1;
}

/* The generated list as tables. */
static const struct {
    const char *name;
    int op;
    unsigned nparts, nregs, nimms;
} macros[] = {
#define MACRO_OP(name, index, nparts, nregs, nimms, kinds) {#name, OP_##name, nparts, nregs, nimms},
#include "pulley_macro_list.def"
};
static const struct {
    int macro, op;
    unsigned k;
    const char *regs, *imms;
} parts[] = {
#define MACRO_OP_PART(name, k, mnemonic, nregs, nimms, regs, imms) \
    {OP_##name, OP_##mnemonic, k, regs, imms},
#include "pulley_macro_list.def"
};

static uint64_t rng = 88172645463325252u;

static uint64_t next(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

/* Macro op m on random operands, against its parts.  0, or -1 if they differ. */
static int check(size_t m)
{
    unsigned reg[MAX_OPERANDS], used = 0;
    int64_t imm[MAX_OPERANDS];
    for (unsigned i = 0; i < macros[m].nregs; i++) { /* distinct registers */
        do
            reg[i] = (unsigned)(next() % NREGS);
        while (used >> reg[i] & 1);
        used |= 1u << reg[i];
    }
    for (unsigned i = 0; i < macros[m].nimms; i++)
        imm[i] = (int64_t)(next() % 7) - 3;
    insn seq[9] = {{0}}, fused[2] = {{.op = macros[m].op}, {.op = OP_HALT}};
    unsigned n = 0;
    for (size_t p = 0; p < sizeof parts / sizeof *parts; p++) {
        if (parts[p].macro != macros[m].op)
            continue;
        seq[n].op = parts[p].op;
        char *end;
        unsigned j = 0;
        for (const char *s = parts[p].regs; *s; s = end)
            seq[n].reg[j++] = reg[strtoul(s, &end, 10)];
        j = 0;
        for (const char *s = parts[p].imms; *s; s = end)
            seq[n].imm[j++] = imm[strtoul(s, &end, 10)];
        n++;
    }
    seq[n].op = OP_HALT;
    for (unsigned i = 0; i < macros[m].nregs; i++)
        fused[0].reg[i] = reg[i];
    for (unsigned i = 0; i < macros[m].nimms; i++)
        fused[0].imm[i] = imm[i];
    uint64_t r1[NREGS], r2[NREGS];
    for (unsigned i = 0; i < NREGS; i++)
        r1[i] = r2[i] = next() % 4 ? next() : 0;
    int64_t j1 = 0, j2 = 0;
    int e1 = run(seq, r1, &j1), e2 = run(fused, r2, &j2);
    if (n != macros[m].nparts || e1 != e2 || j1 != j2 || memcmp(r1, r2, sizeof r1) != 0) {
        fprintf(stderr, "%s differs from its %u parts\n", macros[m].name, n);
        return -1;
    }
    return 0;
}

int main(void)
{
    size_t n = sizeof macros / sizeof *macros;
    for (int trial = 0; trial < 1000; trial++)
        for (size_t m = 0; m < n; m++)
            if (check(m) != 0)
                return 1;
    printf("%zu macro ops checked\n", n);
    return 0;
}
