/*
 * shapes.h - what a candidate macro op looks like as an instruction: its
 * parts and which of their register operands are one macro register (the
 * register a part writes and a later one reads, a register several parts
 * read), decided from the executions of its n-gram; the pattern the cover
 * matches it with (fusion/cover.h, the pattern the VM's fusion pass uses);
 * and whether the VM can build it.
 *
 * Two operands become one macro register when they hold the same register
 * in the occurrences that make up at least AN_UNIFY of the n-gram's
 * executions (the most frequent register layouts first): the macro op then
 * has fewer operands, its parts pass the value in a machine register, and
 * it matches only where that holds - the share it matches is `matched`.
 */
#ifndef AN_SHAPES_H
#define AN_SHAPES_H

#include <stddef.h>
#include <stdint.h>

#include "cover.h"
#include "macro_set.h"
#include "ngrams.h"
#include "profile_model.h"

#define AN_UNIFY 0.9     /* share of executions the unified operands must hold in */
#define AN_SHAPE_POS 32  /* register operands of an n-gram that unification looks at */

typedef struct an_shape {
    fu_macro macro;     /* the op as the .macros file states it: parts flattened
                         * to baseline ops (a macro part's own parts) */
    fu_pattern pattern; /* the n-gram's ops (global indices), unified operands */
    double matched;     /* share of the n-gram's weight the pattern matches */
    int buildable;      /* within the VM's limits (registers, immediates, parts) */
} an_shape;

/* An instruction as the cover matches it: its registers are its
 * function's register ids (regs.h); an opaque instruction gets opcode
 * AN_OPAQUE_OPCODE, which no pattern has (a pattern's opcode that a
 * profile does not have is AN_NO_OPCODE, which no instruction has). */
#define AN_NO_OPCODE UINT16_MAX
#define AN_OPAQUE_OPCODE (UINT16_MAX - 1)
void an_insn_key(const an_insn *in, fu_insn *out);

/* The shapes of grams[0..n) from their occurrences in the executed blocks
 * of p; shapes[i] belongs to grams[i].  Uses the grams' tag field.
 * Returns 0, or -1 when out of memory. */
int an_shapes_collect(const an_profile *p, an_grams *table, an_gram **grams, size_t n,
                      an_shape *shapes);

/* A pattern of profile `from` in the opcode numbers of profile `to`
 * (matched by name; an opcode `to` does not have matches nothing). */
void an_pattern_remap(const fu_pattern *pattern, const an_profile *from, const an_profile *to,
                      fu_pattern *out);

/* The opcode numbers of profile p by mnemonic, for fu_pattern_of: ctx is
 * the profile (-1 for a mnemonic it does not have). */
int an_opcode_by_name(void *ctx, const char *mnemonic);

#endif
