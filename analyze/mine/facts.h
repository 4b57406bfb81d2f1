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
#include "profile_model.h"

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

/* What the facts of an n-gram say, as data: the register each element
 * passes to the next (where at least half of the executions do) and
 * whether it is dead after; per element with a numeric immediate (in at
 * least half of them), the narrowest width 99% fit and the constants
 * that make up at least half.  Parts and operands count from 0. */
typedef struct an_carry {
    uint8_t from_part, from_operand, to_part, to_operand;
    double share; /* of the executions */
    double dead;  /* of those: nothing reads the register after the n-gram */
} an_carry;

typedef struct an_imm_fact {
    uint8_t part;
    int8_t fit;   /* AN_FIT_U8 ..., or -1: none of them holds for 99% */
    double share; /* of the executions with this immediate */
    unsigned nvalues;
    int64_t value[AN_VALUES];
    double value_share[AN_VALUES]; /* of the executions with the immediate */
} an_imm_fact;

typedef struct an_fact_list {
    an_carry carry[AN_MAX_N - 1];
    unsigned ncarries;
    an_imm_fact imm[AN_MAX_N];
    unsigned nimms;
} an_fact_list;

void an_facts_list(const an_facts *f, unsigned n, an_fact_list *out);

/* The width names: "u8", "s8", "u16", "s32". */
const char *an_fit_name(int fit);

/* A compact operand pattern of the list: "1.a>2.a dead, 1.imm:u8, 1.imm=1"
 * (parts count from 1 there, operands are letters). */
void an_facts_pattern(const an_facts *f, unsigned n, char *buf, size_t cap);

#endif
