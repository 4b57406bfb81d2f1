/*
 * verify.h - the bytecode verifier.  No function runs before its module
 * passed it.
 *
 * Checks, for every function: the code decodes to whole instructions (no
 * truncated instruction, no unknown opcode, no stray bits in a register
 * pack); trap kinds are known; every branch and jump-table target is the
 * start of an instruction of the same function; every immediate naming a
 * function, import, global, table or type names one the module has; the
 * last instruction never falls through.  And for the module: the entry
 * index, global and table counts, heap limits and data segments are in
 * range.
 */
#ifndef PULLEY_VERIFY_H
#define PULLEY_VERIFY_H

#include "error.h"
#include "module.h"

/* Verify m.  On success sets m->insn_starts and m->verified and returns 0.
 * Otherwise returns -1 and err says "function NAME, offset N: problem". */
int pvm_verify_module(pvm_module *m, pvm_error *err);
/* Verify one function's code as it lies in m->code (f need not be one of
 * m's functions: lazy.c checks code before it becomes one), marking its
 * instruction starts in starts, which covers f's range.  0, or -1 with
 * err as above. */
int pvm_verify_function(const pvm_module *m, const pvm_function *f, uint8_t *starts,
                        pvm_error *err);

#endif
