/*
 * macro_check.h - a set of macro ops checked against an instruction set:
 * the one set of checks the VM's generator (interp/gen, pulley-macrogen)
 * and the analysis (pulley-ngrams --evaluate) make, so that a set one of
 * them refuses the other refuses too, with the same message.  The
 * instruction set is asked mnemonic by mnemonic (fu_isa): the generator
 * answers from its compiled-in baseline table, the analysis from the
 * opcode table stored with the runs.
 *
 * Checked, per macro op: its name is no plain opcode of the set; each
 * part is an opcode of the set, not itself a macro op, named in its wide
 * form, branching, calling or returning only as the last part, with the
 * opcode's counts of register operands and immediates and (where the set
 * says) its register kinds.  Messages are "FILE:LINE: macro op NAME: ...",
 * LINE the line of the op or of the part (fu_macro.line, fu_part.line;
 * "FILE: ..." when the op was not read from a file).
 */
#ifndef FU_MACRO_CHECK_H
#define FU_MACRO_CHECK_H

#include <stddef.h>

#include "macro_set.h"

/* What the instruction set says about one opcode. */
typedef struct fu_isa_op {
    unsigned nregs, nimms;                /* register operands (first), immediates */
    char kind[FU_MAX_REGS][FU_MAX_KIND];  /* each register operand's kind ("x", "f"),
                                           * "" where the set does not say */
    int ends;    /* branches, calls, returns or ends its block */
    int macro;   /* a macro op of the set, not a plain opcode */
    char wide[FU_MAX_NAME]; /* the opcode it is matched as (the same with a
                             * wider immediate), or "" when itself */
} fu_isa_op;

/* Look mnemonic up: 1 with *out filled in, 0 when the set has no such
 * opcode. */
typedef int (*fu_isa_lookup_fn)(void *ctx, const char *mnemonic, fu_isa_op *out);

typedef struct fu_isa {
    fu_isa_lookup_fn lookup;
    void *ctx;
} fu_isa;

/* Check m (read from `file`) against isa.  Returns 0, or -1 with err
 * saying where and what is wrong. */
int fu_check_macro(const fu_macro *m, const fu_isa *isa, const char *file, char *err,
                   size_t cap);

/* Check every op of s in order; the first problem is the answer. */
int fu_check_set(const fu_set *s, const fu_isa *isa, const char *file, char *err, size_t cap);

#endif
