/*
 * fuse.h - the fusion pass: rewrite a verified module's code so that
 * sequences of baseline instructions that a macro op of the build does
 * the work of become that macro op (none in a build without macro ops).
 *
 * Each basic block (leaders: a function's entry, every branch and jump
 * table target, the instruction after a branch or terminator) is covered
 * with the fewest dispatches, by fusion/cover.h - the cover the analysis
 * predicts savings with - so a sequence never spans a leader and a call
 * or branch is only ever a macro op's last part.  Branch offsets, jump
 * tables and function offsets are rewritten, and the module is verified
 * again.  Semantics are unchanged: a macro op does its parts' work in
 * order, writing every register they write; a trap is reported at the
 * macro instruction.
 */
#ifndef PULLEY_FUSE_H
#define PULLEY_FUSE_H

#include <stdint.h>

#include "bytes.h"
#include "error.h"
#include "module.h"

typedef struct pvm_fuse_stats {
    uint64_t insns_before;  /* instructions in the code, before and after */
    uint64_t insns_after;
    uint64_t macros;        /* macro instructions written */
    uint64_t bytes_before, bytes_after;
} pvm_fuse_stats;

/* Fuse m (verified) in place; stats may be NULL.  Returns 0, or -1 with
 * err (out of memory, or - a bug - code that no longer verifies); m is
 * unchanged then. */
int pvm_fuse_module(pvm_module *m, pvm_fuse_stats *stats, pvm_error *err);

/* Fuse one function's code (f: where it lies in m->code, which need not
 * be one of m's functions yet), appending the new code to out, with the
 * arrays of w (kept from one function to the next); stats may be NULL.
 * The code need not be verified: an instruction that does not decode, or
 * a branch that lands on no instruction, makes it PVM_FUSE_BAD_CODE; the
 * rest (operands, the end) is for the verifier, which the result must
 * pass before it runs.  Returns 0, -1 (out of memory) or
 * PVM_FUSE_BAD_CODE. */
#define PVM_FUSE_BAD_CODE (-2)
typedef struct pvm_fuse_scratch pvm_fuse_scratch;
pvm_fuse_scratch *pvm_fuse_scratch_new(void); /* NULL: out of memory */
void pvm_fuse_scratch_free(pvm_fuse_scratch *w);
int pvm_fuse_function(const pvm_module *m, const pvm_function *f, pvm_fuse_scratch *w,
                      pvm_buf *out, pvm_fuse_stats *stats);

/* Is the build's macro set empty (pvm_fuse_module then changes nothing)? */
int pvm_fuse_has_macros(void);

#endif
