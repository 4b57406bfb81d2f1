/*
 * pulley_report.c - the pulley-report command: read profile databases and
 * write the hot-code report, as one self-contained HTML file or as the
 * terminal view (--text).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "hot_code.h"
#include "options.h"
#include "out_file.h"
#include "profile_format.h"
#include "profile_read.h"
#include "report_db.h"
#include "report_html.h"
#include "report_proposals.h"
#include "report_text.h"


static const char usage[] =
    "usage: pulley-report PROFILE.db [MORE.db...] [--runs SPEC,...] [--skip-damaged]\n"
    "                     [--mix-isas] [-o REPORT.html] [--text] [--threshold PCT]\n"
    "                     [--functions N] [--context N] [--top K] [--max-n N]\n"
    "                     [--color auto|always|never] [--quiet]\n"
    "Writes the hot-code report of the profiled runs: one self-contained HTML file\n"
    "(run summary, hot functions, annotated disassembly, proposed macro ops), or\n"
    "with --text the hot code on the terminal.\n"
    AN_RUNS_HELP
    "  -o FILE          where to write (default report.html; with --text, stdout;\n"
    "                   - is stdout)\n"
    "  --text           the terminal view instead of HTML\n"
    "  --threshold PCT  show functions, and with --text instructions, with at least\n"
    "                   PCT% of all executed instructions (default 0.5)\n"
    "  --functions N    at most N hot functions with their disassembly (default 10)\n"
    "  --context N      --text: instructions shown around a hot one (default 2)\n"
    "  --top K          at most K macro ops in the HTML report (default 16, 0: none)\n"
    "  --max-n N        longest macro op, 2..8 (default 4)\n"
    "  --color WHEN     --text colours: auto (when writing to a terminal), always,\n"
    "                   never\n"
    "  --quiet          no progress lines on stderr\n"
    "  -h, --help     show this help\n"
    "  -V, --version  show the version and the profile schema versions read\n"
    "\n" AN_EXIT_HELP;

typedef struct options {
    an_runsel sel;
    const char *output;
    int text, quiet, color; /* color: -1 auto, 0 never, 1 always */
    double threshold;
    long functions, context, top, max_n;
} options;

static const cli_tool tool = {"pulley-report", NULL, usage};

enum { OPT_RUNS = 256, OPT_TEXT, OPT_THRESHOLD, OPT_FUNCTIONS, OPT_CONTEXT, OPT_TOP, OPT_MAXN,
       OPT_COLOR, OPT_QUIET, OPT_HELP, OPT_VERSION, OPT_SKIP_DAMAGED, OPT_MIX_ISAS };
/* In the order of the OPT_ values: option c is opts[c - OPT_RUNS]. */
static const struct option opts[] = {
    {"runs", required_argument, NULL, OPT_RUNS},
    {"text", no_argument, NULL, OPT_TEXT},
    {"threshold", required_argument, NULL, OPT_THRESHOLD},
    {"functions", required_argument, NULL, OPT_FUNCTIONS},
    {"context", required_argument, NULL, OPT_CONTEXT},
    {"top", required_argument, NULL, OPT_TOP},
    {"max-n", required_argument, NULL, OPT_MAXN},
    {"color", required_argument, NULL, OPT_COLOR},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {"skip-damaged", no_argument, NULL, OPT_SKIP_DAMAGED},
    {"mix-isas", no_argument, NULL, OPT_MIX_ISAS},
    {NULL, 0, NULL, 0}};

/* --functions, --context, --top or --max-n (option c); -1 to go on, else
 * the exit status. */
static int parse_count_option(int c, const char *arg, options *o)
{
    long *count = c == OPT_FUNCTIONS ? &o->functions
                : c == OPT_CONTEXT   ? &o->context
                : c == OPT_TOP       ? &o->top
                                     : &o->max_n;
    long lo = c == OPT_FUNCTIONS ? 1 : c == OPT_MAXN ? 2 : 0;
    long hi = c == OPT_MAXN ? AN_MAX_N : c == OPT_TOP ? 1000 : 100000;
    if (an_parse_count(arg, lo, hi, count) != 0)
        return cli_misuse(&tool, "bad number '%s' for --%s (%ld..%ld)", arg, opts[c - OPT_RUNS].name,
                          lo, hi);
    return -1;
}

/* --color; -1 to go on, else the exit status. */
static int parse_color(const char *arg, int *color)
{
    if (strcmp(arg, "auto") == 0)
        *color = -1;
    else if (strcmp(arg, "always") == 0)
        *color = 1;
    else if (strcmp(arg, "never") == 0)
        *color = 0;
    else
        return cli_misuse(&tool, "bad --color '%s' (auto, always, never)", arg);
    return -1;
}

/* Option c (getopt_long's answer) with its argument; -1 to go on, else the
 * exit status. */
static int parse_option(int c, const char *arg, options *o)
{
    char err[1024];
    switch (c) {
    case OPT_RUNS:
        if (an_runsel_parse(&o->sel, arg, err, sizeof err) != 0)
            return cli_misuse(&tool, "bad --runs: %s", err);
        return -1;
    case OPT_SKIP_DAMAGED: o->sel.skip_damaged = 1; return -1;
    case OPT_MIX_ISAS: o->sel.mix_isas = 1; return -1;
    case 'o': o->output = arg; return -1;
    case OPT_TEXT: o->text = 1; return -1;
    case OPT_THRESHOLD:
        if (an_parse_percent(arg, &o->threshold) != 0)
            return cli_misuse(&tool, "bad --threshold '%s' (a percentage, 0..100)", arg);
        return -1;
    case OPT_FUNCTIONS:
    case OPT_CONTEXT:
    case OPT_TOP:
    case OPT_MAXN: return parse_count_option(c, arg, o);
    case OPT_COLOR: return parse_color(arg, &o->color);
    case OPT_QUIET: o->quiet = 1; return -1;
    case 'h':
    case OPT_HELP: return cli_help(&tool);
    case 'V':
    case OPT_VERSION:
        return cli_print_version(&tool, PULLEY_VERSION,
                                 "reads profile schema versions 1 to %d, any ISA stored in them",
                                 PVMP_SCHEMA_VERSION);
    default: return cli_usage_help(&tool); /* getopt_long has said what is wrong */
    }
}

/* Parse the command line into o; returns -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, options *o)
{
    *o = (options){.color = -1, .threshold = 0.005, .functions = 10, .context = 2, .top = 16, .max_n = 4};
    an_runsel_init(&o->sel);
    int c, status;
    while ((c = getopt_long(argc, argv, "o:hV", opts, NULL)) != -1)
        if ((status = parse_option(c, optarg, o)) >= 0)
            return status;
    if (optind >= argc)
        return cli_usage_help(&tool);
    if (!o->output)
        o->output = o->text ? "-" : "report.html";
    return -1;
}

/* Everything the report shows, and its writing. */
typedef struct report {
    an_profile prof;
    hc_view view;
    rp_proposals props;
    rp_run_info *runs;
    size_t nshow;
} report;

static int write_report(FILE *out, const report *r, const options *o)
{
    if (o->text) {
        int color = o->color >= 0 ? o->color : isatty(fileno(out)) && !getenv("NO_COLOR");
        rp_text_opts t = {o->threshold, (size_t)o->functions, (unsigned)o->context, color};
        return rp_write_text(out, &r->prof, &r->view, &t);
    }
    rp_html h = {&r->prof, &r->view, r->runs, &r->props, r->nshow, o->threshold, PULLEY_VERSION};
    return rp_write_html(out, &h);
}

static int output(const report *r, const options *o)
{
    char err[4200];
    an_out_file out;
    if (an_out_open(&out, o->output, err, sizeof err) != 0) {
        fprintf(stderr, "pulley-report: cannot write %s\n", err);
        return 1;
    }
    if (write_report(out.f, r, o) != 0 && !ferror(out.f)) { /* out of memory */
        an_out_abort(&out);
        fprintf(stderr, "pulley-report: out of memory writing the report\n");
        return 1;
    }
    if (an_out_commit(&out, err, sizeof err) != 0) {
        fprintf(stderr, "pulley-report: writing failed, nothing written: %s\n", err);
        return 1;
    }
    if (strcmp(o->output, "-") != 0 && !o->quiet)
        fprintf(stderr, "pulley-report: wrote %s (%zu hot function%s, %zu proposals)\n", o->output,
                r->nshow, r->nshow == 1 ? "" : "s", r->props.set.n);
    return 0;
}

static int build(report *r, options *o, char **dbs, int ndbs)
{
    char err[1024];
    if (an_profile_read_all(&r->prof, dbs, ndbs, &o->sel, err, sizeof err) < 0) {
        fprintf(stderr, "pulley-report: %s\n", err);
        return 1;
    }
    an_print_skipped(stderr, "pulley-report", &r->prof);
    if (r->prof.nruns == 0) {
        fprintf(stderr, "pulley-report: no runs selected in %s%s\n", dbs[0],
                ndbs > 1 ? " and the other databases" : "");
        return 1;
    }
    size_t ninsns = an_profile_ninsns(&r->prof);
    int progress = !o->quiet && ninsns >= AN_PROGRESS_INSNS;
    if (progress)
        fprintf(stderr, "pulley-report: %zu runs, %u functions, %zu instructions\n", an_profile_nread(&r->prof),
                r->prof.nfuncs, ninsns);
    if (hc_build(&r->prof, &r->view) != 0)
        goto oom;
    r->nshow = rp_text_functions(&r->view, o->threshold, (size_t)o->functions);
    if (!o->text) {
        if (progress)
            fprintf(stderr, "pulley-report: choosing %ld macro ops...\n", o->top);
        if (o->top > 0 && rp_proposals_compute(&r->prof, (unsigned)o->max_n, (size_t)o->top, 0, &r->props) != 0)
            goto oom;
        if (!(r->runs = calloc(an_profile_nread(&r->prof), sizeof *r->runs)))
            goto oom;
        if (rp_read_runs(&r->prof, r->runs, err, sizeof err) != 0) {
            fprintf(stderr, "pulley-report: %s\n", err);
            return 1;
        }
    }
    if (rp_read_text(&r->prof, r->view.funcs, r->nshow, err, sizeof err) != 0) {
        fprintf(stderr, "pulley-report: %s\n", err);
        return 1;
    }
    return 0;
oom:
    fprintf(stderr, "pulley-report: out of memory\n");
    return 1;
}

int main(int argc, char **argv)
{
    options o;
    int status = parse_options(argc, argv, &o);
    if (status >= 0)
        return status;
    signal(SIGXFSZ, SIG_IGN); /* a file size limit: say so, rather than die of it */
    report r;
    memset(&r, 0, sizeof r);
    status = build(&r, &o, argv + optind, argc - optind);
    if (status == 0)
        status = output(&r, &o);
    if (r.runs)
        rp_free_runs(r.runs, an_profile_nread(&r.prof));
    free(r.runs);
    rp_proposals_free(&r.props);
    hc_free(&r.view);
    an_profile_free(&r.prof);
    return status;
}
