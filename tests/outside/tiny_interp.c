/*
 * tiny_interp.c - a stack-machine interpreter written as an outside user
 * would write one, profiled with libpulleyprof through nothing but the
 * installed <pulley/profile.h> and library: README "Profile your own
 * interpreter" shows its loop, and tests/e2e/installed_library.sh builds
 * it with pkg-config and with find_package against an installed prefix.
 *
 *   tiny_interp PROFILE.db N [exact]
 *
 * runs a program that prints the sum of i*i for i = N .. 1 (mod 2^64),
 * sampling its instructions into PROFILE.db, or counting them all.
 */
#include <pulley/profile.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { HALT, PUSH, LOAD, STORE, ADD, MUL, SUB, JNZ, PRINT, NOPS };

/* The instruction set, described once for the library. */
static const pulleyprof_opcode ops[NOPS] = {
    {.id = HALT, .name = "halt", .length = 1, .flags = PULLEYPROF_TERMINATOR},
    {.id = PUSH, .name = "push", .operands = "s8", .length = 2, .semantics = "push imm"},
    {.id = LOAD, .name = "load", .operands = "local", .length = 2, .semantics = "push local[imm]"},
    {.id = STORE, .name = "store", .operands = "local", .length = 2, .semantics = "local[imm] = pop"},
    {.id = ADD, .name = "add", .length = 1, .semantics = "push pop + pop"},
    {.id = MUL, .name = "mul", .length = 1, .semantics = "push pop * pop"},
    {.id = SUB, .name = "sub", .length = 1, .semantics = "b = pop; push pop - b"},
    {.id = JNZ, .name = "jnz", .operands = "rel32", .length = 2, .flags = PULLEYPROF_BRANCH,
     .semantics = "if pop != 0: pc += imm"},
    {.id = PRINT, .name = "print", .length = 1, .semantics = "print pop"},
};

/* How the library reads an instruction: its opcode, length, immediate,
 * branch target and text. */
static int decode(const void *module, const uint8_t *code, size_t size, size_t off,
                  pulleyprof_insn *in)
{
    (void)module;
    if (code[off] >= NOPS || off + ops[code[off]].length > size)
        return -1;
    in->opcode = code[off];
    in->length = ops[in->opcode].length;
    if (in->length == 2) {
        in->nimms = 1;
        in->imms[0] = (int8_t)code[off + 1];
        if (in->opcode == JNZ && pulleyprof_insn_add_target(in, (uint32_t)(off + in->imms[0])))
            return -1;
        snprintf(in->text, in->text_cap, "%s %lld", ops[in->opcode].name, (long long)in->imms[0]);
    }
    return 0;
}

static const pulleyprof_isa tiny_isa = {.name = "tiny", .opcodes = ops, .nopcodes = NOPS,
                                        .decode = decode};

/* local[1] += local[0] * local[0]; local[0] -= 1; while local[0] != 0. */
static const uint8_t program[] = {
    LOAD, 1, LOAD, 0, LOAD, 0, MUL, ADD, STORE, 1,   /* 0 */
    LOAD, 0, PUSH, 1, SUB, STORE, 0, LOAD, 0, JNZ, (uint8_t)-19, /* 10 */
    LOAD, 1, PRINT, HALT,                            /* 21 */
};

/* The interpreter: before each instruction, its address goes into the
 * slot; a counting run also counts it. */
static void run(const uint8_t *code, uint64_t *local, _Atomic(uintptr_t) *slot, uint64_t *counts)
{
    uint64_t stack[16], a, b;
    int sp = 0;
    size_t pc = 0;
    for (;;) {
        pulleyprof_publish(slot, (uintptr_t)code + pc);
        if (counts)
            counts[pc]++;
        switch (code[pc]) {
        case HALT: pulleyprof_publish(slot, 0); return;
        case PUSH: stack[sp++] = (uint64_t)(int8_t)code[pc + 1]; pc += 2; break;
        case LOAD: stack[sp++] = local[code[pc + 1]]; pc += 2; break;
        case STORE: local[code[pc + 1]] = stack[--sp]; pc += 2; break;
        case ADD: b = stack[--sp], a = stack[--sp], stack[sp++] = a + b; pc++; break;
        case MUL: b = stack[--sp], a = stack[--sp], stack[sp++] = a * b; pc++; break;
        case SUB: b = stack[--sp], a = stack[--sp], stack[sp++] = a - b; pc++; break;
        case JNZ: pc = stack[--sp] ? pc + (size_t)(int8_t)code[pc + 1] : pc + 2; break;
        case PRINT:
            pulleyprof_publish(slot, 0); /* host code */
            printf("%llu\n", (unsigned long long)stack[--sp]);
            pc++;
            break;
        }
    }
}

int main(int argc, char **argv)
{
    if (argc < 3 || (argc == 4 && strcmp(argv[3], "exact") != 0) || argc > 4) {
        fprintf(stderr, "usage: tiny_interp PROFILE.db N [exact]\n");
        return 2;
    }
    int exact = argc == 4;
    char err[512];
    pulleyprof_config cfg = {.db_path = argv[1], .isa = &tiny_isa, .benchmark = "squares",
                             .command_line = argv[2], .exact = exact};
    pulleyprof_agent *agent = pulleyprof_open(&cfg, err, sizeof err);
    if (!agent) {
        fprintf(stderr, "tiny_interp: %s\n", err);
        return 1;
    }
    int module = pulleyprof_register_module(agent, "squares", NULL);
    int func = pulleyprof_register_function(agent, module, 0, "main", (uintptr_t)program, program,
                                            sizeof program);
    static _Atomic(uintptr_t) slot;
    static uint64_t counts[sizeof program];
    uint64_t local[2] = {strtoull(argv[2], NULL, 10), 0};
    pulleyprof_register_slot(agent, &slot);
    run(program, local, &slot, exact ? counts : NULL);
    pulleyprof_unregister_slot(agent, &slot);
    for (uint32_t off = 0; exact && off < sizeof program; off++)
        if (counts[off])
            pulleyprof_add_exec_count(agent, func, off, counts[off]);
    /* The loop's branch went back counts[19] - 1 times (taken but once). */
    if (exact && counts[19] > 1)
        pulleyprof_add_edge_count(agent, func, 19, 0, counts[19] - 1);
    pulleyprof_set_outcome(agent, "return", 0);
    pulleyprof_summary sum;
    if (pulleyprof_close(agent, &sum, err, sizeof err) != 0) {
        fprintf(stderr, "tiny_interp: %s\n", err);
        return 1;
    }
    fprintf(stderr, "tiny_interp: run %lld: %llu samples, %llu instructions counted\n",
            (long long)sum.run_id, (unsigned long long)sum.samples_written,
            (unsigned long long)sum.executed);
    return 0;
}
