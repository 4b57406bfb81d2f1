/*
 * facts.h - operand facts of n-grams, weighted by execution frequency:
 * which register carries a value from one element to the next (operand
 * positions a, b, c, d as in the opcode semantics) and whether it is dead
 * after the n-gram, the widths immediates fit (u8, s8, u16, s32), and
 * recurring constant values.  These turn "constant, then add" into "add
 * with an 8-bit immediate".
 */
#ifndef AN_FACTS_H
#define AN_FACTS_H

#include <stddef.h>
#include <stdint.h>

#include "ngrams.h"
#include "profile.h"

enum { AN_FIT_U8, AN_FIT_S8, AN_FIT_U16, AN_FIT_S32, AN_FITS };
#define AN_VALUES 4 /* constants tracked per element (Misra-Gries) */

typedef struct an_facts {
    double w; /* weight of the hot occurrences seen */
    /* [pair k][def operand * 4 + use operand]: element k writes the
     * register element k + 1 reads; dead: and nothing reads it after. */
    double carry[AN_MAX_N - 1][16];
    double dead[AN_MAX_N - 1][16];
    double imm_w[AN_MAX_N];           /* weight with a numeric immediate */
    double fits[AN_MAX_N][AN_FITS];
    int64_t value[AN_MAX_N][AN_VALUES];
    double value_w[AN_MAX_N][AN_VALUES]; /* lower bounds of each value's weight */
} an_facts;

/* Facts of grams[0..n) over the hot blocks of p (liveness must be done).
 * facts[i] belongs to grams[i].  Uses the grams' tag field.  0 or -1. */
int an_facts_collect(const an_profile *p, an_grams *table, an_gram **grams, size_t n,
                     an_facts *facts);

/* A compact operand pattern: "1.a>2.a dead, 1.imm:u8, 1.imm=1". */
void an_facts_pattern(const an_facts *f, unsigned n, char *buf, size_t cap);

#endif
