/*
 * asm_lexer.h - the lexical layer of .pasm text: tokens with their line and
 * column, the conversion of literal tokens (registers, integers, floats) to
 * values, and the inverse that the disassembler needs: when a name can be
 * written bare and how a byte is escaped inside double quotes.  Keeping both
 * directions here is what makes disassembly read back identically.
 *
 * Tokens:
 *   NAME     [A-Za-z_.$][A-Za-z0-9_.$]*  (mnemonics, directives, registers,
 *            labels, names, trap kinds, inf, nan)
 *   NUMBER   an optional sign, then a digit, a letter or '.', then
 *            [A-Za-z0-9_.]* (with '+'/'-' allowed after an exponent 'e');
 *            its value is checked by the parser: 12, -0x80, +16, 1.5e-3,
 *            -inf
 *   STRING   "..." with escapes \n \t \r \0 \\ \" \' \xHH (the token holds
 *            the decoded bytes, which may include NUL)
 *   INDEX    #N, a decimal index (the token holds the digits)
 *   , : [ ] ->   punctuation
 *   NEWLINE, EOF
 * Blanks are spaces, tabs and carriage returns; ';' comments to end of line.
 */
#ifndef PULLEY_ASM_LEXER_H
#define PULLEY_ASM_LEXER_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bytes.h"
#include "error.h"

typedef enum pasm_tok_kind {
    PASM_TOK_EOF,
    PASM_TOK_NEWLINE,
    PASM_TOK_NAME,
    PASM_TOK_NUMBER,
    PASM_TOK_STRING,
    PASM_TOK_INDEX,
    PASM_TOK_COMMA,
    PASM_TOK_COLON,
    PASM_TOK_LBRACKET,
    PASM_TOK_RBRACKET,
    PASM_TOK_ARROW,
} pasm_tok_kind;

typedef struct pasm_token {
    pasm_tok_kind kind;
    /* The source text; for a STRING the decoded bytes, valid until the next
     * token; for an INDEX the digits after '#'. */
    const char *text;
    size_t len;
    unsigned line, col; /* 1-based; columns count bytes */
} pasm_token;

typedef struct pasm_lexer {
    const char *filename;
    const char *p, *end;
    const char *line_start;
    unsigned line;
    pvm_buf string; /* decoded bytes of the last STRING token */
    pvm_error *err;
} pasm_lexer;

void pasm_lexer_init(pasm_lexer *lx, const char *filename, const char *text,
                     size_t len, pvm_error *err);
void pasm_lexer_free(pasm_lexer *lx);

/* Read the next token.  Returns 0, or -1 with the error reported. */
int pasm_next(pasm_lexer *lx, pasm_token *tok);

/* Report "FILE:LINE:COL: message" into the lexer's error; returns -1. */
int pasm_verrorf(const pasm_lexer *lx, unsigned line, unsigned col,
                 const char *fmt, va_list ap);
int pasm_errorf(const pasm_lexer *lx, unsigned line, unsigned col,
                const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* ---- literal values ------------------------------------------------------
 * Each returns NULL on success or a short static message saying what is
 * wrong, for the parser to report with the token's position. */

/* The register number of "x7" (prefix 'x') or "f7" (prefix 'f'), or -1 if
 * text is not such a register name.  Numbers above 31 are returned as they
 * are (up to 999) for the caller to report as out of range. */
int pasm_register(const char *text, size_t len, char prefix);

/* An integer: optional sign, then decimal digits or 0x and hex digits. */
typedef struct pasm_int {
    bool negative;
    bool explicit_sign; /* written with '+' or '-' */
    uint64_t magnitude;
} pasm_int;
const char *pasm_integer(const char *text, size_t len, pasm_int *out);

/* The bits of a float literal: a decimal (as strtof/strtod read it: 1.5,
 * -0, 1e-45, inf, -inf, nan), or 0x and the raw bits in hex. */
const char *pasm_float_bits(const char *text, size_t len, bool f64,
                            uint64_t *bits);

/* The type letter of a type name (i32 -> 'i', i64 -> 'l', f32 -> 'f',
 * f64 -> 'd', funcref -> 'r', externref -> 'e', as module.h stores them),
 * or 0; and the inverse (NULL if the letter is not a type). */
char pasm_type_letter(const char *text, size_t len);
const char *pasm_type_name(char letter);

/* ---- writing text the lexer reads back ---------------------------------- */

/* Can this name be written bare (it lexes as one NAME token)? */
bool pasm_is_bare_name(const char *s, size_t len);

/* Write byte c as it appears inside double quotes (itself, or an escape);
 * returns the number of characters written to out (1 to 4). */
int pasm_escape_byte(char out[4], uint8_t c);

#endif
