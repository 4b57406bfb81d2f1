/*
 * cover_block.c - the optimal cover of <pulley/fusion.h> as an outside
 * interpreter uses it, through nothing but the installed header and
 * library (tests/e2e/installed_library.sh builds it against a prefix):
 * read a .macros set, bind it to a small register machine's opcodes and
 * cover one basic block of it.
 *
 *   cover_block SET.macros
 *
 * prints the set's macro ops, then the block's dispatches and, per
 * instruction, the macro op whose match ends there ("-" for none).
 */
#include <pulley/fusion.h>

#include <stdio.h>
#include <string.h>

enum { LOADK, ADD, MUL, JNZ, NOPS };
static const char *const names[NOPS] = {"LOADK", "ADD", "MUL", "JNZ"};

static int opcode_of(void *ctx, const char *mnemonic)
{
    (void)ctx;
    for (int op = 0; op < NOPS; op++)
        if (strcmp(names[op], mnemonic) == 0)
            return op;
    return -1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: cover_block SET.macros\n");
        return 2;
    }
    char err[256];
    pulleyfuse_set *set = pulleyfuse_read(argv[1], err, sizeof err);
    if (!set || pulleyfuse_bind(set, opcode_of, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "cover_block: %s\n", err);
        pulleyfuse_free(set);
        return 1;
    }
    for (size_t i = 0; i < pulleyfuse_count(set); i++) {
        pulleyfuse_macro m;
        if (pulleyfuse_macro_at(set, i, &m) == 0)
            printf("%s: %u parts, %u registers, %u immediates\n", m.name, m.nparts, m.nregs,
                   m.nimms);
    }
    /* r1 = k; r2 = r2 * r3; r2 = r2 + r1; r2 = r2 * r1; if r2 goto ... */
    const pulleyfuse_insn block[] = {
        {LOADK, 1, {1}},
        {MUL, 3, {2, 2, 3}},
        {ADD, 3, {2, 2, 1}},
        {MUL, 3, {2, 2, 1}},
        {JNZ, 1, {2}},
    };
    int32_t choice[5];
    int64_t dispatches = pulleyfuse_cover(set, block, 5, choice, err, sizeof err);
    if (dispatches < 0) {
        fprintf(stderr, "cover_block: %s\n", err);
        pulleyfuse_free(set);
        return 1;
    }
    printf("dispatches %lld:", (long long)dispatches);
    for (int i = 0; i < 5; i++) {
        pulleyfuse_macro m;
        printf(" %s", choice[i] >= 0 && pulleyfuse_macro_at(set, (size_t)choice[i], &m) == 0
                          ? m.name : "-");
    }
    printf("\n");
    pulleyfuse_free(set);
    return 0;
}
