/*
 * builtin_table.h - the instruction set compiled into the extension, as
 * the opcode rows pulley-collect stores with a run, so that code of no
 * particular run decodes exactly as a run's code does: with a table of
 * stored rows (format/opcode_rows.h).
 */
#ifndef SX_BUILTIN_TABLE_H
#define SX_BUILTIN_TABLE_H

#include <stddef.h>

#include "opcode_rows.h"

/* Fill t with the compiled-in opcodes.  Returns 0, or -1 with err. */
int sx_builtin_table(ot_table *t, char *err, size_t cap);

#endif
