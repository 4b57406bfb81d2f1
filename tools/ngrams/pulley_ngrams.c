/*
 * pulley_ngrams.c - the pulley-ngrams command: read profile databases,
 * mine n-grams inside basic blocks, choose a set of macro ops by the
 * dispatches their optimal cover removes, and print them.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <inttypes.h>
#include <string.h>

#include "blocks.h"
#include "cli.h"
#include "emit.h"
#include "evaluate.h"
#include "time_model.h"
#include "options.h"
#include "out_file.h"
#include "profile_format.h"
#include "profile_read.h"
#include "pipeline.h"
#include "ngrams_report.h"
#include "ngrams_evaluation.h"
#include "set_check.h"
#include "shapes.h"


static const char usage[] =
    "usage: pulley-ngrams PROFILE.db [MORE.db...] [--runs SPEC,...] [--skip-damaged]\n"
    "                     [--mix-isas] [--max-n N] [--top K] [--ngrams M] [--pool P]\n"
    "                     [--min-saving PCT] [--objective shared|total|time]\n"
    "                     [--exact] [--include-adaptive]\n"
    "                     [--train LABEL --test LABEL] [--emit-macros FILE]\n"
    "                     [--evaluate FILE]\n"
    "                     [--format text|markdown|json|csv] [--quiet]\n"
    "Mines opcode n-grams inside basic blocks of the profiled runs and proposes up\n"
    "to K macro ops (default 16) chosen as a set by the dispatches they remove.\n"
    AN_RUNS_HELP
    "  --max-n N      longest n-gram, 2..8 (default 4)\n"
    "  --top K        macro ops to propose (default 16)\n"
    "  --ngrams M     hottest n-grams to list (default 20)\n"
    "  --pool P       candidates considered by the selection (default max(64, 4K))\n"
    "  --min-saving PCT  propose only ops removing at least PCT% of all dispatches\n"
    "                 beside those chosen before (default 0.01; 0: any saving)\n"
    "  --objective O  what the next op is chosen by: shared (default), the\n"
    "                 dispatches it removes, discounted when one benchmark alone\n"
    "                 needs it, so that the set carries over to other programs;\n"
    "                 total, the dispatches it removes from these programs;\n"
    "                 time, as shared but in the time it is predicted to save\n"
    "                 (every run must store its build's costs: pulley-collect\n"
    "                 --costs).  Where runs store costs, every op and set is\n"
    "                 also given the share of time it is predicted to save\n"
    "  --exact        only runs with exact execution counts (as --runs kind:exact)\n"
    "  --include-adaptive  mine the opcodes the ISA marks adaptive (rewritten in\n"
    "                 place at run time, as CPython's specializing instructions)\n"
    "                 like the others; by default they are in no n-gram\n"
    "  --train LABEL  choose the ops on the selected runs with this label\n"
    "  --test LABEL   and report what they save on the selected runs with this label\n"
    "  --emit-macros FILE  write the chosen ops as a .macros file in the runs'\n"
    "                 instruction set (one set): this VM builds with it (cmake\n"
    "                 -DPULLEY_MACROS=FILE), another with pulley-macrogen --outside;\n"
    "                 a profile taken on a macro build puts that build's ops first\n"
    "  --evaluate FILE  no mining: what the macro ops of FILE remove from the\n"
    "                 selected runs, per op and per benchmark\n"
    "  --format F     text (default), markdown, json or csv\n"
    "  --quiet        no progress lines on stderr\n"
    "  -h, --help     show this help\n"
    "  -V, --version  show the version and the profile schema versions read\n"
    "\n" AN_EXIT_HELP;

static const cli_tool tool = {"pulley-ngrams", NULL, usage};

static void progress_mined(void *top, size_t distinct)
{
    fprintf(stderr, "pulley-ngrams: %zu distinct n-grams; choosing %ld macro ops...\n", distinct,
            *(const long *)top);
}

/* Load the runs labelled `label` and measure the proposals on them; op
 * names are matched, an op missing from their ISA never applies. */
static int measure_test(const an_profile *train, an_profile *tp, char **dbs, int ndbs,
                        const an_runsel *base, const char *label, const an_proposal *props,
                        size_t n, double **marginal)
{
    an_runsel sel = *base;
    char err[1024];
    if (an_runsel_add_label(&sel, label, err, sizeof err) != 0 ||
        an_profile_read_all(tp, dbs, ndbs, &sel, err, sizeof err) < 0) {
        fprintf(stderr, "pulley-ngrams: --test %s: %s\n", label, err);
        return -1;
    }
    an_print_skipped(stderr, "pulley-ngrams", tp);
    if (tp->nruns == 0) {
        fprintf(stderr, "pulley-ngrams: --test %s: no runs selected\n", label);
        return -1;
    }
    int normalised = an_normalise(tp);
    fu_pattern *set = malloc((n + 1) * sizeof *set);
    *marginal = malloc((n + 1) * sizeof **marginal);
    int rc = normalised == 0 && set && *marginal ? 0 : -1;
    for (size_t k = 0; rc == 0 && k < n; k++)
        an_pattern_remap(&props[k].shape.pattern, train, tp, &set[k]);
    if (rc == 0)
        rc = an_evaluate(tp, set, n, *marginal, NULL, NULL);
    free(set);
    if (rc != 0)
        fprintf(stderr, "pulley-ngrams: out of memory\n");
    return rc;
}

/* For --objective time: 1 when every run of p stores its build's costs,
 * else 0 after naming the first run that does not. */
static int every_run_timed(const an_profile *p)
{
    const an_run *run = an_untimed_run(p);
    if (run)
        fprintf(stderr,
                "pulley-ngrams: --objective time: run %" PRId64 " of %s stores no costs of"
                " its build (collect it with pulley-collect --costs FILE, made by"
                " bench/op_costs.sh)\n",
                run->id, run->db);
    return !run;
}

/* A mnemonic's opcode in p, or one no instruction has. */
static int opcode_or_none(void *ctx, const char *mnemonic)
{
    int op = an_opcode_by_name(ctx, mnemonic);
    return op < 0 ? UINT16_MAX : op;
}

/* --evaluate FILE on the normalised profile p. */
static int evaluate_file(an_profile *p, const char *file, an_format fmt)
{
    fu_set set;
    char err[1024];
    if (fu_set_read(&set, file, err, sizeof err) != 0) {
        fprintf(stderr, "pulley-ngrams: %s\n", err);
        return 1;
    }
    fu_pattern *pats = malloc((set.n + 1) * sizeof *pats);
    double *marginal = malloc((set.n + 1) * sizeof *marginal);
    double *time_marginal = malloc((set.n + 1) * sizeof *time_marginal);
    an_bench_saving *per_bench = malloc((p->nbenches + 1) * sizeof *per_bench);
    int status = 1;
    if (!pats || !marginal || !time_marginal || !per_bench || an_normalise(p) != 0) {
        fprintf(stderr, "pulley-ngrams: out of memory\n");
        goto out;
    }
    /* What the generator refuses has no saving to predict. */
    if (ng_check_set(p, &set, file, err, sizeof err) != 0) {
        fprintf(stderr, "pulley-ngrams: %s\n", err);
        goto out;
    }
    for (size_t k = 0; k < set.n; k++)
        if (fu_pattern_of(&set.macros[k], opcode_or_none, p, &pats[k], err, sizeof err) != 0) {
            fprintf(stderr, "pulley-ngrams: %s: %s\n", file, err);
            goto out;
        }
    if (an_evaluate(p, pats, set.n, marginal, time_marginal, per_bench) != 0) {
        fprintf(stderr, "pulley-ngrams: out of memory\n");
        goto out;
    }
    an_evaluation e = {file, &set, marginal, an_profile_timed(p) ? time_marginal : NULL,
                       per_bench, p, an_total_weight(p)};
    an_evaluation_print(stdout, &e, fmt);
    status = 0;
out:
    free(pats);
    free(marginal);
    free(time_marginal);
    free(per_bench);
    fu_set_free(&set);
    return status;
}

/* --emit-macros FILE: the chosen set, with how it was made as its comment. */
static int emit_macros(const an_profile *p, const an_proposals *res, const char *file, int argc,
                       char **argv)
{
    for (size_t i = 1; i < p->nruns; i++)
        if (strcmp(p->runs[i].isa, p->runs[0].isa) != 0) {
            fprintf(stderr,
                    "pulley-ngrams: --emit-macros writes the macro ops of one instruction set,"
                    " but run %" PRId64 " of %s was taken on '%s' and run %" PRId64 " of %s on"
                    " '%s'\n",
                    p->runs[0].id, p->runs[0].db, p->runs[0].isa, p->runs[i].id, p->runs[i].db,
                    p->runs[i].isa);
            return 1;
        }
    fu_set set;
    char err[1024];
    if (an_macro_set(p, res->props, res->n, res->total, &set, err, sizeof err) != 0) {
        fprintf(stderr, "pulley-ngrams: --emit-macros: %s\n", err);
        return 1;
    }
    size_t built = 0; /* the build's own macro ops, which come first */
    for (size_t op = 0; op < p->nops; op++)
        built += p->opdefs[op] != NULL;
    char comment[2048];
    size_t len = (size_t)snprintf(comment, sizeof comment, "Instruction set: %s\n",
                                  p->nruns ? p->runs[0].isa : "none");
    if (built)
        len += (size_t)snprintf(comment + len, sizeof comment - len,
                               "The %zu macro ops of the build the profiles were taken on, then\n",
                               built);
    len += (size_t)snprintf(comment + len, sizeof comment - len,
                            "%s ops chosen by pulley-ngrams %s from %zu runs of %zu "
                            "benchmarks,\n%sremoving %.2f%% of their dispatches",
                            built ? "macro" : "Macro", PULLEY_VERSION, an_profile_nread(p), p->nbenches,
                            built ? "these alone " : "",
                            res->n ? 100 * res->props[res->n - 1].cumulative : 0.0);
    if (an_profile_timed(p))
        len += (size_t)snprintf(comment + len, sizeof comment - len,
                                " and, predicted from\nthe builds' costs, %.2f%% of their time",
                                res->n ? 100 * res->props[res->n - 1].time_cumulative : 0.0);
    len += (size_t)snprintf(comment + len, sizeof comment - len, ":\n");
    for (int i = 0; i < argc && len < sizeof comment; i++) {
        const char *a = strrchr(argv[i], '/') && i == 0 ? strrchr(argv[i], '/') + 1 : argv[i];
        len += (size_t)snprintf(comment + len, sizeof comment - len, "%s%s", i ? " " : "  ", a);
    }
    int rc = an_write_macro_set(file, &set, comment, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "pulley-ngrams: --emit-macros: %s\n", err);
    fu_set_free(&set);
    return rc != 0;
}

enum { OPT_RUNS = 256, OPT_MAXN, OPT_TOP, OPT_NGRAMS, OPT_POOL, OPT_EXACT, OPT_FORMAT,
       OPT_QUIET, OPT_HELP, OPT_VERSION, OPT_TRAIN, OPT_TEST, OPT_MIN_SAVING, OPT_EMIT,
       OPT_EVALUATE, OPT_SKIP_DAMAGED, OPT_MIX_ISAS, OPT_INCLUDE_ADAPTIVE, OPT_OBJECTIVE };
/* In the order of the OPT_ values: option c is opts[c - OPT_RUNS]. */
static const struct option opts[] = {
    {"runs", required_argument, NULL, OPT_RUNS},     {"max-n", required_argument, NULL, OPT_MAXN},
    {"top", required_argument, NULL, OPT_TOP},       {"ngrams", required_argument, NULL, OPT_NGRAMS},
    {"pool", required_argument, NULL, OPT_POOL},     {"exact", no_argument, NULL, OPT_EXACT},
    {"format", required_argument, NULL, OPT_FORMAT}, {"quiet", no_argument, NULL, OPT_QUIET},
    {"help", no_argument, NULL, OPT_HELP},           {"version", no_argument, NULL, OPT_VERSION},
    {"train", required_argument, NULL, OPT_TRAIN},   {"test", required_argument, NULL, OPT_TEST},
    {"min-saving", required_argument, NULL, OPT_MIN_SAVING},
    {"emit-macros", required_argument, NULL, OPT_EMIT},
    {"evaluate", required_argument, NULL, OPT_EVALUATE},
    {"skip-damaged", no_argument, NULL, OPT_SKIP_DAMAGED},
    {"mix-isas", no_argument, NULL, OPT_MIX_ISAS},
    {"include-adaptive", no_argument, NULL, OPT_INCLUDE_ADAPTIVE},
    {"objective", required_argument, NULL, OPT_OBJECTIVE}, {NULL, 0, NULL, 0}};

/* What the command line asks for. */
typedef struct ngrams_options {
    an_runsel sel; /* --runs, --exact, --skip-damaged: without --train's label */
    long max_n, top, ngrams, pool;
    double min_saving;
    an_objective objective;
    int objective_given, include_adaptive, quiet;
    an_format fmt;
    const char *train, *test, *emit, *evaluate;
} ngrams_options;

/* --max-n, --top, --ngrams or --pool (option c); -1 to go on, else the
 * exit status. */
static int parse_count_option(int c, const char *arg, ngrams_options *o)
{
    long *dst = c == OPT_MAXN     ? &o->max_n
              : c == OPT_TOP      ? &o->top
              : c == OPT_NGRAMS   ? &o->ngrams
                                  : &o->pool;
    long lo = c == OPT_MAXN ? 2 : c == OPT_POOL ? 1 : 0, hi = c == OPT_MAXN ? AN_MAX_N : 100000;
    if (an_parse_count(arg, lo, hi, dst) != 0)
        return cli_misuse(&tool, "bad number '%s' for --%s (%ld..%ld)", arg, opts[c - OPT_RUNS].name,
                          lo, hi);
    return -1;
}

/* --format; -1 to go on, else the exit status. */
static int parse_format(const char *arg, an_format *fmt)
{
    static const struct {
        const char *name;
        an_format fmt;
    } formats[] = {{"text", AN_TEXT}, {"markdown", AN_MARKDOWN}, {"json", AN_JSON}, {"csv", AN_CSV}};
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
        if (strcmp(arg, formats[i].name) == 0) {
            *fmt = formats[i].fmt;
            return -1;
        }
    return cli_misuse(&tool, "bad --format '%s' (text, markdown, json, csv)", arg);
}

/* Option c (getopt_long's answer) with its argument; -1 to go on, else the
 * exit status. */
static int parse_option(int c, const char *arg, ngrams_options *o)
{
    char err[1024];
    switch (c) {
    case OPT_RUNS:
        if (an_runsel_parse(&o->sel, arg, err, sizeof err) != 0)
            return cli_misuse(&tool, "bad --runs: %s", err);
        return -1;
    case OPT_SKIP_DAMAGED: o->sel.skip_damaged = 1; return -1;
    case OPT_MIX_ISAS: o->sel.mix_isas = 1; return -1;
    case OPT_MAXN:
    case OPT_TOP:
    case OPT_NGRAMS:
    case OPT_POOL: return parse_count_option(c, arg, o);
    case OPT_MIN_SAVING:
        if (an_parse_percent(arg, &o->min_saving) != 0)
            return cli_misuse(&tool, "bad --min-saving '%s' (a percentage, 0..100)", arg);
        return -1;
    case OPT_OBJECTIVE:
        o->objective_given = 1;
        if (an_objective_parse(arg, &o->objective) != 0)
            return cli_misuse(&tool, "bad --objective '%s' (shared, total, time)", arg);
        return -1;
    case OPT_EXACT: o->sel.exact_only = 1; return -1;
    case OPT_INCLUDE_ADAPTIVE: o->include_adaptive = 1; return -1;
    case OPT_FORMAT: return parse_format(arg, &o->fmt);
    case OPT_TRAIN:
    case OPT_TEST:
        if (!*arg)
            return cli_misuse(&tool, "--%s needs a run label", c == OPT_TRAIN ? "train" : "test");
        *(c == OPT_TRAIN ? &o->train : &o->test) = arg;
        return -1;
    case OPT_QUIET: o->quiet = 1; return -1;
    case OPT_EMIT:
    case OPT_EVALUATE:
        if (!*arg)
            return cli_misuse(&tool, "--%s needs a file name",
                              c == OPT_EMIT ? "emit-macros" : "evaluate");
        *(c == OPT_EMIT ? &o->emit : &o->evaluate) = arg;
        return -1;
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

/* The options that go together, or not at all; -1 when they agree, else
 * the exit status. */
static int check_combinations(const ngrams_options *o)
{
    if (!o->train != !o->test)
        return cli_misuse(&tool, "--train and --test go together");
    if (o->evaluate && (o->train || o->emit || o->include_adaptive || o->objective_given))
        return cli_misuse(&tool, "--evaluate mines nothing: not with --train, --test,"
                                 " --emit-macros, --include-adaptive or --objective");
    if (o->train && an_runsel_has_labels(&o->sel))
        return cli_misuse(&tool, "--train and --test choose runs by label: not with"
                                 " label: in --runs");
    return -1;
}

/* The command line into o (the databases from argv[optind] on); -1 to go
 * on, else the exit status. */
static int parse_options(int argc, char **argv, ngrams_options *o)
{
    *o = (ngrams_options){.max_n = 4, .top = 16, .ngrams = 20, .pool = 0,
                          .min_saving = AN_MIN_SAVING, .objective = AN_OBJECTIVE_SHARED,
                          .fmt = AN_TEXT};
    an_runsel_init(&o->sel);
    int c, status;
    while ((c = getopt_long(argc, argv, "hV", opts, NULL)) != -1)
        if ((status = parse_option(c, optarg, o)) >= 0)
            return status;
    if (optind >= argc)
        return cli_usage_help(&tool);
    return check_combinations(o);
}

/* The runs to mine (with --train, those of its label) into prof; 0, or 1
 * after saying why there are none. */
static int read_runs(an_profile *prof, char **dbs, int ndbs, const ngrams_options *o,
                     an_runsel *sel)
{
    char err[1024];
    if (an_profile_read_all(prof, dbs, ndbs, sel, err, sizeof err) < 0)
        return cli_error(&tool, "%s%s%s%s", o->train ? "--train " : "", o->train ? o->train : "",
                         o->train ? ": " : "", err);
    an_print_skipped(stderr, "pulley-ngrams", prof);
    if (prof->nruns == 0)
        return cli_error(&tool, "no %sruns selected in %s%s", o->sel.exact_only ? "exact " : "",
                         dbs[0], ndbs > 1 ? " and the other databases" : "");
    return 0;
}

/* Choose the macro ops on prof, print the report (with what they save on
 * the --test runs of dbs) and write --emit-macros; returns the exit
 * status. */
static int mine(an_profile *prof, ngrams_options *o, char **dbs, int ndbs, int argc, char **argv)
{
    if (o->objective == AN_OBJECTIVE_TIME && !every_run_timed(prof))
        return 1;
    size_t ninsns = an_profile_ninsns(prof);
    int progress = !o->quiet && ninsns >= AN_PROGRESS_INSNS;
    if (progress)
        fprintf(stderr, "pulley-ngrams: %zu runs, %u functions, %zu instructions; mining...\n",
                an_profile_nread(prof), prof->nfuncs, ninsns);
    an_proposals_opts po = {.max_n = (unsigned)o->max_n, .top = (size_t)o->top,
                            .pool = (size_t)o->pool, .min_saving = o->min_saving,
                            .objective = o->objective, .ngrams = (size_t)o->ngrams,
                            .include_adaptive = o->include_adaptive,
                            .mined = progress ? progress_mined : NULL, .arg = &o->top};
    an_profile test_prof = {0};
    an_proposals res = {0};
    double *test_marginal = NULL;
    int status = 1;
    if (an_proposals_compute(prof, &po, &res) != 0)
        cli_error(&tool, "out of memory");
    else if (!o->test || measure_test(prof, &test_prof, dbs, ndbs, &o->sel, o->test, res.props,
                                      res.n, &test_marginal) == 0) {
        an_report rep = {.p = prof, .total = res.total, .props = res.props,
                         .prop_facts = res.facts, .nprops = res.n, .choice = &res.choice,
                         .top = res.top, .top_facts = res.top_facts, .ntop = res.ntop,
                         .test = &test_prof, .test_label = o->test, .test_marginal = test_marginal};
        /* The file first: a reader of the report that stops early
         * (`| head`) must not cost it. */
        status = o->emit ? emit_macros(prof, &res, o->emit, argc, argv) : 0;
        an_report_print(stdout, &rep, o->fmt);
    }
    free(test_marginal);
    an_profile_free(&test_prof);
    an_proposals_free(&res);
    return status;
}

int main(int argc, char **argv)
{
    ngrams_options o;
    int status = parse_options(argc, argv, &o);
    if (status >= 0)
        return status;
    char **dbs = argv + optind;
    int ndbs = argc - optind;
    an_runsel train_sel = o.sel;
    char err[1024];
    if (o.train && an_runsel_add_label(&train_sel, o.train, err, sizeof err) != 0)
        return cli_misuse(&tool, "--train: %s", err);
    an_out_file out; /* the standard output, a closed pipe a clean end */
    if (an_out_open(&out, "-", err, sizeof err) != 0)
        return cli_error(&tool, "%s", err);
    an_profile prof = {0};
    status = read_runs(&prof, dbs, ndbs, &o, &train_sel);
    if (status == 0)
        status = o.evaluate ? evaluate_file(&prof, o.evaluate, o.fmt)
                            : mine(&prof, &o, dbs, ndbs, argc, argv);
    if (an_out_commit(&out, err, sizeof err) != 0 && status == 0)
        status = cli_error(&tool, "%s", err);
    an_profile_free(&prof);
    return status;
}
