/*
 * opcode_table.h - the opcode table of the build as JSON (pulley-dis
 * --opcodes), so that scripts read the ISA from the binary instead of
 * matching mnemonics with patterns of their own.
 */
#ifndef PULLEY_OPCODE_TABLE_H
#define PULLEY_OPCODE_TABLE_H

#include <stdio.h>

/* Write {"isa_hash", "classes": [...], "opcodes": [...]} to out, one
 * opcode object a line: name, number, extended, class, flags (words),
 * format, operands ("x x s32"), roles ("w r"), length, wide (the opcode
 * it is matched as, or null), semantics, macro (a macro op's part
 * names, or null).  Returns 0, or -1 when out failed. */
int pvm_print_opcode_table(FILE *out);

#endif
