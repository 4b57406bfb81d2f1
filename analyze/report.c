/*
 * report.c - rendering the proposals and the n-gram ranking.  Shares are
 * of all executed instructions with every benchmark weighing the same.
 */
#include "report.h"

#include <inttypes.h>
#include <string.h>

#include "json_out.h"

static double pct(double part, double whole)
{
    return whole > 0 ? 100.0 * part / whole : 0;
}

static void where_text(const an_report *r, const an_proposal *pr, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < AN_WHERE && pr->where[k].weight > 0 && len < cap; k++) {
        const an_where *w = &pr->where[k];
        const an_run *run = &r->p->runs[w->run];
        len += (size_t)snprintf(buf + len, cap - len, "%s%s:%s+%" PRIu32, k ? ", " : "",
                                run->benchmark ? run->benchmark : "?", run->funcs[w->func].name,
                                w->off);
    }
}

static double test_removed(const an_report *r)
{
    double sum = 0;
    for (size_t i = 0; i < r->nprops; i++)
        sum += r->test_marginal[i];
    return pct(sum, an_total_weight(r->test));
}

void an_choice_note(const an_choice *c, size_t chosen, char *buf, size_t cap)
{
    size_t rest = c->candidates - chosen;
    char least[64], others[64];
    if (c->min_saving > 0)
        snprintf(least, sizeof least, "save%s at least %g%% of all dispatches%s", chosen == 1 ? "s" : "",
                 100 * c->min_saving, chosen > 1 ? " each" : "");
    else
        snprintf(least, sizeof least, "remove%s any dispatch", chosen == 1 ? "s" : "");
    if (rest == 1)
        snprintf(others, sizeof others, "the other candidate considered saves");
    else
        snprintf(others, sizeof others, "the other %zu candidates considered save", rest);
    buf[0] = '\0';
    if (chosen >= c->k)
        return;
    if (c->executed == 0)
        snprintf(buf, cap, "No macro op: no n-gram ran.");
    else if (chosen == 0)
        snprintf(buf, cap, "No macro op would %s: none of the %zu candidates considered does.", least,
                 c->candidates);
    else if (chosen == c->candidates && c->candidates < c->executed)
        snprintf(buf, cap, "Only %zu of the %zu macro ops asked for: every candidate considered was "
                           "chosen (%zu of %zu n-grams that ran; --pool considers more).",
                 chosen, c->k, c->candidates, c->executed);
    else if (chosen == c->candidates)
        snprintf(buf, cap, "Only %zu of the %zu macro ops asked for: every n-gram that ran was chosen.",
                 chosen, c->k);
    else
        snprintf(buf, cap, "Only %zu of the %zu macro ops asked for %s: %s %snothing beside the ops "
                           "chosen.",
                 chosen, c->k, least, others, c->min_saving > 0 ? "less, or " : "");
}

/* The operand facts as fields: "carries": [...], "immediates": [...]. */
static void json_facts(FILE *out, const an_facts *f, unsigned n)
{
    an_fact_list l;
    an_facts_list(f, n, &l);
    fputs("\"carries\": [", out);
    for (unsigned i = 0; i < l.ncarries; i++) {
        const an_carry *c = &l.carry[i];
        fprintf(out, "%s{\"from_part\": %u, \"from_operand\": %u, \"to_part\": %u, "
                     "\"to_operand\": %u, \"share\": %.6g, \"dead\": %.6g}",
                i ? ", " : "", c->from_part + 1, c->from_operand, c->to_part + 1, c->to_operand,
                c->share, c->dead);
    }
    fputs("], \"immediates\": [", out);
    for (unsigned i = 0; i < l.nimms; i++) {
        const an_imm_fact *im = &l.imm[i];
        fprintf(out, "%s{\"part\": %u, \"fits\": ", i ? ", " : "", im->part + 1);
        if (im->fit >= 0)
            an_json_string(out, an_fit_name(im->fit));
        else
            fputs("null", out);
        fprintf(out, ", \"values\": [");
        for (unsigned k = 0; k < im->nvalues; k++)
            fprintf(out, "%s{\"value\": %" PRId64 ", \"share\": %.6g}", k ? ", " : "",
                    im->value[k], im->value_share[k]);
        fputs("]}", out);
    }
    fputc(']', out);
}

/* The macro op a proposal is: its name, its parts with the macro registers
 * their operands are ("x0") and their immediates ("imm"), the share of the
 * n-gram's executions it matches. */
static void json_shape(FILE *out, const an_shape *sh)
{
    fputs("\"name\": ", out);
    an_json_string(out, sh->macro.name);
    fputs(", \"parts\": [", out);
    for (unsigned k = 0; k < sh->macro.nparts; k++) {
        const fu_part *pt = &sh->macro.part[k];
        fprintf(out, "%s{\"op\": ", k ? ", " : "");
        an_json_string(out, pt->op);
        fputs(", \"operands\": [", out);
        for (unsigned j = 0; j < pt->nregs; j++)
            fprintf(out, "%s\"%c%u\"", j ? ", " : "", sh->macro.cls[pt->reg[j]], pt->reg[j]);
        for (unsigned j = 0; j < pt->nimms; j++)
            fprintf(out, "%s\"imm\"", pt->nregs || j ? ", " : "");
        fputs("]}", out);
    }
    fprintf(out, "], \"macro_registers\": %u, \"macro_immediates\": %u, \"matched\": %.6g, "
                 "\"buildable\": %s",
            sh->macro.nregs, sh->macro.nimms, sh->matched, sh->buildable ? "true" : "false");
}

static void print_json(FILE *out, const an_report *r)
{
    char seq[512], pat[512];
    fprintf(out, "{\n  \"runs\": [");
    for (size_t i = 0; i < r->p->nruns; i++) {
        const an_run *run = &r->p->runs[i];
        fprintf(out, "%s\n    {\"db\": ", i ? "," : "");
        an_json_string(out, run->db);
        fprintf(out, ", \"id\": %" PRId64 ", \"benchmark\": ", run->id);
        an_json_string(out, run->benchmark ? run->benchmark : "");
        fprintf(out, ", \"exact\": %s}", run->exact ? "true" : "false");
    }
    fprintf(out, "\n  ],\n  \"benchmarks\": %zu,\n", r->p->nbenches);
    if (r->choice)
        fprintf(out, "  \"choice\": {\"asked\": %zu, \"pool\": %zu, \"min_saving\": %.6g, "
                     "\"candidates\": %zu, \"executed\": %zu},\n",
                r->choice->k, r->choice->pool, 100 * r->choice->min_saving, r->choice->candidates,
                r->choice->executed);
    fputs("  \"proposals\": [", out);
    for (size_t i = 0; i < r->nprops; i++) {
        const an_proposal *pr = &r->props[i];
        an_facts_pattern(&r->prop_facts[i], pr->gram->n, pat, sizeof pat);
        fprintf(out, "%s\n    {\"rank\": %zu, \"ops\": [", i ? "," : "", i + 1);
        for (unsigned k = 0; k < pr->gram->n; k++) {
            fputs(k ? ", " : "", out);
            an_json_string(out, r->p->opnames[pr->gram->ops[k]]);
        }
        fputs("], \"pattern\": ", out);
        an_json_string(out, pat);
        fputs(", ", out);
        json_facts(out, &r->prop_facts[i], pr->gram->n);
        fputs(", ", out);
        json_shape(out, &pr->shape);
        fprintf(out, ", \"share\": %.6g, \"saving\": %.6g, \"cumulative\": %.6g, \"benchmarks\": %" PRIu32
                     ", \"where\": [",
                pct(pr->gram->weight, r->total), pct(pr->saving, r->total), 100 * pr->cumulative,
                pr->benches);
        for (int k = 0; k < AN_WHERE && pr->where[k].weight > 0; k++) {
            const an_run *run = &r->p->runs[pr->where[k].run];
            fputs(k ? ", {\"function\": " : "{\"function\": ", out);
            an_json_string(out, run->funcs[pr->where[k].func].name);
            fprintf(out, ", \"offset\": %" PRIu32 ", \"run\": %" PRId64 "}", pr->where[k].off, run->id);
        }
        if (r->test_marginal)
            fprintf(out, "], \"test_saving\": %.6g}", pct(r->test_marginal[i], an_total_weight(r->test)));
        else
            fputs("]}", out);
    }
    if (r->test_marginal) {
        fprintf(out, "\n  ],\n  \"test\": {\"label\": ");
        an_json_string(out, r->test_label);
        fprintf(out, ", \"runs\": %zu, \"benchmarks\": %zu, \"removed\": %.6g}", r->test->nruns,
                r->test->nbenches, test_removed(r));
        fprintf(out, ",\n  \"ngrams\": [");
    } else {
        fprintf(out, "\n  ],\n  \"ngrams\": [");
    }
    for (size_t i = 0; i < r->ntop; i++) {
        const an_gram *g = r->top[i];
        an_gram_text(r->p, g, seq, sizeof seq);
        an_facts_pattern(&r->top_facts[i], g->n, pat, sizeof pat);
        fprintf(out, "%s\n    {\"rank\": %zu, \"n\": %u, \"sequence\": ", i ? "," : "", i + 1, g->n);
        an_json_string(out, seq);
        fputs(", \"pattern\": ", out);
        an_json_string(out, pat);
        fputs(", ", out);
        json_facts(out, &r->top_facts[i], g->n);
        fprintf(out, ", \"count\": %.6g, \"share\": %.6g, \"static\": %" PRIu64
                     ", \"functions\": %" PRIu32 ", \"benchmarks\": %" PRIu32 "}",
                g->count, pct(g->weight, r->total), g->statics, g->funcs, g->benches);
    }
    fputs("\n  ]\n}\n", out);
}

static void proposal_table(const an_report *r, an_table *t, int csv)
{
    static const char *const all_heads[] = {"rank", "macro op", "operand pattern", "share %",
                                            "saving %", "cumul %", "test %", "benchmarks", "where"};
    static const char *const heads[] = {"rank", "macro op", "operand pattern", "share %",
                                        "saving %", "cumul %", "benchmarks", "where"};
    int test = r->test_marginal != NULL;
    an_table_init(t, 7 + (size_t)csv + (size_t)test, test ? all_heads : heads,
                  test ? "rllrrrrrl" : "rllrrrrl");
    char rank[24], seq[512], pat[512], share[32], save[32], cum[32], tsave[32], bench[32], where[512];
    double test_total = test ? an_total_weight(r->test) : 0;
    for (size_t i = 0; i < r->nprops; i++) {
        const an_proposal *pr = &r->props[i];
        snprintf(rank, sizeof rank, "%zu", i + 1);
        an_gram_text(r->p, pr->gram, seq, sizeof seq);
        an_facts_pattern(&r->prop_facts[i], pr->gram->n, pat, sizeof pat);
        snprintf(share, sizeof share, "%.2f", pct(pr->gram->weight, r->total));
        snprintf(save, sizeof save, "%.2f", pct(pr->saving, r->total));
        snprintf(cum, sizeof cum, "%.2f", 100 * pr->cumulative);
        snprintf(tsave, sizeof tsave, "%.2f", test ? pct(r->test_marginal[i], test_total) : 0.0);
        snprintf(bench, sizeof bench, "%" PRIu32 "/%zu", pr->benches, r->p->nbenches);
        where_text(r, pr, where, sizeof where);
        const char *row[] = {rank, seq, pat, share, save, cum, tsave, bench, where};
        const char *plain[] = {rank, seq, pat, share, save, cum, bench, where};
        an_table_row(t, test ? row : plain);
    }
}

static void ngram_table(const an_report *r, an_table *t)
{
    static const char *const heads[] = {"rank", "n-gram", "operand pattern", "est. count",
                                        "share %", "static", "functions", "benchmarks"};
    an_table_init(t, 8, heads, "rllrrrrr");
    char rank[24], seq[512], pat[512], count[32], share[32], st[32], fn[32], bench[32];
    for (size_t i = 0; i < r->ntop; i++) {
        const an_gram *g = r->top[i];
        snprintf(rank, sizeof rank, "%zu", i + 1);
        an_gram_text(r->p, g, seq, sizeof seq);
        an_facts_pattern(&r->top_facts[i], g->n, pat, sizeof pat);
        snprintf(count, sizeof count, "%.0f", g->count);
        snprintf(share, sizeof share, "%.2f", pct(g->weight, r->total));
        snprintf(st, sizeof st, "%" PRIu64, g->statics);
        snprintf(fn, sizeof fn, "%" PRIu32, g->funcs);
        snprintf(bench, sizeof bench, "%" PRIu32, g->benches);
        const char *row[] = {rank, seq, pat, count, share, st, fn, bench};
        an_table_row(t, row);
    }
}

void an_report_print(FILE *out, const an_report *r, an_format fmt)
{
    if (fmt == AN_JSON) {
        print_json(out, r);
        return;
    }
    an_table props, grams;
    proposal_table(r, &props, fmt == AN_CSV);
    ngram_table(r, &grams);
    if (fmt == AN_CSV) {
        an_table_print(out, &props, fmt);
        fputc('\n', out);
        an_table_print(out, &grams, fmt);
    } else {
        const char *h = fmt == AN_MARKDOWN ? "## " : "";
        double removed = r->nprops ? 100 * r->props[r->nprops - 1].cumulative : 0;
        fprintf(out, "%sProposed macro ops: %zu, removing %.2f%% of all dispatches (%zu runs, %zu benchmarks)\n\n",
                h, r->nprops, removed, r->p->nruns, r->p->nbenches);
        char note[512] = "";
        if (r->choice)
            an_choice_note(r->choice, r->nprops, note, sizeof note);
        if (*note)
            fprintf(out, "%s\n\n", note);
        if (r->test_marginal)
            fprintf(out, "On the runs labelled %s (%zu runs, %zu benchmarks) they remove %.2f%%\n\n",
                    r->test_label, r->test->nruns, r->test->nbenches, test_removed(r));
        an_table_print(out, &props, fmt);
        if (fmt == AN_TEXT && r->nprops) {
            fputs("\nwhere:\n", out);
            char where[512];
            for (size_t i = 0; i < r->nprops; i++) {
                where_text(r, &r->props[i], where, sizeof where);
                fprintf(out, "  %zu: %s\n", i + 1, where);
            }
        }
        fprintf(out, "\n%sHottest n-grams\n\n", h);
        an_table_print(out, &grams, fmt);
    }
    an_table_free(&props);
    an_table_free(&grams);
}
