/*
 * ngrams_evaluation.c - the --evaluate report: a sentence, a table of the
 * ops with their savings and one of the benchmarks with the dispatches the
 * set removes from each; JSON with the same figures.
 */
#include "ngrams_evaluation.h"

#include <stdio.h>

#include "json_out.h"

/* The percentage of all dispatches (or of the time) removed by the set. */
static double removed_share(const an_evaluation *e, const double *marginal)
{
    double removed = 0;
    for (size_t k = 0; k < e->set->n; k++)
        removed += marginal[k];
    return e->total > 0 ? 100 * removed / e->total : 0;
}

static double percent(const an_evaluation *e, double v)
{
    return e->total > 0 ? 100 * v / e->total : 0;
}

static void print_json(FILE *out, const an_evaluation *e)
{
    fputs("{\n  \"file\": ", out);
    an_json_string(out, e->file);
    fprintf(out, ",\n  \"runs\": %zu,\n  \"removed\": %.6g,", an_profile_nread(e->p),
            removed_share(e, e->marginal));
    if (e->time_marginal)
        fprintf(out, "\n  \"time_saved\": %.6g,", removed_share(e, e->time_marginal));
    fputs("\n  \"ops\": [", out);
    for (size_t k = 0; k < e->set->n; k++) {
        fprintf(out, "%s\n    {\"name\": ", k ? "," : "");
        an_json_string(out, e->set->macros[k].name);
        fprintf(out, ", \"saving\": %.6g", percent(e, e->marginal[k]));
        if (e->time_marginal)
            fprintf(out, ", \"time_saving\": %.6g", percent(e, e->time_marginal[k]));
        if (e->set->macros[k].predicted >= 0)
            fprintf(out, ", \"predicted_where_chosen\": %.6g", e->set->macros[k].predicted);
        fputc('}', out);
    }
    fputs("\n  ],\n  \"benchmarks\": [", out);
    for (size_t b = 0; b < e->p->nbenches; b++) {
        const an_bench_saving *s = &e->per_bench[b];
        fprintf(out, "%s\n    {\"benchmark\": ", b ? "," : "");
        an_json_string(out, e->p->benches[b]);
        fprintf(out, ", \"dispatches\": %.17g, \"removed\": %.17g, \"share\": %.6g",
                s->dispatches, s->removed, 100 * s->share);
        if (e->time_marginal)
            fprintf(out, ", \"time_share\": %.6g", 100 * s->time_share);
        fputc('}', out);
    }
    fputs("\n  ]\n}\n", out);
}

void an_evaluation_print(FILE *out, const an_evaluation *e, an_format fmt)
{
    if (fmt == AN_JSON) {
        print_json(out, e);
        return;
    }
    static const char *const op_heads[] = {"op", "macro op", "saving %", "where chosen %",
                                           "time %"};
    static const char *const bench_heads[] = {"benchmark", "dispatches", "removed", "removed %",
                                              "time saved %"};
    int timed = e->time_marginal != NULL;
    an_table ops, benches;
    an_table_init(&ops, 4 + timed, op_heads, "rlrrr");
    an_table_init(&benches, 4 + timed, bench_heads, "lrrrr");
    char rank[24], save[32], where[32], disp[48], rem[48], share[32], time[32];
    for (size_t k = 0; k < e->set->n; k++) {
        const fu_macro *m = &e->set->macros[k];
        snprintf(rank, sizeof rank, "%zu", k + 1);
        snprintf(save, sizeof save, "%.2f", percent(e, e->marginal[k]));
        if (timed)
            snprintf(time, sizeof time, "%.2f", percent(e, e->time_marginal[k]));
        if (m->predicted >= 0)
            snprintf(where, sizeof where, "%.2f", m->predicted);
        else
            snprintf(where, sizeof where, "-");
        const char *row[] = {rank, m->name, save, where, time};
        an_table_row(&ops, row);
    }
    for (size_t b = 0; b < e->p->nbenches; b++) {
        const an_bench_saving *s = &e->per_bench[b];
        snprintf(disp, sizeof disp, "%.0f", s->dispatches);
        snprintf(rem, sizeof rem, "%.0f", s->removed);
        snprintf(share, sizeof share, "%.2f", 100 * s->share);
        snprintf(time, sizeof time, "%.2f", 100 * s->time_share);
        const char *row[] = {e->p->benches[b], disp, rem, share, time};
        an_table_row(&benches, row);
    }
    if (fmt == AN_CSV) {
        an_table_print(out, &benches, fmt);
    } else {
        const char *h = fmt == AN_MARKDOWN ? "## " : "";
        fprintf(out, "%sThe %zu macro ops of %s remove %.2f%% of all dispatches", h, e->set->n,
                e->file, removed_share(e, e->marginal));
        if (timed)
            fprintf(out, " and, predicted from the builds' costs, %.2f%% of the time",
                    removed_share(e, e->time_marginal));
        fprintf(out, " (%zu runs, %zu benchmarks)\n\n", an_profile_nread(e->p), e->p->nbenches);
        an_table_print(out, &ops, fmt);
        fputc('\n', out);
        an_table_print(out, &benches, fmt);
    }
    an_table_free(&ops);
    an_table_free(&benches);
}
