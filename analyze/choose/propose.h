/*
 * propose.h - choosing a set of macro ops greedily by marginal saving,
 * where the saving of a set is the dispatches its optimal cover of every
 * executed block removes (weighted by block frequency), never a sum of
 * overlapping n-gram counts.
 */
#ifndef AN_PROPOSE_H
#define AN_PROPOSE_H

#include <stddef.h>
#include <stdint.h>

#include "ngrams.h"
#include "profile_model.h"
#include "shapes.h"

#define AN_WHERE 3 /* locations reported per proposal */

typedef struct an_where {
    uint32_t run, func, off; /* run and function index in the profile */
    double weight;
} an_where;

typedef struct an_proposal {
    const an_gram *gram;
    an_shape shape;    /* its operands as a macro op, and the pattern it matches */
    double saving;     /* marginal: normalised dispatches removed */
    double cumulative; /* share of all dispatches removed by this op and those before */
    double time_saving;     /* marginal: normalised time saved (time_model.h; 0 without one) */
    double time_cumulative; /* share of all time saved by this op and those before */
    uint32_t benches;  /* benchmarks where it removes dispatches */
    an_where where[AN_WHERE];
} an_proposal;

/* The smallest saving worth an opcode, as a share of all dispatches: the
 * choice stops before an op that removes less (one in code that hardly
 * ran) or nothing (its occurrences are already covered by chosen ops). */
#define AN_MIN_SAVING 1e-4

/* What a candidate op is judged by when the next one is chosen. */
typedef enum an_objective {
    AN_OBJECTIVE_SHARED, /* default: its saving, discounted when one benchmark
                            alone needs it (the geometric mean of the saving
                            and the saving beside its best benchmark) */
    AN_OBJECTIVE_TOTAL,  /* its saving on the profiled programs */
    AN_OBJECTIVE_TIME    /* as shared, in the time it saves (time_model.h):
                            only where every run stores its build's costs */
} an_objective;

typedef struct an_choice {
    /* asked for */
    size_t k;          /* ops to choose */
    size_t pool;       /* hottest n-grams considered */
    double min_saving; /* share of all dispatches each op must remove */
    an_objective objective;
    int include_adaptive; /* adaptive opcodes were mined too */
    /* found */
    size_t candidates; /* n-grams considered: at most pool */
    size_t executed;   /* distinct n-grams that ran, the pool's source */
    size_t adaptive_ops;   /* adaptive opcodes that ran */
    double adaptive_share; /* their share of all dispatches (0..1) */
} an_choice;

/* The objective's name ("shared", "total", "time"), and the objective of a name:
 * 0, or -1 for a name of none. */
const char *an_objective_name(an_objective o);
int an_objective_parse(const char *name, an_objective *o);

/* Choose up to c->k macro ops among the c->pool hottest n-grams of grams
 * (ranked by weight x (n - 1)), the best by c->objective first (the
 * larger saving among equals), each removing at least c->min_saving of
 * all dispatches beside those chosen before it.  Fills out[0..returned)
 * and c's counts; -1 if out of memory.  Fewer than k are returned only
 * when no other candidate saves enough; each saving in out is the op's
 * true marginal saving beside out[0..k), so the last cumulative share is
 * what the set removes.  Uses the grams' tag field. */
int an_propose(const an_profile *p, an_grams *grams, an_choice *c, an_proposal *out);

#endif
