/*
 * ngrams_report.c - rendering the proposals and the n-gram ranking.  Shares are
 * of all executed instructions with every benchmark weighing the same.
 */
#include "ngrams_report.h"

#include <inttypes.h>
#include <string.h>

#include "json_out.h"
#include "time_model.h"

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
        len += (size_t)snprintf(buf + len, cap - len, "%s%s:%s+0x%04" PRIx32, k ? ", " : "",
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
            fprintf(out, "%s\"%s%u\"", j ? ", " : "", sh->macro.kind[pt->reg[j]], pt->reg[j]);
        for (unsigned j = 0; j < pt->nimms; j++)
            fprintf(out, "%s\"imm\"", pt->nregs || j ? ", " : "");
        fputs("]}", out);
    }
    fprintf(out, "], \"macro_registers\": %u, \"macro_immediates\": %u, \"matched\": %.6g, "
                 "\"buildable\": %s",
            sh->macro.nregs, sh->macro.nimms, sh->matched, sh->buildable ? "true" : "false");
}

/* "share": percent, "share_ci95": half the 95% interval in points (null
 * where shares are not sampled). */
static void json_share(FILE *out, const an_report *r, const an_gram *g)
{
    double share = r->total > 0 ? g->weight / r->total : 0, neff = an_profile_effective_samples(r->p);
    fprintf(out, "\"share\": %.6g, \"share_ci95\": ", 100 * share);
    if (neff > 0)
        fprintf(out, "%.6g", 100 * an_share_halfwidth(share, neff));
    else
        fputs("null", out);
}

/* The runs and how the ops were chosen: the first members of the JSON
 * report. */
static void json_runs(FILE *out, const an_report *r)
{
    fprintf(out, "{\n  \"runs\": [");
    for (size_t i = 0; i < an_profile_nread(r->p); i++) {
        const an_run *run = &r->p->runs[i];
        const an_member *m = r->p->nmembers ? &r->p->members[i] : NULL;
        fprintf(out, "%s\n    {\"db\": ", i ? "," : "");
        an_json_string(out, m ? m->db : run->db);
        fprintf(out, ", \"id\": %" PRId64 ", \"benchmark\": ", m ? m->id : run->id);
        const char *bench = m ? m->benchmark : run->benchmark;
        an_json_string(out, bench ? bench : "");
        fprintf(out, ", \"exact\": %s}", (m ? m->exact : run->exact) ? "true" : "false");
    }
    fprintf(out, "\n  ],\n  \"benchmarks\": %zu,\n  \"shares\": ", r->p->nbenches);
    an_json_string(out, an_shares_word(an_profile_shares(r->p)));
    fprintf(out, ",\n  \"effective_samples\": %.6g,\n  \"timed\": %s,\n",
            an_profile_effective_samples(r->p), an_profile_timed(r->p) ? "true" : "false");
    if (r->choice)
        fprintf(out, "  \"choice\": {\"asked\": %zu, \"pool\": %zu, \"min_saving\": %.6g, "
                     "\"objective\": \"%s\", \"candidates\": %zu, \"executed\": %zu, \"adaptive\": {\"ran\": %zu, "
                     "\"share\": %.6g, \"mined\": %s}},\n",
                r->choice->k, r->choice->pool, 100 * r->choice->min_saving,
                an_objective_name(r->choice->objective), r->choice->candidates,
                r->choice->executed, r->choice->adaptive_ops, 100 * r->choice->adaptive_share,
                r->choice->include_adaptive ? "true" : "false");
}

/* The places where proposal pr occurs most, as the members of its "where". */
static void json_where(FILE *out, const an_report *r, const an_proposal *pr)
{
    for (int k = 0; k < AN_WHERE && pr->where[k].weight > 0; k++) {
        const an_run *run = &r->p->runs[pr->where[k].run];
        fputs(k ? ", {\"db\": " : "{\"db\": ", out);
        const an_func *f = &run->funcs[pr->where[k].func];
        an_json_string(out, an_func_db(run, f));
        fprintf(out, ", \"run\": %" PRId64 ", \"benchmark\": ", an_func_run(run, f));
        an_json_string(out, run->benchmark ? run->benchmark : "");
        fputs(", \"function\": ", out);
        an_json_string(out, run->funcs[pr->where[k].func].name);
        fprintf(out, ", \"offset\": %" PRIu32 ", \"offset_hex\": \"0x%04" PRIx32 "\"}",
                pr->where[k].off, pr->where[k].off);
    }
}

/* Proposal i, a member of "proposals". */
static void json_proposal(FILE *out, const an_report *r, size_t i)
{
    char pat[512];
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
    fputs(", ", out);
    json_share(out, r, pr->gram);
    fprintf(out, ", \"saving\": %.6g, \"cumulative\": %.6g, ", pct(pr->saving, r->total),
            100 * pr->cumulative);
    if (an_profile_timed(r->p))
        fprintf(out, "\"time_saving\": %.6g, \"time_cumulative\": %.6g, ",
                pct(pr->time_saving, r->total), 100 * pr->time_cumulative);
    fprintf(out, "\"benchmarks\": %" PRIu32 ", \"where\": [", pr->benches);
    json_where(out, r, pr);
    if (r->test_marginal)
        fprintf(out, "], \"test_saving\": %.6g}", pct(r->test_marginal[i], an_total_weight(r->test)));
    else
        fputs("]}", out);
}

/* N-gram i of the hottest, a member of "ngrams". */
static void json_ngram(FILE *out, const an_report *r, size_t i)
{
    char seq[512], pat[512];
    const an_gram *g = r->top[i];
    an_gram_text(r->p, g, seq, sizeof seq);
    an_facts_pattern(&r->top_facts[i], g->n, pat, sizeof pat);
    fprintf(out, "%s\n    {\"rank\": %zu, \"n\": %u, \"sequence\": ", i ? "," : "", i + 1, g->n);
    an_json_string(out, seq);
    fputs(", \"pattern\": ", out);
    an_json_string(out, pat);
    fputs(", ", out);
    json_facts(out, &r->top_facts[i], g->n);
    fprintf(out, ", \"count\": %.6g, ", g->count);
    json_share(out, r, g);
    fprintf(out, ", \"static\": %" PRIu64 ", \"functions\": %" PRIu32 ", \"benchmarks\": %" PRIu32 "}",
            g->statics, g->funcs, g->benches);
}

static void print_json(FILE *out, const an_report *r)
{
    json_runs(out, r);
    fputs("  \"proposals\": [", out);
    for (size_t i = 0; i < r->nprops; i++)
        json_proposal(out, r, i);
    if (r->test_marginal) {
        fprintf(out, "\n  ],\n  \"test\": {\"label\": ");
        an_json_string(out, r->test_label);
        fprintf(out, ", \"runs\": %zu, \"benchmarks\": %zu, \"removed\": %.6g}", an_profile_nread(r->test),
                r->test->nbenches, test_removed(r));
        fprintf(out, ",\n  \"ngrams\": [");
    } else {
        fprintf(out, "\n  ],\n  \"ngrams\": [");
    }
    for (size_t i = 0; i < r->ntop; i++)
        json_ngram(out, r, i);
    fputs("\n  ]\n}\n", out);
}

/* The columns of the tables, in CSV order: text and markdown show a subset,
 * CSV all of them in one long table whose first column says which rows
 * are proposals, n-grams and the total. */
enum { C_TABLE, C_RANK, C_SEQ, C_PAT, C_COUNT, C_SHARE, C_CI, C_SAVE, C_CUM, C_TEST, C_STATIC,
       C_FUNCS, C_BENCH, C_WHERE, C_SHARES, C_TIME, C_TCUM, C_N };
static const char *const text_head[C_N] = {
    "table", "rank", "macro op", "operand pattern", "est. count", "share %", "+-95%", "saving %",
    "cumul %", "test %", "static", "functions", "benchmarks", "where", "shares", "time %",
    "time cumul %"};
static const char *const csv_head[C_N] = {
    "table", "rank", "sequence", "pattern", "est_count", "share_pct", "share_ci95_pct", "saving_pct",
    "cumulative_pct", "test_saving_pct", "static", "functions", "benchmarks", "where", "shares",
    "time_saving_pct", "time_cumulative_pct"};
static const char col_align[C_N + 1] = "lrllrrrrrrrrrllrr";

typedef struct {
    int cols[C_N], ncols;
    const char *heads[C_N];
    char align[C_N + 1];
} layout;

static void layout_add(layout *l, int col, int csv, const char *head)
{
    l->cols[l->ncols] = col;
    l->heads[l->ncols] = csv ? csv_head[col] : head ? head : text_head[col];
    l->align[l->ncols] = col_align[col];
    l->align[++l->ncols] = '\0';
}

/* Which columns a table shows: every one in CSV, else the proposals' or
 * the n-grams' own, with the interval where shares are sampled and the
 * places where no list follows the table. */
static void layout_make(layout *l, const an_report *r, an_format fmt, int ngrams)
{
    int csv = fmt == AN_CSV, sampled = an_profile_shares(r->p) == AN_SHARES_SAMPLED;
    l->ncols = 0;
    for (int c = 0; c < C_N; c++) {
        int show = csv || c == C_RANK || c == C_SEQ || c == C_PAT || c == C_SHARE || c == C_BENCH ||
                   (c == C_CI && sampled);
        if (!ngrams)
            show |= c == C_SAVE || c == C_CUM || (c == C_TEST && r->test_marginal) ||
                    (c == C_WHERE && fmt == AN_MARKDOWN) ||
                    ((c == C_TIME || c == C_TCUM) && an_profile_timed(r->p));
        else
            show |= c == C_COUNT || c == C_STATIC || c == C_FUNCS;
        if (show)
            layout_add(l, c, csv, c == C_SEQ && ngrams ? "n-gram" : NULL);
    }
}

static void layout_row(an_table *t, const layout *l, char cell[C_N][512])
{
    const char *row[C_N];
    for (int k = 0; k < l->ncols; k++)
        row[k] = cell[l->cols[k]];
    an_table_row(t, row);
}

/* The cells every row has: the share of g and its interval. */
static void share_cells(const an_report *r, const an_gram *g, double neff, char cell[C_N][512])
{
    double share = r->total > 0 ? g->weight / r->total : 0;
    snprintf(cell[C_SHARE], 512, "%.2f", 100 * share);
    if (neff > 0)
        snprintf(cell[C_CI], 512, "%.2f", 100 * an_share_halfwidth(share, neff));
    snprintf(cell[C_SHARES], 512, "%s", an_shares_word(an_profile_shares(r->p)));
}

static void proposal_rows(const an_report *r, an_table *t, const layout *l, double neff)
{
    char cell[C_N][512];
    double test_total = r->test_marginal ? an_total_weight(r->test) : 0;
    for (size_t i = 0; i < r->nprops; i++) {
        const an_proposal *pr = &r->props[i];
        memset(cell, 0, sizeof cell);
        snprintf(cell[C_TABLE], 512, "proposal");
        snprintf(cell[C_RANK], 512, "%zu", i + 1);
        an_gram_text(r->p, pr->gram, cell[C_SEQ], 512);
        an_facts_pattern(&r->prop_facts[i], pr->gram->n, cell[C_PAT], 512);
        snprintf(cell[C_COUNT], 512, "%.0f", pr->gram->count);
        share_cells(r, pr->gram, neff, cell);
        snprintf(cell[C_SAVE], 512, "%.2f", pct(pr->saving, r->total));
        snprintf(cell[C_CUM], 512, "%.2f", 100 * pr->cumulative);
        if (an_profile_timed(r->p)) {
            snprintf(cell[C_TIME], 512, "%.2f", pct(pr->time_saving, r->total));
            snprintf(cell[C_TCUM], 512, "%.2f", 100 * pr->time_cumulative);
        }
        if (r->test_marginal)
            snprintf(cell[C_TEST], 512, "%.2f", pct(r->test_marginal[i], test_total));
        snprintf(cell[C_STATIC], 512, "%" PRIu64, pr->gram->statics);
        snprintf(cell[C_FUNCS], 512, "%" PRIu32, pr->gram->funcs);
        snprintf(cell[C_BENCH], 512, "%" PRIu32 "/%zu", pr->benches, r->p->nbenches);
        where_text(r, pr, cell[C_WHERE], 512);
        layout_row(t, l, cell);
    }
}

static void ngram_rows(const an_report *r, an_table *t, const layout *l, double neff)
{
    char cell[C_N][512];
    for (size_t i = 0; i < r->ntop; i++) {
        const an_gram *g = r->top[i];
        memset(cell, 0, sizeof cell);
        snprintf(cell[C_TABLE], 512, "ngram");
        snprintf(cell[C_RANK], 512, "%zu", i + 1);
        an_gram_text(r->p, g, cell[C_SEQ], 512);
        an_facts_pattern(&r->top_facts[i], g->n, cell[C_PAT], 512);
        snprintf(cell[C_COUNT], 512, "%.0f", g->count);
        share_cells(r, g, neff, cell);
        snprintf(cell[C_STATIC], 512, "%" PRIu64, g->statics);
        snprintf(cell[C_FUNCS], 512, "%" PRIu32, g->funcs);
        snprintf(cell[C_BENCH], 512, "%" PRIu32, g->benches);
        layout_row(t, l, cell);
    }
}

/* CSV: the proposals, the n-grams, and one row of what the set removes. */
static void print_csv(FILE *out, const an_report *r, double neff)
{
    layout l;
    an_table t;
    layout_make(&l, r, AN_CSV, 0);
    an_table_init(&t, (size_t)l.ncols, l.heads, l.align);
    proposal_rows(r, &t, &l, neff);
    ngram_rows(r, &t, &l, neff);
    char cell[C_N][512];
    memset(cell, 0, sizeof cell);
    double removed = r->nprops ? 100 * r->props[r->nprops - 1].cumulative : 0;
    snprintf(cell[C_TABLE], 512, "total");
    snprintf(cell[C_SAVE], 512, "%.2f", removed);
    snprintf(cell[C_CUM], 512, "%.2f", removed);
    if (an_profile_timed(r->p) && r->nprops) {
        snprintf(cell[C_TIME], 512, "%.2f", 100 * r->props[r->nprops - 1].time_cumulative);
        snprintf(cell[C_TCUM], 512, "%s", cell[C_TIME]);
    }
    if (r->test_marginal)
        snprintf(cell[C_TEST], 512, "%.2f", test_removed(r));
    snprintf(cell[C_BENCH], 512, "%zu", r->p->nbenches);
    snprintf(cell[C_SHARES], 512, "%s", an_shares_word(an_profile_shares(r->p)));
    layout_row(&t, &l, cell);
    an_table_print(out, &t, AN_CSV);
    an_table_free(&t);
}

static void print_tables(FILE *out, const an_report *r, an_format fmt, double neff)
{
    const char *h = fmt == AN_MARKDOWN ? "## " : "";
    double removed = r->nprops ? 100 * r->props[r->nprops - 1].cumulative : 0;
    char note[512] = "";
    fprintf(out, "%sProposed macro ops: %zu, removing %.2f%% of all dispatches", h, r->nprops,
            removed);
    if (an_profile_timed(r->p))
        fprintf(out, " and, predicted from the builds' costs, %.2f%% of the time",
                r->nprops ? 100 * r->props[r->nprops - 1].time_cumulative : 0.0);
    fprintf(out, " (%zu runs, %zu benchmarks)\n\n", an_profile_nread(r->p), r->p->nbenches);
    an_shares_note(r->p, note, sizeof note);
    fprintf(out, "%s\n\n", note);
    if (r->choice && r->p->nbenches > 1)
        fprintf(out, "%s\n\n",
                r->choice->objective == AN_OBJECTIVE_TOTAL
                    ? "Ops are chosen by the dispatches they remove (--objective total)."
                : r->choice->objective == AN_OBJECTIVE_TIME
                    ? "Ops are chosen by the time they are predicted to save, an op that one "
                      "benchmark alone needs ranking below those several share (--objective time)."
                    : "Ops are chosen by the dispatches they remove, an op that one benchmark "
                      "alone needs ranking below those several share (--objective shared).");
    if (r->choice)
        an_choice_note(r->choice, r->nprops, note, sizeof note);
    if (r->choice && *note)
        fprintf(out, "%s\n\n", note);
    if (r->choice)
        an_adaptive_note(r->choice, note, sizeof note);
    if (r->choice && *note)
        fprintf(out, "%s\n\n", note);
    if (r->test_marginal)
        fprintf(out, "On the runs labelled %s (%zu runs, %zu benchmarks) they remove %.2f%%\n\n",
                r->test_label, an_profile_nread(r->test), r->test->nbenches, test_removed(r));
    layout l;
    an_table t;
    layout_make(&l, r, fmt, 0);
    an_table_init(&t, (size_t)l.ncols, l.heads, l.align);
    proposal_rows(r, &t, &l, neff);
    an_table_print(out, &t, fmt);
    an_table_free(&t);
    if (fmt == AN_TEXT && r->nprops) {
        fputs("\nwhere:\n", out);
        char where[512];
        for (size_t i = 0; i < r->nprops; i++) {
            where_text(r, &r->props[i], where, sizeof where);
            fprintf(out, "  %zu: %s\n", i + 1, where);
        }
    }
    fprintf(out, "\n%sHottest n-grams\n\n", h);
    layout_make(&l, r, fmt, 1);
    an_table_init(&t, (size_t)l.ncols, l.heads, l.align);
    ngram_rows(r, &t, &l, neff);
    an_table_print(out, &t, fmt);
    an_table_free(&t);
}

void an_report_print(FILE *out, const an_report *r, an_format fmt)
{
    double neff = an_profile_effective_samples(r->p);
    if (fmt == AN_JSON)
        print_json(out, r);
    else if (fmt == AN_CSV)
        print_csv(out, r, neff);
    else
        print_tables(out, r, fmt, neff);
}
