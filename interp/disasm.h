/*
 * disasm.h - the disassembler.  Its module output is valid .pasm that
 * re-assembles to identical bytes.
 */
#ifndef PULLEY_DISASM_H
#define PULLEY_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "insn.h"
#include "module.h"

/* Write one instruction as text ("xadd32 x0, x1, x2") into buf.  Branch
 * targets are written as labels ".L<offset>" (offsets relative to the
 * function start, `at` being the instruction's own offset); function and
 * import operands by name when m is not NULL.  Returns the length that
 * snprintf would. */
int pvm_format_insn(char *buf, size_t cap, const pvm_insn *insn, size_t at,
                    const pvm_module *m);

typedef struct pvm_disasm_options {
    bool hex;        /* add each instruction's bytes to its comment */
} pvm_disasm_options;

/* Write the whole module as .pasm, each instruction followed by a comment
 * with its offset.  Returns 0, or -1 if the code does not decode. */
int pvm_disassemble_module(FILE *out, const pvm_module *m,
                           const pvm_disasm_options *opt);

#endif
