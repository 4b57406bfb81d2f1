/*
 * compose.h - a macro op's handler composed from its parts' op bodies:
 * the one implementation behind both of pulley-macrogen's modes (this
 * project's VM, interp/gen/README.md; an outside interpreter,
 * interp/gen/OUTSIDE.md).
 *
 *   OPCODE(NAME)
 *       const TYPE r0 = INIT, r1 = INIT;     the operands a part is the first
 *       const TYPE imm0 = INIT;              to use, read where it starts
 *       (comment: part 1: MNEMONIC r0, r1, imm0) {
 *           the part's body, its operands written in, without its final NEXT();
 *       }                                    (a NEXT() elsewhere in it: goto LABEL)
 *   LABEL:;
 *       ... each part in turn; the last one's NEXT() dispatches ...
 *   END_OPCODE
 *
 * A style says what differs between interpreters: how a local is declared
 * (its type and where its value is read from), how many letters A, B, ...
 * name register operands, and the other words of its bodies it rewrites
 * (Pulley's IMM_S32 and ADDR(r); an outside VM's IMM0; JUMP, which only a
 * last part may use).
 */
#ifndef MG_COMPOSE_H
#define MG_COMPOSE_H

#include <stddef.h>
#include <stdio.h>

#include "macro_set.h"
#include "op_bodies.h"

#define MG_MAX_LOCAL (FU_MAX_KIND + 4) /* "vec15", "imm7" */

/* One part of the macro op being composed. */
typedef struct mg_part {
    const fu_macro *m;
    const void *row;          /* the style's own description of m (Pulley: its table row) */
    unsigned k;               /* the part, 0 .. */
    unsigned first_imm;       /* the macro immediate its first immediate is */
    const mg_body *body;
    const char *bodies_path;
    char reg[FU_MAX_REGS][MG_MAX_LOCAL]; /* the locals its register operands are: "x3", "r0" */
} mg_part;

/* A part's body being written, its operands written in (compose.c). */
typedef struct mg_rewrite mg_rewrite;

typedef struct mg_style {
    /* Register operands of a body are the letters A, B, ... up to the
     * letter number reg_letters. */
    unsigned reg_letters;
    /* The type of the local of macro register r (imm: of the part's
     * immediate j), and the expression that reads its value. */
    void (*reg_local)(const mg_part *p, unsigned r, char *type, size_t tcap, char *init,
                      size_t icap);
    void (*imm_local)(const mg_part *p, unsigned j, char *type, size_t tcap, char *init,
                      size_t icap);
    /* Before the part is written: refuse what the style cannot compose
     * (mg_part_fail), or NULL. */
    void (*check_part)(const mg_part *p);
    /* An identifier of a body, id[0 .. n): 1 when the style wrote it
     * (mg_put ...), 0 to leave it to the common rules. */
    int (*word)(mg_rewrite *rw, const char *id, size_t n);
    /* Written before the macro op's name in OPCODE(...), or NULL. */
    const char *name_prefix;
} mg_style;

/* Write the handler of macro op m (row: the style's description of it)
 * from the bodies of b. */
void mg_write_handler(FILE *out, const fu_macro *m, const void *row, const mg_bodies *b,
                      const mg_style *st);

/* ---- for a style's word() ---------------------------------------------- */

const mg_part *mg_rewrite_part(const mg_rewrite *rw);
/* Write text into the part's body as it is written. */
void mg_put(mg_rewrite *rw, const char *text);
/* The body goes on with '(' (after blanks), which is consumed; at the ')'
 * that closes it, `closer` (copied; NULL: nothing) is written before the ')'.
 * `word` names what takes the parenthesis, for the message if it is not
 * there. */
void mg_open_paren(mg_rewrite *rw, const char *word, const char *closer);
/* Die naming the bodies file, the line of the body being written, the
 * macro op and the part: "FILE:LINE: macro op M, part K (MNEMONIC): ...". */
void mg_fail(const mg_rewrite *rw, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));
/* The same for a part before its body is written (the body's first line). */
void mg_part_fail(const mg_part *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

#endif
