/*
 * stored_text.h - the small languages a profile database stores in text
 * columns, parsed and written in one place: space-separated word lists
 * (`opcodes.operands`, `opcodes.flag_names`), register roles
 * (`opcodes.roles`: "w r rw"), operand index lists (`macro_parts.regs`,
 * `macro_parts.imms`: "0 1 2") and integer lists (`instructions.regs`,
 * `imms`, `targets`: "-3 7").  The collector writes them with these
 * functions and every reader reads them with these functions.
 */
#ifndef FMT_STORED_TEXT_H
#define FMT_STORED_TEXT_H

#include <stddef.h>
#include <stdint.h>

#define FMT_MAX_ROLES 16 /* register operands with a role: bits of a mask */

/* How many words the space-separated list s holds (NULL: none). */
unsigned fmt_count_words(const char *s);

/* The roles "w r rw" of nregs register operands into the masks of those
 * read and written (bit i: operand i).  Returns NULL, or what is wrong:
 * a word that is not r, w or rw, more than FMT_MAX_ROLES roles, or a
 * count other than nregs. */
const char *fmt_parse_roles(const char *roles, unsigned nregs, uint16_t *reads, uint16_t *writes);

/* The list "0 1 2" into v: at most max values, each below limit.  Returns
 * how many, or -1 when the text is not such a list. */
int fmt_parse_indices(const char *text, uint8_t *v, unsigned max, unsigned limit);

/* The list "a b c" of at most max 64-bit integers into v.  Returns how
 * many, or -1 when the text is not such a list or holds more. */
int fmt_parse_ints(const char *text, int64_t *v, unsigned max);

/* n integers as the list "a b c" into buf (cap bytes).  Returns buf, or
 * NULL when it does not fit. */
const char *fmt_write_ints(char *buf, size_t cap, const int64_t *v, size_t n);

/* The flag bits as the words `opcodes.flag_names` stores ("branch
 * term"), bit 0 first; bits without a word are left out. */
void fmt_flag_words(unsigned flags, char *out, size_t cap);

/* The number of flag words: every flag is below 1 << FMT_FLAG_WORDS. */
#define FMT_FLAG_WORDS 7

#endif
