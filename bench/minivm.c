/* minivm.c - a small bytecode interpreter of its own: a stack machine with
 * locals, a global memory, calls and jumps, dispatched with a switch (clang
 * makes that a Wasm br_table).  A tiny assembler with labels builds four
 * guest programs at start-up: an arithmetic loop, a prime sieve in global
 * memory, recursive Fibonacci, and the longest Collatz chain.
 *
 *   minivm [ROUNDS]   (default 5: each round runs all four guest programs) */
#include "bench_util.h"

enum op {
    OP_HALT, OP_PUSH, OP_DUP, OP_SWAP, OP_LOAD, OP_STORE, OP_INC,
    OP_GLOAD, OP_GSTORE, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_AND,
    OP_SHR, OP_LT, OP_EQ, OP_JMP, OP_JZ, OP_JNZ, OP_CALL, OP_RET,
};

#define CODE_MAX 1024
#define LABELS 32
#define STACK_MAX 1024
#define FRAMES_MAX 256
#define LOCALS 8
#define MEM_WORDS (1 << 18)

/* ---- assembler -------------------------------------------------------- */

struct assembler {
    uint8_t code[CODE_MAX];
    int len;
    int label_at[LABELS];
    int fixup_at[64], fixup_label[64], fixups;
};

static void emit(struct assembler *a, int byte)
{
    if (a->len >= CODE_MAX) {
        fprintf(stderr, "minivm: program too long\n");
        exit(1);
    }
    a->code[a->len++] = (uint8_t)byte;
}

static void emit_op(struct assembler *a, enum op op) { emit(a, op); }

static void emit_push(struct assembler *a, int32_t v)
{
    emit(a, OP_PUSH);
    for (int i = 0; i < 4; i++)
        emit(a, (int)(((uint32_t)v >> (8 * i)) & 0xff));
}

static void emit_local(struct assembler *a, enum op op, int local)
{
    emit(a, op);
    emit(a, local);
}

/* A jump or call to a label: a 16-bit absolute target, patched later. */
static void emit_jump(struct assembler *a, enum op op, int label)
{
    emit(a, op);
    a->fixup_at[a->fixups] = a->len;
    a->fixup_label[a->fixups++] = label;
    emit(a, 0);
    emit(a, 0);
}

static void emit_call(struct assembler *a, int label, int nargs)
{
    emit_jump(a, OP_CALL, label);
    emit(a, nargs);
}

static void bind(struct assembler *a, int label) { a->label_at[label] = a->len; }

static void link(struct assembler *a)
{
    for (int i = 0; i < a->fixups; i++) {
        int t = a->label_at[a->fixup_label[i]];
        a->code[a->fixup_at[i]] = (uint8_t)(t & 0xff);
        a->code[a->fixup_at[i] + 1] = (uint8_t)(t >> 8);
    }
}

/* ---- interpreter ---------------------------------------------------------- */

struct frame {
    int ret;
    int32_t locals[LOCALS];
};

static void vm_fail(const char *what, int pc)
{
    fprintf(stderr, "minivm: %s at pc %d\n", what, pc);
    exit(1);
}

/* Run from pc 0 until HALT; returns the top of the stack. */
static int32_t run(const uint8_t *code, int32_t *mem, uint64_t *steps)
{
    int32_t stack[STACK_MAX];
    static struct frame frames[FRAMES_MAX];
    int sp = 0, fp = 0, pc = 0;
    uint64_t n = 0;
    memset(&frames[0], 0, sizeof frames[0]);
    for (;;) {
        int at = pc;
        n++;
        switch ((enum op)code[pc++]) {
        case OP_HALT:
            *steps += n;
            return sp > 0 ? stack[sp - 1] : 0;
        case OP_PUSH: {
            uint32_t v = code[pc] | (uint32_t)code[pc + 1] << 8 |
                         (uint32_t)code[pc + 2] << 16 | (uint32_t)code[pc + 3] << 24;
            pc += 4;
            if (sp >= STACK_MAX)
                vm_fail("stack overflow", at);
            stack[sp++] = (int32_t)v;
            break;
        }
        case OP_DUP:
            if (sp >= STACK_MAX)
                vm_fail("stack overflow", at);
            stack[sp] = stack[sp - 1];
            sp++;
            break;
        case OP_SWAP: {
            int32_t t = stack[sp - 1];
            stack[sp - 1] = stack[sp - 2];
            stack[sp - 2] = t;
            break;
        }
        case OP_LOAD:
            if (sp >= STACK_MAX)
                vm_fail("stack overflow", at);
            stack[sp++] = frames[fp].locals[code[pc++]];
            break;
        case OP_STORE: frames[fp].locals[code[pc++]] = stack[--sp]; break;
        case OP_INC: frames[fp].locals[code[pc]] = (int32_t)((uint32_t)frames[fp].locals[code[pc]] + 1); pc++; break;
        case OP_GLOAD: {
            uint32_t addr = (uint32_t)stack[sp - 1];
            if (addr >= MEM_WORDS)
                vm_fail("memory access out of range", at);
            stack[sp - 1] = mem[addr];
            break;
        }
        case OP_GSTORE: { /* ... addr value */
            uint32_t addr = (uint32_t)stack[sp - 2];
            if (addr >= MEM_WORDS)
                vm_fail("memory access out of range", at);
            mem[addr] = stack[sp - 1];
            sp -= 2;
            break;
        }
#define BINARY(expr) { int32_t b = stack[--sp], a = stack[sp - 1]; (void)a; (void)b; stack[sp - 1] = (expr); break; }
        case OP_ADD: BINARY((int32_t)((uint32_t)a + (uint32_t)b))
        case OP_SUB: BINARY((int32_t)((uint32_t)a - (uint32_t)b))
        case OP_MUL: BINARY((int32_t)((uint32_t)a * (uint32_t)b))
        case OP_DIV:
            if (stack[sp - 1] == 0 || (stack[sp - 1] == -1 && stack[sp - 2] == INT32_MIN))
                vm_fail("bad division", at);
            BINARY(a / b)
        case OP_MOD:
            if (stack[sp - 1] == 0 || (stack[sp - 1] == -1 && stack[sp - 2] == INT32_MIN))
                vm_fail("bad division", at);
            BINARY(a % b)
        case OP_AND: BINARY(a & b)
        case OP_SHR: BINARY((int32_t)((uint32_t)a >> (b & 31)))
        case OP_LT: BINARY(a < b)
        case OP_EQ: BINARY(a == b)
#undef BINARY
        case OP_JMP: pc = code[pc] | code[pc + 1] << 8; break;
        case OP_JZ:
            pc = stack[--sp] == 0 ? (code[pc] | code[pc + 1] << 8) : pc + 2;
            break;
        case OP_JNZ:
            pc = stack[--sp] != 0 ? (code[pc] | code[pc + 1] << 8) : pc + 2;
            break;
        case OP_CALL: {
            int target = code[pc] | code[pc + 1] << 8, nargs = code[pc + 2];
            if (fp + 1 >= FRAMES_MAX)
                vm_fail("call stack overflow", at);
            struct frame *f = &frames[++fp];
            f->ret = pc + 3;
            for (int i = nargs - 1; i >= 0; i--)
                f->locals[i] = stack[--sp];
            pc = target;
            break;
        }
        case OP_RET:
            pc = frames[fp--].ret; /* the result stays on the stack */
            break;
        default:
            vm_fail("bad opcode", at);
        }
        if (sp < 0)
            vm_fail("stack underflow", at);
    }
}

/* ---- guest programs ---------------------------------------------------------- */

/* acc = (acc + i*i + i/3) mod 1000003 for i < n, in wrapping 32-bit arithmetic */
static void prog_loop(struct assembler *a, int32_t n)
{
    enum { I, ACC, TOP = 0, END };
    emit_push(a, 0); emit_local(a, OP_STORE, I);
    emit_push(a, 0); emit_local(a, OP_STORE, ACC);
    bind(a, TOP);
    emit_local(a, OP_LOAD, I); emit_push(a, n); emit_op(a, OP_LT); emit_jump(a, OP_JZ, END);
    emit_local(a, OP_LOAD, ACC);
    emit_local(a, OP_LOAD, I); emit_op(a, OP_DUP); emit_op(a, OP_MUL);
    emit_local(a, OP_LOAD, I); emit_push(a, 3); emit_op(a, OP_DIV); emit_op(a, OP_ADD);
    emit_op(a, OP_ADD); emit_push(a, 1000003); emit_op(a, OP_MOD);
    emit_local(a, OP_STORE, ACC);
    emit_local(a, OP_INC, I);
    emit_jump(a, OP_JMP, TOP);
    bind(a, END);
    emit_local(a, OP_LOAD, ACC);
    emit_op(a, OP_HALT);
}

/* Count primes below n with a sieve in global memory (mem[i] = 1: composite). */
static void prog_sieve(struct assembler *a, int32_t n)
{
    enum { I, J, COUNT, OUTER = 0, INNER, NEXT, DONE, CLEAR };
    /* clear mem[0..n) */
    emit_push(a, 0); emit_local(a, OP_STORE, I);
    bind(a, CLEAR);
    emit_local(a, OP_LOAD, I); emit_push(a, 0); emit_op(a, OP_GSTORE);
    emit_local(a, OP_INC, I);
    emit_local(a, OP_LOAD, I); emit_push(a, n); emit_op(a, OP_LT); emit_jump(a, OP_JNZ, CLEAR);
    emit_push(a, 2); emit_local(a, OP_STORE, I);
    emit_push(a, 0); emit_local(a, OP_STORE, COUNT);
    bind(a, OUTER);
    emit_local(a, OP_LOAD, I); emit_push(a, n); emit_op(a, OP_LT); emit_jump(a, OP_JZ, DONE);
    emit_local(a, OP_LOAD, I); emit_op(a, OP_GLOAD); emit_jump(a, OP_JNZ, NEXT);
    emit_local(a, OP_LOAD, COUNT); emit_push(a, 1); emit_op(a, OP_ADD); emit_local(a, OP_STORE, COUNT);
    emit_local(a, OP_LOAD, I); emit_op(a, OP_DUP); emit_op(a, OP_ADD); emit_local(a, OP_STORE, J);
    bind(a, INNER);
    emit_local(a, OP_LOAD, J); emit_push(a, n); emit_op(a, OP_LT); emit_jump(a, OP_JZ, NEXT);
    emit_local(a, OP_LOAD, J); emit_push(a, 1); emit_op(a, OP_GSTORE);
    emit_local(a, OP_LOAD, J); emit_local(a, OP_LOAD, I); emit_op(a, OP_ADD); emit_local(a, OP_STORE, J);
    emit_jump(a, OP_JMP, INNER);
    bind(a, NEXT);
    emit_local(a, OP_INC, I);
    emit_jump(a, OP_JMP, OUTER);
    bind(a, DONE);
    emit_local(a, OP_LOAD, COUNT);
    emit_op(a, OP_HALT);
}

/* fib(n) by naive recursion through CALL/RET. */
static void prog_fib(struct assembler *a, int32_t n)
{
    enum { N, FIB = 0, SMALL };
    emit_push(a, n); emit_call(a, FIB, 1); emit_op(a, OP_HALT);
    bind(a, FIB);
    emit_local(a, OP_LOAD, N); emit_push(a, 2); emit_op(a, OP_LT); emit_jump(a, OP_JNZ, SMALL);
    emit_local(a, OP_LOAD, N); emit_push(a, 1); emit_op(a, OP_SUB); emit_call(a, FIB, 1);
    emit_push(a, 2); emit_local(a, OP_LOAD, N); emit_op(a, OP_SWAP); emit_op(a, OP_SUB); emit_call(a, FIB, 1);
    emit_op(a, OP_ADD); emit_op(a, OP_RET);
    bind(a, SMALL);
    emit_local(a, OP_LOAD, N); emit_op(a, OP_RET);
}

/* The start below n with the longest Collatz chain (returns start*1000+steps).
 * Chains stay below 2^31 for every start below 113383. */
static void prog_collatz(struct assembler *a, int32_t n)
{
    enum { S, X, STEPS, BEST, BESTS, OUTER = 0, CHAIN, EVEN, STEP, CHAIN_DONE, NEXT, DONE };
    emit_push(a, 1); emit_local(a, OP_STORE, S);
    emit_push(a, 0); emit_local(a, OP_STORE, BEST);
    emit_push(a, 0); emit_local(a, OP_STORE, BESTS);
    bind(a, OUTER);
    emit_local(a, OP_LOAD, S); emit_push(a, n); emit_op(a, OP_LT); emit_jump(a, OP_JZ, DONE);
    emit_local(a, OP_LOAD, S); emit_local(a, OP_STORE, X);
    emit_push(a, 0); emit_local(a, OP_STORE, STEPS);
    bind(a, CHAIN);
    emit_local(a, OP_LOAD, X); emit_push(a, 1); emit_op(a, OP_EQ); emit_jump(a, OP_JNZ, CHAIN_DONE);
    emit_local(a, OP_LOAD, X); emit_push(a, 1); emit_op(a, OP_AND); emit_jump(a, OP_JZ, EVEN);
    emit_local(a, OP_LOAD, X); emit_op(a, OP_DUP); emit_op(a, OP_DUP); emit_op(a, OP_ADD);
    emit_op(a, OP_ADD); emit_push(a, 1); emit_op(a, OP_ADD); emit_local(a, OP_STORE, X);
    emit_jump(a, OP_JMP, STEP);
    bind(a, EVEN);
    emit_local(a, OP_LOAD, X); emit_push(a, 1); emit_op(a, OP_SHR); emit_local(a, OP_STORE, X);
    bind(a, STEP);
    emit_local(a, OP_INC, STEPS);
    emit_jump(a, OP_JMP, CHAIN);
    bind(a, CHAIN_DONE); /* keep the chain if it is the longest so far */
    emit_local(a, OP_LOAD, BEST); emit_local(a, OP_LOAD, STEPS); emit_op(a, OP_LT);
    emit_jump(a, OP_JZ, NEXT);
    emit_local(a, OP_LOAD, STEPS); emit_local(a, OP_STORE, BEST);
    emit_local(a, OP_LOAD, S); emit_local(a, OP_STORE, BESTS);
    bind(a, NEXT);
    emit_local(a, OP_INC, S);
    emit_jump(a, OP_JMP, OUTER);
    bind(a, DONE);
    emit_local(a, OP_LOAD, BESTS); emit_push(a, 1000); emit_op(a, OP_MUL);
    emit_local(a, OP_LOAD, BEST); emit_op(a, OP_ADD);
    emit_op(a, OP_HALT);
}

int main(int argc, char **argv)
{
    int rounds = bench_scale(argc, argv, 5);
    int32_t *mem = bench_alloc(MEM_WORDS * sizeof *mem);
    void (*const programs[])(struct assembler *, int32_t) = { prog_loop, prog_sieve, prog_fib, prog_collatz };
    static const char *const names[] = { "loop", "sieve", "fib", "collatz" };
    uint64_t sum = BENCH_CHECKSUM_INIT, steps = 0;
    for (int r = 0; r < rounds; r++) {
        /* sizes vary a little per round, so no two rounds are the same */
        const int32_t size[] = { 100000 + r, 30000 + r, 20 + r % 3, 2000 + r };
        for (int p = 0; p < 4; p++) {
            struct assembler a;
            memset(&a, 0, sizeof a);
            programs[p](&a, size[p]);
            link(&a);
            uint64_t before = steps;
            int32_t result = run(a.code, mem, &steps);
            if (r == rounds - 1)
                printf("%s(%d) = %d in %" PRIu64 " steps (%d bytes of code)\n",
                       names[p], (int)size[p], (int)result, steps - before, a.len);
            sum = bench_mix(sum, (uint32_t)result);
            sum = bench_mix(sum, steps);
        }
    }
    printf("minivm: %d rounds, %" PRIu64 " guest instructions\n", rounds, steps);
    free(mem);
    bench_print_checksum(sum);
    return 0;
}
