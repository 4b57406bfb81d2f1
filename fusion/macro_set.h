/*
 * macro_set.h - a set of macro ops as a .macros file states it: for each
 * op a name and its parts (opcode mnemonics), and which macro operand each
 * part's operands are.  Read and written here; what the mnemonics mean
 * (formats, flags) is left to the reader that knows the instruction set
 * (the VM's generator, interp/gen; the analysis, analyze/).  The file
 * format is specified in fusion/README.md.
 *
 * A part's register operand is a macro register (a register kind and a
 * number: xN, fN, rN, N numbering the macro's registers in order of first
 * use): two operands naming the
 * same macro register must hold the same register where the sequence is
 * fused (that is how a value carried from one part to the next is
 * stated).  Each immediate of each part becomes an immediate of the macro
 * op, in order.  Names start with fu_ ("fusion").
 */
#ifndef FU_MACRO_SET_H
#define FU_MACRO_SET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define FU_FORMAT_VERSION 1
#define FU_MAX_PARTS 8     /* parts of one macro op */
#define FU_MAX_REGS 16     /* register operands of one part, and of a macro op */
#define FU_MAX_IMMS 8      /* immediates of one part, and of a macro op */
#define FU_MAX_NAME 96     /* a macro op's name, and a part's mnemonic */
#define FU_MAX_KIND 16     /* a register kind's name (letters), with its NUL */

typedef struct fu_part {
    char op[FU_MAX_NAME];         /* the part's mnemonic */
    uint8_t nregs;                /* register operands, in the part's order */
    uint8_t reg[FU_MAX_REGS];     /* the macro register each one is */
    uint8_t nimms;                /* immediates (each the macro's next one) */
    unsigned line;                /* its line in the file read, 0: not read */
} fu_part;

typedef struct fu_macro {
    char name[FU_MAX_NAME];
    unsigned nparts;
    fu_part part[FU_MAX_PARTS];
    unsigned nregs;               /* macro registers */
    char kind[FU_MAX_REGS][FU_MAX_KIND]; /* register kind per macro register: "x", "f", "r" */
    unsigned nimms;               /* macro immediates: all the parts' */
    double predicted;             /* share of dispatches (%) it removed where it
                                   * was chosen; < 0 when the file does not say */
    unsigned line;                /* the line of its 'macro' in the file read, 0: not read */
} fu_macro;

typedef struct fu_set {
    fu_macro *macros;
    size_t n, cap;
} fu_set;

/* Parse the text of a .macros file (`name` is used in messages).  Returns
 * 0, or -1 with err saying "NAME:LINE: what is wrong" (out is then empty). */
int fu_set_parse(fu_set *out, const char *text, size_t len, const char *name, char *err,
                 size_t cap);
/* Read and parse the file at path. */
int fu_set_read(fu_set *out, const char *path, char *err, size_t cap);

/* Write s as a .macros file, with `comment` (may be NULL or hold several
 * lines) as its leading comment.  The output is deterministic: the same
 * set gives the same bytes.  Returns 0, or -1 when writing failed. */
int fu_set_write(FILE *out, const fu_set *s, const char *comment);

/* Append m (checked as the parser checks it); 0, or -1 with err. */
int fu_set_add(fu_set *s, const fu_macro *m, char *err, size_t cap);

/* Is `kind` a register kind a .macros file can name: 1 to FU_MAX_KIND - 1
 * ASCII letters, not "imm"? */
int fu_kind_ok(const char *kind);

/* The index of the macro op named `name`, or -1. */
long fu_set_find(const fu_set *s, const char *name);

void fu_set_free(fu_set *s);

/* The default name of a macro op with these parts: their mnemonics joined
 * by "__" (CPython's LOAD_FAST__LOAD_FAST), into buf.  Returns 0, or -1 if
 * it does not fit. */
int fu_default_name(const fu_macro *m, char *buf, size_t cap);

#endif
