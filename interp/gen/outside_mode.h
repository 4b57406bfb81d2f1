/*
 * outside_mode.h - pulley-macrogen --outside, for an interpreter that is
 * not this project's: its op bodies in the convention of OUTSIDE.md, and
 * no opcode table (each part's operands are what the .macros file gives
 * it, their kinds its words).  Two files: the macro ops' handlers
 * (outside_handlers.c) and a list describing them (outside_list.c).
 */
#ifndef MG_OUTSIDE_MODE_H
#define MG_OUTSIDE_MODE_H

#include <stdio.h>

#include "macro_set.h"
#include "op_bodies.h"

#define MG_OUTSIDE_HANDLERS "pulley_macro_handlers.h"
#define MG_OUTSIDE_LIST "pulley_macro_list.def"

/* Refuse, naming set_path, a set the bodies cannot make handlers of: a
 * macro op named as an op with a body, parts of one mnemonic with
 * different numbers of operands. */
void mg_outside_check(const fu_set *set, const char *set_path, const mg_bodies *b);

/* The handlers of the set's macro ops (set_path names it in a comment). */
void mg_outside_write_handlers(FILE *out, const fu_set *set, const char *set_path,
                               const mg_bodies *b);

/* The X-macro list of the set's macro ops. */
void mg_outside_write_list(FILE *out, const fu_set *set, const char *set_path);

#endif
