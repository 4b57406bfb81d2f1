/*
 * report_text.c - the terminal hot-code view (see report_text.h).
 */
#include "report_text.h"

#include <inttypes.h>
#include <stdlib.h>

#include "report_db.h"

#define RESET "\033[0m"

/* ANSI colour of each heat level: dim, plain, cyan, green, yellow, bold
 * yellow, red, bold red. */
static const char *const heat_color[HC_LEVELS] = {
    "\033[2m", "", "\033[36m", "\033[32m", "\033[33m", "\033[1;33m", "\033[31m", "\033[1;31m"};

/* s with control characters replaced, so a name from a database cannot
 * send escape sequences to the terminal; truncated to cap. */
static const char *printable(const char *s, char *buf, size_t cap)
{
    size_t n = 0;
    for (; *s && n + 1 < cap; s++, n++)
        buf[n] = (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s;
    buf[n] = '\0';
    return buf;
}

size_t rp_text_functions(const hc_view *v, double threshold, size_t max)
{
    size_t n = 0;
    while (n < v->nfuncs && n < max && (n == 0 || hc_at_least(v->funcs[n].share, threshold)))
        n++;
    return n;
}

static void summary(FILE *out, const an_profile *p, const hc_view *v, const rp_text_opts *o)
{
    double samples = 0, executions = 0;
    for (size_t k = 0; k < v->nfuncs; k++)
        *(p->runs[v->funcs[k].run].exact ? &executions : &samples) += v->funcs[k].count;
    char name[256];
    fputs("Hot code of ", out);
    for (size_t b = 0; b < p->nbenches; b++)
        fprintf(out, "%s%s", b ? ", " : "", printable(p->benches[b], name, sizeof name));
    fprintf(out, ": %zu run%s", an_profile_nread(p), an_profile_nread(p) == 1 ? "" : "s");
    if (v->any_sampled)
        fprintf(out, ", %.0f samples", samples);
    if (v->any_exact)
        fprintf(out, ", %.0f executions", executions);
    char note[512];
    an_shares_note(p, note, sizeof note);
    fprintf(out, "; threshold %.2f%%\n%s\n", 100 * o->threshold, note);
    if (o->context)
        fprintf(out, "(instructions at or above the threshold with %u on either side as context, "
                     "which may be below it)\n",
                o->context);
    else
        fputs("(instructions at or above the threshold)\n", out);
}

/* Which instructions of h to show: those at or above the threshold and
 * the hottest, with o->context instructions on either side. */
static void visible(const hc_func *h, const rp_text_opts *o, uint8_t *show)
{
    uint32_t n = h->f->ninsns;
    for (uint32_t i = 0; i < n; i++)
        show[i] = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!(hc_at_least(h->insn_share[i], o->threshold) && h->insn_share[i] > 0) && i != h->hottest)
            continue;
        uint32_t lo = i > o->context ? i - o->context : 0;
        uint32_t hi = n - 1 - i > o->context ? i + o->context : n - 1;
        for (uint32_t j = lo; j <= hi; j++)
            show[j] = 1;
    }
}

static void line(FILE *out, const an_profile *p, const hc_view *v, const hc_func *h, uint32_t i,
                 const rp_text_opts *o)
{
    const an_insn *in = &h->f->insns[i];
    char buf[256], text[256], marks[128] = "";
    size_t len = 0;
    if (h->marks[i] & HC_LOOP_HEAD)
        len += (size_t)snprintf(marks, sizeof marks, "  [loop head]");
    if (h->marks[i] & HC_BACK_EDGE) {
        uint32_t to[4];
        size_t n = hc_targets(h->f, i, to, 4);
        for (size_t t = 0; t < n && t < 4 && len < sizeof marks; t++)
            if (to[t] <= in->off)
                len += (size_t)snprintf(marks + len, sizeof marks - len, "  [back to 0x%04" PRIx32 "]", to[t]);
    }
    const char *color = o->color ? heat_color[hc_heat(h->insn_share[i], v->max_insn_share)] : "";
    fprintf(out, "%s%8.2f%% %10.0f  0x%04" PRIx32 "  %-*s%s%s\n", color, 100 * h->insn_share[i], in->count,
            in->off, *marks ? 34 : 0, printable(rp_insn_text(p, h, i, buf, sizeof buf), text, sizeof text),
            marks, *color ? RESET : "");
}

static void function(FILE *out, const an_profile *p, const hc_view *v, const hc_func *h, size_t k,
                     const rp_text_opts *o, const uint8_t *show)
{
    const an_run *run = &p->runs[h->run];
    const char *color = o->color ? heat_color[hc_heat(h->share, v->funcs[0].share)] : "";
    char name[256], bench[256], ci[32] = "";
    double neff = an_profile_effective_samples(p);
    if (neff > 0)
        snprintf(ci, sizeof ci, " +-%.2f", 100 * an_share_halfwidth(h->share, neff));
    fprintf(out, "\n%s%8.2f%%%s  #%zu %s%s  (%s, run %" PRId64 ", %.0f %s, %" PRIu32 " instructions)\n",
            color, 100 * h->share, ci, k + 1, printable(h->f->name, name, sizeof name), *color ? RESET : "",
            printable(run->benchmark ? run->benchmark : "?", bench, sizeof bench), an_func_run(run, h->f), h->count,
            run->exact ? "executions" : "samples", h->f->ninsns);
    int gap = 0;
    for (uint32_t i = 0; i < h->f->ninsns; i++) {
        if (!show[i]) {
            gap = 1;
            continue;
        }
        if (gap)
            fputs("           ...\n", out);
        else if (h->f->insns[i].leader && i > 0)
            fputs("           --\n", out); /* a basic block starts */
        gap = 0;
        line(out, p, v, h, i, o);
    }
    if (gap)
        fputs("           ...\n", out);
}

int rp_write_text(FILE *out, const an_profile *p, const hc_view *v, const rp_text_opts *o)
{
    summary(out, p, v, o);
    size_t n = rp_text_functions(v, o->threshold, o->functions);
    for (size_t k = 0; k < n; k++) {
        const hc_func *h = &v->funcs[k];
        uint8_t *show = malloc(h->f->ninsns + 1);
        if (!show)
            return -1;
        visible(h, o, show);
        function(out, p, v, h, k, o, show);
        free(show);
    }
    double rest = 0;
    for (size_t k = n; k < v->nfuncs; k++)
        rest += v->funcs[k].share;
    if (n < v->nfuncs)
        fprintf(out, "\n%zu more executed function%s, %.2f%% together\n", v->nfuncs - n,
                v->nfuncs - n == 1 ? "" : "s", 100 * rest);
    if (v->nfuncs == 0)
        fputs("\nno bytecode instruction was sampled or counted\n", out);
    return ferror(out) ? -1 : 0;
}
