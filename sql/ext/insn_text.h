/*
 * insn_text.h - write an instruction decoded with a table of stored opcode
 * rows (format/opcode_decode.h) as text, the way the disassembler
 * (interp/disasm.h) writes it into the `instructions` table:
 * "xadd64 x1, x1, x4", branch targets as signed byte offsets ("jump -18"),
 * function operands by name when the names of the module are given,
 * otherwise "#N".
 */
#ifndef SX_INSN_TEXT_H
#define SX_INSN_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "opcode_decode.h"
#include "text_buf.h"

/* Names of a module's functions, by index (the `idx` of `functions`). */
typedef struct sx_func_name {
    uint32_t index;
    char *name;
} sx_func_name;

typedef struct sx_names {
    sx_func_name *items; /* sorted by index */
    size_t n, cap;
} sx_names;

/* Add a name (indices must increase); 0, or -1 when out of memory. */
int sx_names_add(sx_names *names, uint32_t index, const char *name);
/* The name of function `index`, or NULL. */
const char *sx_names_find(const sx_names *names, uint32_t index);
void sx_names_free(sx_names *names);

/* Append the text of insn (branch targets relative to it); names may be
 * NULL. */
void sx_format(sx_text *out, const ot_insn *insn, const sx_names *names);

#endif
