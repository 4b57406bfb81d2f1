/*
 * disasm.h - the disassembler.  Its module output is valid .pasm that
 * re-assembles to identical .pbc bytes.
 *
 * Module output:
 *
 *   .entry main
 *   .memory 65536 65536
 *   .globals 2
 *   .tables 1
 *   .import print_i64
 *   .type i32 -> i64                   ; #0
 *   .data 16 "hello\n\x00"
 *
 *   .func main i64 -> i64              ; #0, 14 bytes @00000000
 *       xconst8 x1, 0                  ; +0000 @00000000
 *   .L3:
 *       br_if_not x0, .Le              ; +0003 @00000003
 *       ...
 *   .end
 *
 * Every branch target that is an instruction start of the function (or its
 * end) gets a label ".L<hex offset>"; other targets are printed as signed
 * byte offsets (+16, -4).  Each instruction's comment gives its offset in
 * the function and its address in the module's code; with --hex, its bytes.
 */
#ifndef PULLEY_DISASM_H
#define PULLEY_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "error.h"
#include "insn.h"
#include "module.h"

/* Write one instruction as .pasm text ("xadd32 x0, x1, x2") into buf.
 * Branch targets are written as signed byte offsets from the instruction,
 * which is at offset `at` of its function ("jump -4"), so the text does not
 * depend on labels; function and import operands by name when m is not NULL
 * and the index exists, otherwise as "#N"; globals, tables and types as
 * "#N".  Inside a function the text
 * assembles back to the same bytes.  Returns the length snprintf would. */
int pvm_format_insn(char *buf, size_t cap, const pvm_insn *insn, size_t at,
                    const pvm_module *m);

/* A float immediate (its bits; f32 in the low 32 when !f64) as .pasm text:
 * the shortest of %.9g / %.17g that reads back to the same bits, else
 * (always for a NaN) the raw bits in hex.  NUL-terminated. */
#define PVM_FLOAT_TEXT_MAX 48
void pvm_format_float(uint64_t bits, bool f64, char text[PVM_FLOAT_TEXT_MAX]);

typedef struct pvm_disasm_options {
    bool hex; /* add each instruction's bytes to its comment */
} pvm_disasm_options;

/* Write the whole module as .pasm (opt may be NULL: no hex bytes).
 * Returns 0; or -1 with err saying
 * "function NAME, offset 0x1a: problem" if some code does not decode (it
 * has not been verified), or if writing fails.  Nothing is written for a
 * module whose code does not decode. */
int pvm_disassemble_module(FILE *out, const pvm_module *m,
                           const pvm_disasm_options *opt, pvm_error *err);

#endif
