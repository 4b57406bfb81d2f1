/*
 * report_html.c - the HTML report's page: style, run summary, hot
 * function list, proposals with links to their places, heat legend; the
 * annotated disassembly itself is report_html_code.c.  Every text that
 * comes from a database is escaped.
 */
#include "report_html.h"

#include <inttypes.h>
#include <string.h>

#include "choice_notes.h"
#include "report_html_code.h"
#include "time_model.h"

#define PLACES_LISTED 8 /* places linked per proposal */

static const char style[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:1.5em 2em;color:#1d1d1f;background:#fff}\n"
    "h1{font-size:1.5em;margin:0 0 .3em}h2{font-size:1.2em;margin:1.6em 0 .4em}\n"
    "table{border-collapse:collapse;margin:.3em 0}\n"
    "th,td{padding:1px .6em;text-align:left;vertical-align:top}\n"
    "th{background:#eef0f3;font-weight:600;border-bottom:1px solid #b8bec8}\n"
    "td.r,th.r{text-align:right}code,.mono,table.code td{font-family:ui-monospace,monospace}\n"
    "table.list tr:nth-child(even) td{background:#f7f8fa}table.list td{white-space:nowrap}\n"
    "table.list td.wrap{white-space:normal;min-width:7em}table.list td.brk{white-space:normal}\n"
    "table.runs{font-size:13px}table.runs th,table.runs td{padding:1px .4em}\n"
    "table.props td{white-space:nowrap}table.props td.pat{white-space:normal;min-width:14em}\n"
    "table.props tbody:nth-of-type(even) td{background:#f7f8fa}\n"
    "table.props tr.places td{white-space:normal;font-size:12px;color:#555;padding-bottom:.4em}\n"
    ".place{white-space:nowrap;font-family:ui-monospace,monospace}.place .sv{color:#888}\n"
    ".more{white-space:nowrap}\n"
    "details.cmd summary{color:#1a55b0;cursor:pointer}details.cmd code{white-space:pre-wrap}\n"
    ".note{color:#555}.meta{color:#444;margin:.2em 0 .5em}\n"
    ".bar{display:inline-block;height:.7em;background:#e0542a;margin-left:.4em}\n"
    "nav a{margin-right:1em}a{color:#1a55b0;text-decoration:none}a:hover{text-decoration:underline}\n"
    "table.code{font-size:13px}table.code td{padding:0 .5em;white-space:pre}\n"
    "table.code td.ins{white-space:pre-wrap}\n"
    "table.code tbody.blk{border-top:1px solid #9aa3b0}\n"
    "table.code tbody.loop{border-top:2px solid #2a6bd8}\n"
    "table.code tbody.elided td{color:#777;font-style:italic;background:#f3f3f3}\n"
    "td.blk{color:#2a6bd8}td.cf a.back{color:#c0392b;font-weight:600}td.cf a.fwd{color:#555}\n"
    "td.mo{color:#6b3fa0}td.mo a{color:#6b3fa0;font-weight:600}\n"
    "tr:target td{outline:2px solid #2a6bd8}section.func:target h2{background:#e8f0ff}\n"
    ".h0 .pct{color:#999}.h1 .pct{background:#fff6d5}.h2 .pct{background:#ffeaa0}\n"
    ".h3 .pct{background:#ffd36b}.h4 .pct{background:#ffb347}.h5 .pct{background:#ff8c3a}\n"
    ".h6 .pct{background:#f0602c;color:#fff}.h7 .pct{background:#cf2a1e;color:#fff}\n"
    ".h5 td.ins,.h6 td.ins,.h7 td.ins{font-weight:700}\n"
    ".legend span{display:inline-block;padding:0 .6em;margin-right:.2em}\n";

void rp_html_escape(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fputc(*s, out);
        }
    }
}

static const char *or_dash(const char *s)
{
    return s && *s ? s : "-";
}

static void cell(FILE *out, const char *cls, const char *text)
{
    fprintf(out, "<td%s%s%s>", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
    rp_html_escape(out, or_dash(text));
    fputs("</td>", out);
}

/* An ISO 8601 time that may break after its date. */
static void start_cell(FILE *out, const char *t)
{
    const char *tee = t ? strchr(t, 'T') : NULL;
    if (!tee) {
        cell(out, NULL, t);
        return;
    }
    fputs("<td>", out);
    for (const char *c = t; c <= tee; c++) {
        char one[2] = {*c, '\0'};
        rp_html_escape(out, one);
    }
    fputs("<wbr>", out);
    rp_html_escape(out, tee + 1);
    fputs("</td>", out);
}

static void int_cell(FILE *out, int64_t v)
{
    if (v < 0)
        fputs("<td class=\"r\">-</td>", out);
    else
        fprintf(out, "<td class=\"r\">%" PRId64 "</td>", v);
}

static void page_head(FILE *out, const rp_html *h)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Hot code: ", out);
    for (size_t b = 0; b < h->p->nbenches; b++) {
        fputs(b ? ", " : "", out);
        rp_html_escape(out, h->p->benches[b]);
    }
    fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>Hot code: ", style);
    for (size_t b = 0; b < h->p->nbenches; b++) {
        fputs(b ? ", " : "", out);
        rp_html_escape(out, h->p->benches[b]);
    }
    fputs("</h1>\n<nav><a href=\"#runs\">Runs</a><a href=\"#hot\">Hot functions</a>"
          "<a href=\"#proposals\">Proposed macro ops</a><a href=\"#legend\">Heat scale</a></nav>\n",
          out);
}

static void run_summary(FILE *out, const rp_html *h)
{
    const an_profile *p = h->p;
    char note[512];
    an_shares_note(p, note, sizeof note);
    fprintf(out, "<section id=\"runs\">\n<h2>Runs</h2>\n<p class=\"note\">%zu run%s of %zu benchmark%s; "
                 "%zu of %zu functions executed.  ",
            an_profile_nread(p), an_profile_nread(p) == 1 ? "" : "s", p->nbenches, p->nbenches == 1 ? "" : "s",
            h->v->nfuncs, h->v->nall);
    rp_html_escape(out, note);
    fputs("</p>\n", out);
    fputs("<table class=\"list runs\">\n<tr><th>database</th><th class=\"r\">run</th><th>label</th>"
          "<th>benchmark</th><th>data</th><th>started (UTC)</th><th class=\"r\">duration ms</th>"
          "<th class=\"r\">samples taken</th><th class=\"r\">dropped</th><th class=\"r\">host %</th>"
          "<th>outcome</th><th>build</th><th>host</th><th>command line</th></tr>\n",
          out);
    for (size_t r = 0; r < an_profile_nread(p); r++) {
        an_member m = an_profile_member(p, r);
        const an_member *run = &m;
        const rp_run_info *in = &h->runs[r];
        fputs("<tr>", out);
        const char *base = strrchr(run->db, '/');
        fputs("<td class=\"mono\" title=\"", out);
        rp_html_escape(out, run->db);
        fputs("\">", out);
        rp_html_escape(out, base && base[1] ? base + 1 : run->db);
        fputs("</td>", out);
        fprintf(out, "<td class=\"r\">%" PRId64 "</td>", run->id);
        cell(out, NULL, run->label);
        cell(out, NULL, run->benchmark);
        if (run->exact)
            fputs("<td>exact counts</td>", out);
        else
            fprintf(out, "<td class=\"brk\">samples at %" PRId64 " Hz</td>", in->sample_hz);
        start_cell(out, in->start_time);
        if (in->duration_ns < 0)
            fputs("<td class=\"r\">-</td>", out);
        else
            fprintf(out, "<td class=\"r\">%.1f</td>", (double)in->duration_ns / 1e6);
        int_cell(out, in->samples_taken);
        int_cell(out, in->samples_dropped);
        int64_t all = in->host_samples + in->bytecode_samples;
        if (all > 0)
            fprintf(out, "<td class=\"r\">%.2f</td>", 100.0 * (double)in->host_samples / (double)all);
        else
            fputs("<td class=\"r\">-</td>", out);
        cell(out, NULL, in->outcome);
        cell(out, "wrap", in->build_flags);
        cell(out, "wrap", in->host);
        fputs("<td><details class=\"cmd\"><summary>command</summary><code>", out);
        rp_html_escape(out, or_dash(in->command_line));
        fputs("</code></details></td>", out);
        fputs("</tr>\n", out);
    }
    fputs("</table>\n</section>\n", out);
}

/* Index into v->funcs of the shown function (run, func), or -1. */
static long shown_index(const rp_html *h, uint32_t run, uint32_t func)
{
    for (size_t k = 0; k < h->nshow; k++)
        if (h->v->funcs[k].run == run && h->v->funcs[k].func == func)
            return (long)k;
    return -1;
}

static void hot_functions(FILE *out, const rp_html *h)
{
    const hc_view *v = h->v;
    fprintf(out, "<section id=\"hot\">\n<h2>Hot functions</h2>\n<table class=\"list\">\n"
                 "<tr><th class=\"r\">#</th><th>function</th><th>benchmark</th><th class=\"r\">run</th>"
                 "<th class=\"r\">share %%</th><th class=\"r\">%s</th><th class=\"r\">instructions</th>"
                 "<th class=\"r\">loops</th></tr>\n",
            hc_count_name(v));
    size_t k = 0;
    double rest = 0, neff = an_profile_effective_samples(h->p);
    for (; k < v->nfuncs; k++) {
        const hc_func *f = &v->funcs[k];
        if (k > 0 && !hc_at_least(f->share, h->threshold))
            break;
        const an_run *run = &h->p->runs[f->run];
        fprintf(out, "<tr><td class=\"r\">%zu</td><td class=\"mono\">", k + 1);
        if (k < h->nshow) {
            fprintf(out, "<a href=\"#f%zu\">", k + 1);
            rp_html_escape(out, f->f->name);
            fputs("</a>", out);
        } else {
            rp_html_escape(out, f->f->name);
        }
        fputs("</td>", out);
        cell(out, NULL, run->benchmark);
        fprintf(out, "<td class=\"r\">%" PRId64 "</td>", an_func_run(run, f->f));
        if (neff > 0)
            fprintf(out, "<td class=\"r\" title=\"95%% interval: +-%.2f points\">",
                    100 * an_share_halfwidth(f->share, neff));
        else
            fputs("<td class=\"r\">", out);
        fprintf(out, "%.2f<span class=\"bar\" "
                     "style=\"width:%.0fpx\"></span></td><td class=\"r\">%.0f</td>"
                     "<td class=\"r\">%" PRIu32 "</td><td class=\"r\">%" PRIu32 "</td></tr>\n",
                100 * f->share, 80 * f->share / v->funcs[0].share, f->count, f->f->ninsns,
                f->nloops);
    }
    fputs("</table>\n", out);
    if (v->nfuncs == 0)
        fputs("<p class=\"note\">No bytecode instruction was sampled or counted.</p>\n", out);
    size_t more = v->nfuncs - k;
    for (; k < v->nfuncs; k++)
        rest += v->funcs[k].share;
    if (more)
        fprintf(out, "<p class=\"note\">%zu more executed function%s below %.2f%%, %.2f%% together.</p>\n",
                more, more == 1 ? "" : "s", 100 * h->threshold, 100 * rest);
    fputs("</section>\n", out);
}

/* One place: benchmark (when there are several), function and offset,
 * linked to the instruction when its function is shown, and its saving. */
static void place(FILE *out, const rp_html *h, const rp_place *pl, double total)
{
    const an_run *run = &h->p->runs[pl->run];
    const an_func *f = &run->funcs[pl->func];
    uint32_t off = f->insns[pl->insn].off;
    long shown = shown_index(h, pl->run, pl->func);
    int linked = shown >= 0;
    if (linked)
        fprintf(out, "<span class=\"place\"><a href=\"#f%ld-0x%" PRIx32 "\">", shown + 1, off);
    else
        fputs("<span class=\"place\">", out);
    if (h->p->nbenches > 1) {
        rp_html_escape(out, run->benchmark ? run->benchmark : "?");
        fputc(':', out);
    }
    rp_html_escape(out, f->name);
    double saving = total > 0 ? 100 * pl->saving / total : 0;
    fprintf(out, "+0x%" PRIx32 "%s <span class=\"sv\">", off, linked ? "</a>" : "");
    if (saving < 0.005)
        fputs("&lt;0.01%</span></span>", out);
    else
        fprintf(out, "%.2f%%</span></span>", saving);
}

/* Proposal k's row, then a full-width line with its first places. */
static void proposal_rows(FILE *out, const rp_html *h, size_t k)
{
    const rp_proposals *r = h->props;
    const an_proposals *s = &r->set;
    const an_proposal *pr = &s->props[k];
    char seq[512], pat[512];
    an_gram_text(h->p, pr->gram, seq, sizeof seq);
    an_facts_pattern(&s->facts[k], pr->gram->n, pat, sizeof pat);
    fprintf(out, "<tbody><tr id=\"p%zu\"><td class=\"r\">%zu</td>", k + 1, k + 1);
    cell(out, "mono", seq);
    cell(out, "mono pat", pat);
    fprintf(out, "<td class=\"r\">%.2f</td><td class=\"r\">%.2f</td><td class=\"r\">%.2f</td>",
            s->total > 0 ? 100 * pr->gram->weight / s->total : 0,
            s->total > 0 ? 100 * pr->saving / s->total : 0, 100 * pr->cumulative);
    int timed = an_profile_timed(h->p);
    if (timed)
        fprintf(out, "<td class=\"r\">%.2f</td><td class=\"r\">%.2f</td>",
                s->total > 0 ? 100 * pr->time_saving / s->total : 0, 100 * pr->time_cumulative);
    fprintf(out, "<td class=\"r\">%" PRIu32 "/%zu</td></tr>\n", pr->benches, h->p->nbenches);
    size_t n = r->first[k + 1] - r->first[k];
    fprintf(out, "<tr class=\"places\"><td></td><td colspan=\"%d\">%zu place%s%s ", 6 + 2 * timed,
            n, n == 1 ? "" : "s", n ? ":" : "");
    for (size_t i = 0; i < n && i < PLACES_LISTED; i++) {
        fputs(i ? ", " : "", out);
        place(out, h, &r->places[r->first[k] + i], s->total);
    }
    if (n > PLACES_LISTED)
        fprintf(out, " <span class=\"more\">and %zu more</span>", n - PLACES_LISTED);
    fputs("</td></tr></tbody>\n", out);
}

static void proposals(FILE *out, const rp_html *h)
{
    const rp_proposals *r = h->props;
    const an_proposals *s = r ? &r->set : NULL;
    char note[512] = "", adaptive[512] = "";
    if (s) {
        an_choice_note(&s->choice, s->n, note, sizeof note);
        an_adaptive_note(&s->choice, adaptive, sizeof adaptive);
    }
    fputs("<section id=\"proposals\">\n<h2>Proposed macro ops</h2>\n", out);
    if (!s || s->n == 0) {
        fprintf(out, "<p class=\"note\">%s%s%s</p>\n</section>\n",
                *note ? note : "No macro op was asked for.", *adaptive ? "  " : "", adaptive);
        return;
    }
    int timed = an_profile_timed(h->p);
    char time_note[160] = "";
    if (timed)
        snprintf(time_note, sizeof time_note, ", and, predicted from the builds' costs, %.2f%% of the time",
                 100 * s->props[s->n - 1].time_cumulative);
    fprintf(out, "<p class=\"note\">Chosen as a set by the dispatches their optimal cover of every "
                 "executed block removes (as pulley-ngrams does): %.2f%% of all dispatches%s.  "
                 "Under each op, the places where the cover uses it, the largest saving first, with "
                 "the share of all dispatches each removes.%s%s%s%s</p>\n",
            100 * s->props[s->n - 1].cumulative, time_note, *note ? "  " : "", note,
            *adaptive ? "  " : "", adaptive);
    fprintf(out, "<table class=\"props\">\n<thead><tr><th class=\"r\">#</th><th>macro op</th>"
                 "<th>operand pattern</th><th class=\"r\">share %%</th><th class=\"r\">saving %%</th>"
                 "<th class=\"r\">cumul %%</th>%s<th class=\"r\">benchmarks</th></tr></thead>\n",
            timed ? "<th class=\"r\">time %</th><th class=\"r\">time cumul %</th>" : "");
    for (size_t k = 0; k < s->n; k++)
        proposal_rows(out, h, k);
    fputs("</table>\n</section>\n", out);
}

static void legend(FILE *out, const rp_html *h)
{
    double max = h->v->max_insn_share;
    fputs("<section id=\"legend\">\n<h2>Heat scale</h2>\n<p class=\"legend\">", out);
    for (int l = HC_LEVELS - 1; l >= 1; l--) {
        fprintf(out, "<span class=\"h%d\"><span class=\"pct\">", l);
        if (l > 1)
            fprintf(out, "&ge; %.2f%%", 100 * hc_heat_floor(l, max));
        else
            fprintf(out, "&lt; %.2f%%", 100 * hc_heat_floor(2, max));
        fputs("</span></span>", out);
    }
    fprintf(out, "<span class=\"h0\"><span class=\"pct\">not %s</span></span></p>\n"
                 "<p class=\"note\">An instruction's share of all executed instructions; the hottest "
                 "has %.2f%%.  In the disassembly a line above a row starts a basic block (a thick "
                 "blue one a loop head), &#8624; marks a back-edge to its loop head, &#8600; a "
                 "forward branch, and Pn an occurrence of proposed macro op n.</p>\n</section>\n",
            h->v->any_sampled ? "sampled" : "executed", 100 * max);
}

int rp_write_html(FILE *out, const rp_html *h)
{
    page_head(out, h);
    run_summary(out, h);
    hot_functions(out, h);
    proposals(out, h);
    legend(out, h);
    int rc = 0;
    for (size_t k = 0; k < h->nshow && rc == 0; k++)
        rc = rp_html_function(out, h, k);
    fprintf(out, "<p class=\"note\">Made by pulley-report %s.</p>\n</body>\n</html>\n",
            h->version ? h->version : "");
    return rc == 0 && !ferror(out) ? 0 : -1;
}
