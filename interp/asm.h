/*
 * asm.h - the text assembler (.pasm).
 *
 * Syntax, one item per line; ";" starts a comment:
 *
 *   .entry NAME                     entry function (default: "main" if any)
 *   .memory MIN [MAX]               heap bytes, initial and maximum
 *   .import NAME                    a host function, callable by call_host
 *   .data OFFSET "bytes\n\x00"      heap bytes copied at start-up
 *   .func NAME [TYPE...] [-> TYPE...]   start a function; TYPE: i32 i64 f32 f64
 *   LABEL:                          a branch target in the current function
 *   MNEMONIC OPERAND, ...           an instruction; operands in table order:
 *                                   x0..x31, f0..f31, integers (decimal,
 *                                   0x hex, negative), floats (1.5, -0, inf,
 *                                   nan, or 0x bits), labels, function and
 *                                   import names, trap kind names, and for
 *                                   br_table a bracketed label list [a, b, c]
 *   .end                            end the function
 *
 * Names that are not plain identifiers are written in double quotes.
 */
#ifndef PULLEY_ASM_H
#define PULLEY_ASM_H

#include <stddef.h>

#include "error.h"
#include "module.h"

/* Assemble text (len bytes; need not be NUL-terminated).  `filename` is used
 * in messages, which read "FILE:LINE:COL: message".  Returns NULL on error. */
pvm_module *pvm_assemble(const char *filename, const char *text, size_t len,
                         pvm_error *err);

#endif
