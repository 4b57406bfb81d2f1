/*
 * regvm.c - regvm, a register machine written as an outside interpreter
 * would be, taken round the toolkit's whole loop with nothing but the
 * installed library and tools (README, "Profile your own interpreter"):
 *
 *   regvm PROGRAM N [--profile DB [--exact]] [--no-fuse] [--dispatches]
 *
 * runs PROGRAM (sum, sieve, chunks) with size N.  --profile samples its
 * instructions into DB (--exact: counts every one); --dispatches prints
 * how many instructions it dispatched.  A build with macro ops (made by
 * pulley-macrogen --outside from a .macros file) fuses every function's
 * code with the library's cover when it is loaded, unless --no-fuse.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regvm.h"
#include "regvm_fuse.h"

enum { MEM_WORDS = 1 << 20 };

struct regvm {
    pulleyprof_agent *prof; /* NULL: not profiled */
    int module;
    int exact, fuse;
    _Atomic(uintptr_t) slot;
    uint64_t dispatches;
    int64_t *mem;
    int trapped;
};

static void trap(regvm *vm, const char *why)
{
    fprintf(stderr, "regvm: trap: %s\n", why);
    vm->trapped = 1;
}

regvm_func *regvm_load(regvm *vm, const char *name, const uint8_t *code, size_t size)
{
    regvm_func *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    snprintf(f->name, sizeof f->name, "%s", name);
    f->handle = -1;
    if (regvm_fuse(code, size, vm->fuse, &f->code, &f->size) != 0 ||
        (vm->exact && !(f->counts = calloc(f->size ? f->size : 1, sizeof *f->counts)))) {
        free(f->code);
        free(f);
        return NULL;
    }
    if (vm->prof) {
        pulleyprof_function pf = {.module = vm->module, .name = f->name,
                                  .address = (uintptr_t)f->code, .code = f->code, .size = f->size};
        f->handle = pulleyprof_add_function(vm->prof, &pf);
        if (f->handle < 0)
            fprintf(stderr, "regvm: %s: not registered: %s\n", name, pulleyprof_last_error());
    }
    return f;
}

void regvm_unload(regvm *vm, regvm_func *f)
{
    if (vm->prof && f->handle >= 0) {
        for (size_t off = 0; f->counts && off < f->size; off++)
            if (f->counts[off])
                pulleyprof_add_exec_count(vm->prof, f->handle, (uint32_t)off, f->counts[off]);
        pulleyprof_unregister_function(vm->prof, f->handle);
    }
    free(f->counts);
    free(f->code);
    free(f);
}

static int64_t eval_chunk(regvm *vm, int64_t arg)
{
    regvm_code c = {0};
    regvm_chunk(arg, &c);
    regvm_func *f = c.failed ? NULL : regvm_load(vm, "chunk", c.b, c.len);
    free(c.b);
    if (!f) {
        trap(vm, "out of memory loading a chunk");
        return 0;
    }
    int64_t result = regvm_run(vm, f, arg);
    regvm_unload(vm, f);
    return result;
}

static int64_t *mem_at(regvm *vm, int64_t i)
{
    static int64_t nowhere;
    if (i >= 0 && i < MEM_WORDS)
        return &vm->mem[i];
    trap(vm, "memory access out of bounds");
    return &nowhere;
}

/* The words the op bodies (regvm_ops.h) are written in. */
#define R(r) regs[(r)]
#define NEXT()                                                                                     \
    do {                                                                                           \
        pc += in.len;                                                                              \
        goto next;                                                                                 \
    } while (0)
#define JUMP(offset)                                                                               \
    do {                                                                                           \
        pc += (size_t)(offset);                                                                    \
        goto next;                                                                                 \
    } while (0)
#define FINISH(value)                                                                              \
    do {                                                                                           \
        pulleyprof_publish(&vm->slot, 0);                                                          \
        return (value);                                                                            \
    } while (0)
#define MEM_AT(i) mem_at(vm, (i))
#define EVAL(arg) (pulleyprof_publish(&vm->slot, 0), eval_chunk(vm, (arg)))
#define PRINT(v) (pulleyprof_publish(&vm->slot, 0), printf("%lld\n", (long long)(v)))
#define A in.reg[0]
#define B in.reg[1]
#define C in.reg[2]
#define IMM0 in.imm[0]
#define IMM1 in.imm[1]
#define OPCODE(name) case OP_##name: {
#define END_OPCODE }
/* And those of the macro ops' handlers pulley-macrogen --outside writes. */
#define MACRO_REG(kind, i) in.reg[(i)]
#define MACRO_REG_TYPE(kind) unsigned
#define MACRO_IMM(i) in.imm[(i)]
#define MACRO_IMM_TYPE(op, j) int64_t

int64_t regvm_run(regvm *vm, const regvm_func *f, int64_t arg)
{
    int64_t regs[256] = {arg};
    size_t pc = 0;
    regvm_insn in;
next:
    if (vm->trapped || regvm_decode(f->code, f->size, pc, &in) != 0) {
        if (!vm->trapped)
            trap(vm, "no instruction at this pc");
        FINISH(0);
    }
    pulleyprof_publish(&vm->slot, (uintptr_t)f->code + pc);
    vm->dispatches++;
    if (f->counts)
        f->counts[pc]++;
    switch (in.op) {
#include "regvm_ops.h"
#include "pulley_macro_handlers.h"
    }
    trap(vm, "an opcode with no handler");
    FINISH(0);
}
#undef R
#undef NEXT
#undef JUMP
#undef FINISH
#undef MEM_AT
#undef EVAL
#undef PRINT
#undef A
#undef B
#undef C
#undef IMM0
#undef IMM1
#undef OPCODE
#undef END_OPCODE
#undef MACRO_REG
#undef MACRO_REG_TYPE
#undef MACRO_IMM
#undef MACRO_IMM_TYPE

static int usage(void)
{
    fprintf(stderr, "usage: regvm PROGRAM N [--profile DB [--exact]] [--no-fuse] [--dispatches]\n"
                    "programs: %s\n",
            regvm_program_names);
    return 2;
}

static int open_profile(regvm *vm, const char *db, const char *program, char **argv)
{
    char err[512];
    pulleyprof_config cfg = {.db_path = db, .isa = &regvm_isa, .benchmark = program,
                             .command_line = argv[2], .build_flags = regvm_build_flags,
                             .exact = vm->exact};
    if (!(vm->prof = pulleyprof_open(&cfg, err, sizeof err))) {
        fprintf(stderr, "regvm: %s\n", err);
        return -1;
    }
    vm->module = pulleyprof_register_module(vm->prof, program, NULL);
    pulleyprof_register_slot(vm->prof, &vm->slot);
    return 0;
}

int main(int argc, char **argv)
{
    regvm vm = {.module = -1, .fuse = 1};
    const char *db = NULL;
    int print_dispatches = 0;
    if (argc < 3)
        return usage();
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc)
            db = argv[++i];
        else if (strcmp(argv[i], "--exact") == 0)
            vm.exact = 1;
        else if (strcmp(argv[i], "--no-fuse") == 0)
            vm.fuse = 0;
        else if (strcmp(argv[i], "--dispatches") == 0)
            print_dispatches = 1;
        else
            return usage();
    }
    regvm_code c = {0};
    char *end;
    long long n = strtoll(argv[2], &end, 10);
    if (*end || regvm_isa_init() != 0 || regvm_program(argv[1], n, &c) != 0 || c.failed)
        return usage();
    if (vm.exact && !db)
        return usage();
    if (!(vm.mem = calloc(MEM_WORDS, sizeof *vm.mem)) ||
        (db && open_profile(&vm, db, argv[1], argv) != 0))
        return 1;
    regvm_func *main_fn = regvm_load(&vm, "main", c.b, c.len);
    free(c.b);
    if (!main_fn) {
        fprintf(stderr, "regvm: out of memory\n");
        return 1;
    }
    regvm_run(&vm, main_fn, 0);
    regvm_unload(&vm, main_fn);
    if (print_dispatches)
        fprintf(stderr, "regvm: %llu dispatches\n", (unsigned long long)vm.dispatches);
    int status = vm.trapped ? 1 : 0;
    if (vm.prof) {
        char err[512];
        pulleyprof_unregister_slot(vm.prof, &vm.slot);
        pulleyprof_set_outcome(vm.prof, vm.trapped ? "trap" : "return", status);
        if (pulleyprof_close(vm.prof, NULL, err, sizeof err) != 0) {
            fprintf(stderr, "regvm: profile: %s\n", err);
            status = 1;
        }
    }
    free(vm.mem);
    return status;
}
