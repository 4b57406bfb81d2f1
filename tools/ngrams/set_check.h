/*
 * set_check.h - the .macros set of --evaluate checked against the
 * instruction set the runs were taken with (the opcode table stored with
 * them), by the checks the generator makes (fusion/macro_check.h): a set
 * pulley-macrogen refuses is refused here with the same message, rather
 * than given a saving no build can have.
 */
#ifndef NG_SET_CHECK_H
#define NG_SET_CHECK_H

#include <stddef.h>

#include "macro_set.h"
#include "profile_model.h"

/* Check set (read from file) against the instruction set of p's runs;
 * where the runs were taken on several (--mix-isas), each op against the
 * one that accepts it.  p's name tables are read, not changed.  Returns
 * 0, or -1 with err ("FILE:LINE: macro op NAME: ..."; or the database
 * that could not be read). */
int ng_check_set(an_profile *p, const fu_set *set, const char *file, char *err, size_t cap);

#endif
