/*
 * pulley/fusion.h - the optimal cover of the pulley toolkit, for any
 * interpreter: read a set of macro ops (a .macros file, as `pulley-ngrams
 * --emit-macros` writes it), bind its mnemonics to the interpreter's
 * opcode numbers, and ask, for a basic block of the interpreter's own
 * instructions, which sequences its macro ops replace.  It is the very
 * cover that `pulley-ngrams --evaluate` predicts with and that this
 * project's VM fuses its code with, so an interpreter whose rewriter uses
 * it gets the dispatches the prediction counted.  Part of libpulleyprof
 * (pkg-config pulley-profile; CMake PulleyProfile::pulleyprof); every
 * public name starts with pulleyfuse_ (PULLEYFUSE_ for macros).
 *
 *   pulleyfuse_set *set = pulleyfuse_read("my.macros", err, sizeof err);
 *   pulleyfuse_bind(set, my_opcode_of_mnemonic, my_ctx, err, sizeof err);
 *   for each basic block of a function:
 *       fill insns[0 .. n): opcode and registers of each instruction
 *       pulleyfuse_cover(set, insns, n, choice, err, sizeof err);
 *       choice[i] >= 0: macro op choice[i] replaces the instructions
 *       i - nparts + 1 .. i (its parts, in order)
 *   pulleyfuse_free(set);
 *
 * What a block is.  A sequence is replaced only inside one basic block,
 * and only its first instruction may be a leader: the function's entry,
 * a branch or jump-table target, the instruction after a branch or after
 * an instruction that never falls through.  Cut a function into blocks
 * before each leader and pass each block on its own; a macro op's parts
 * then never jump into the middle of it, and only its last part may
 * branch.  A call does not end a block: pulley-ngrams only ever proposes
 * a call (or a return) as a macro op's last part, and an interpreter
 * whose set is written by hand should cut its blocks after calls too.
 *
 * Opcodes.  Instructions carry the numbers opcode_of gave the parts'
 * mnemonics.  An instruction of an opcode that is another's operation
 * with a narrower immediate (the `wide_form` of its pulleyprof_opcode
 * row: Pulley's xconst8 is xconst64) must be passed as that wide form's
 * opcode: macro ops name the wide form and take every width of it, as
 * the analysis matched them.  Opcodes that no part names (any number,
 * also above 65535) match nothing.
 *
 * Registers.  An instruction's register operands are numbers of any
 * size, in the operand order of its opcode's parts in the .macros file;
 * registers of different kinds must have different numbers (x3 and f3
 * are not one register: give them, say, 3 and 0x10003).  The cover only
 * asks which operands name the same register, so a block may name any
 * number of them.
 *
 * Functions returning int return 0 (or a count) on success and -1 on
 * failure, with one line of text in (err, errcap).  A set is read-only
 * once bound: any number of threads may cover blocks with it at once.
 */
#ifndef PULLEY_FUSION_H
#define PULLEY_FUSION_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define PULLEYFUSE_API __attribute__((visibility("default")))
#else
#define PULLEYFUSE_API
#endif

#define PULLEYFUSE_MAX_PARTS 8  /* parts of one macro op */
#define PULLEYFUSE_MAX_REGS 16  /* register operands of one part, one instruction, one macro op */
#define PULLEYFUSE_MAX_IMMS 8   /* immediates of one macro op */

/* A set of macro ops, as one .macros file states it. */
typedef struct pulleyfuse_set pulleyfuse_set;

/* Read the .macros file at path, or parse text[0 .. len) (`name` is the
 * file named in messages).  NULL with err on failure: "FILE:LINE: what is
 * wrong", or "FILE: why it cannot be read". */
PULLEYFUSE_API pulleyfuse_set *pulleyfuse_read(const char *path, char *err, size_t errcap);
PULLEYFUSE_API pulleyfuse_set *pulleyfuse_parse(const char *text, size_t len, const char *name,
                                                char *err, size_t errcap);
PULLEYFUSE_API void pulleyfuse_free(pulleyfuse_set *set);

/* ---- what the file says ------------------------------------------------ */

/* One part of a macro op: an opcode of the interpreter, and which of the
 * macro op's operands its operands are. */
typedef struct pulleyfuse_part {
    const char *mnemonic;
    unsigned nregs;                       /* its register operands, */
    unsigned regs[PULLEYFUSE_MAX_REGS];   /* each a macro register (0 ..) */
    unsigned nimms;                       /* its immediates, */
    unsigned imms[PULLEYFUSE_MAX_IMMS];   /* each a macro immediate (0 ..) */
} pulleyfuse_part;

/* A macro op: its parts, in execution order, and its operands.  Macro
 * registers are numbered in order of first use; parts naming the same one
 * name the same register of the interpreter (a value carried from one
 * part to the next).  Every part's immediates are the macro op's, in the
 * order of the parts.  Strings belong to the set. */
typedef struct pulleyfuse_macro {
    const char *name;                     /* its mnemonic: ADD__JMPIF */
    unsigned nparts;
    pulleyfuse_part parts[PULLEYFUSE_MAX_PARTS];
    unsigned nregs;
    const char *kinds[PULLEYFUSE_MAX_REGS]; /* each macro register's kind: "r", "vec" */
    unsigned nimms;
    double predicted; /* share of dispatches (%) it removed where chosen; < 0: not said */
} pulleyfuse_macro;

/* The number of macro ops; macro op i (0 ..) into *out (0, or -1 when i is
 * not below the count); the index of the macro op named `name`, or -1. */
PULLEYFUSE_API size_t pulleyfuse_count(const pulleyfuse_set *set);
PULLEYFUSE_API int pulleyfuse_macro_at(const pulleyfuse_set *set, size_t i, pulleyfuse_macro *out);
PULLEYFUSE_API long pulleyfuse_find(const pulleyfuse_set *set, const char *name);

/* ---- the cover --------------------------------------------------------- */

/* The interpreter's opcode number of `mnemonic` (0 .. 65535), or -1 if it
 * has none. */
typedef int (*pulleyfuse_opcode_fn)(void *ctx, const char *mnemonic);

/* Number every part's mnemonic with opcode_of(ctx, mnemonic) and make the
 * set ready to cover blocks.  Refuses, naming the macro op and part, a
 * mnemonic with no number (or one above 65535), and two parts of one
 * opcode that give it different numbers of register operands.  A set may
 * be bound again (to another numbering); a set that failed to bind
 * covers nothing until bound. */
PULLEYFUSE_API int pulleyfuse_bind(pulleyfuse_set *set, pulleyfuse_opcode_fn opcode_of, void *ctx,
                                   char *err, size_t errcap);

/* One instruction of a block: its opcode (the wide form's, see above) and
 * its register operands' numbers. */
typedef struct pulleyfuse_insn {
    uint32_t opcode;
    uint32_t nregs;                       /* at most PULLEYFUSE_MAX_REGS */
    uint32_t regs[PULLEYFUSE_MAX_REGS];
} pulleyfuse_insn;

/* Cover one basic block insns[0 .. n) with single instructions and the
 * set's macro ops with the fewest dispatches.  Returns that number of
 * dispatches (the instructions left, a macro instruction counting one),
 * or -1 with err: the set is not bound, an instruction has more than
 * PULLEYFUSE_MAX_REGS registers or another number than the set's parts
 * give its opcode, the block has 2^32 - 1 instructions or more, or memory
 * ran out.  When choice is not NULL (n entries), choice[i] is the index
 * of the macro op whose match ends at instruction i, or -1 (an
 * instruction on its own, or one inside a match).  Of several optimal
 * covers, the one whose prefixes are cheapest at each end, with the first
 * macro op of the file among equals: the choice the analysis made. */
PULLEYFUSE_API int64_t pulleyfuse_cover(const pulleyfuse_set *set, const pulleyfuse_insn *insns,
                                        size_t n, int32_t *choice, char *err, size_t errcap);

#endif
