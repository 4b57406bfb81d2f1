/*
 * asm.h - the text assembler (.pasm).
 *
 * One item per line; ";" starts a comment.  Module directives (outside
 * functions):
 *
 *   .entry NAME | .entry #N        the entry function (default: the function
 *                                  named main, if there is one)
 *   .noentry                       no entry function, even if main exists
 *   .memory MIN [MAX]              heap bytes, initial and maximum (default 0;
 *                                  MAX defaults to MIN); before any .data
 *   .import NAME                   a host function, for call_host; imports
 *                                  are numbered in order from #0
 *   .data OFFSET "bytes" ["more"]  heap bytes copied at start-up; must lie
 *                                  below the maximum heap
 *   .type [TYPE...] [-> TYPE...]   an entry of the type table (sigcheck's
 *                                  operand); types are numbered in order
 *                                  from #0
 *   .globals N | .tables N         how many globals / tables the module
 *                                  has (default 0), numbered from #0
 *   .global #N VALUE               global N's initial value (default 0),
 *                                  its 64 bits as an integer
 *   .table #N SIZE MAX             table N's initial size (null entries)
 *                                  and maximum (default 0 and 0)
 *   .elem #T OFFSET FUNC...        function references put into table T
 *                                  from entry OFFSET at start-up; FUNC is
 *                                  a function name, #N, or null
 *   .start NAME | .start #N        a function the embedder runs before the
 *                                  entry (WebAssembly's start function)
 *   .heap_base xN                  xN holds the heap's data-space address
 *                                  on every call into the VM (translated
 *                                  WebAssembly addresses memory from x31)
 *
 * Functions, numbered in order from #0:
 *
 *   .func NAME [TYPE...] [-> TYPE...]    TYPE: i32 i64 f32 f64 funcref
 *                                        externref
 *   LABEL:                         a branch target (may precede an
 *                                  instruction on the same line)
 *   MNEMONIC OPERAND, ...          any opcode of opcodes.def
 *   .end
 *
 * Operands come in the order of the opcode's format (opcodes.def):
 *
 *   x0..x31, f0..f31               registers
 *   12, -3, 0xff, -0x80            integer immediates, range-checked for
 *                                  their kind (s8 ... i64, u32, offsets)
 *   LABEL | +16 | -4               branch targets: a label of the same
 *                                  function, or a byte offset from the
 *                                  branching instruction's start, always
 *                                  written with its sign
 *   [T, T, ...]                    br_table's targets: br_table x3, [a, b]
 *   NAME | #N                      call, func_ref: a function (defined
 *                                  anywhere in the file) or its index;
 *                                  call_host: an import or its index
 *   #N                             a global, table or type by its index
 *   unreachable | 3                trap: a trap kind name or number (0..255)
 *   1.5, -0, 1e-45, inf, -nan      float immediates (as strtof/strtod read
 *   0x7fc00001                     them), or 0x and the raw bits in hex
 *
 * Names (functions, imports) that are not identifiers [A-Za-z_.$][A-Za-z0-9_.$]*
 * are written in double quotes, with escapes \n \t \r \0 \\ \" \' \xHH; the
 * same strings give .data its bytes.
 */
#ifndef PULLEY_ASM_H
#define PULLEY_ASM_H

#include <stddef.h>

#include "error.h"
#include "module.h"

/* Assemble text (len bytes; need not be NUL-terminated).  `filename` is used
 * in messages, which read "FILE:LINE:COL: message"; assembly stops at the
 * first error.  Returns NULL on error. */
pvm_module *pvm_assemble(const char *filename, const char *text, size_t len,
                         pvm_error *err);

#endif
