/*
 * time_model.h - the time a profiled program spends, predicted from what
 * the build that ran stores about its costs (schema 8: machine
 * instructions per execution of each opcode's handler, dispatch included,
 * and per dispatch; bench/op_costs.sh measures them), and so the time a
 * set of macro ops saves.
 *
 * The model: a block's time is the sum of its instructions' costs; a
 * macro op that replaces n instructions saves n - 1 dispatches, each
 * worth the dispatch cost, and nothing else (its parts' work is still
 * done).  A benchmark's time weighs 1, as its dispatches do, so one
 * dispatch removed from a block saves
 *     tweight = weight x dispatch cost / (the benchmark's time per dispatch)
 * of the benchmark's time: more in a program of cheap instructions than in
 * one of expensive ones.  An opcode without a stored cost in a run that
 * has others costs that run's mean per executed instruction.
 */
#ifndef AN_TIME_MODEL_H
#define AN_TIME_MODEL_H

#include "profile_model.h"

/* Set every block's tweight (p normalised, an_normalise).  A benchmark
 * any of whose runs stores no costs gets 0 everywhere.  0, or -1 when out
 * of memory. */
int an_time_weights(an_profile *p);

/* The first run of p that stores no costs of its build, or NULL. */
const an_run *an_untimed_run(const an_profile *p);

/* 1 when every run of p has a time model (so time shares are defined). */
int an_profile_timed(const an_profile *p);

#endif
