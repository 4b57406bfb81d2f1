/*
 * pulley_ngrams.c - the pulley-ngrams command: read profile databases,
 * mine n-grams inside basic blocks, choose a set of macro ops by the
 * dispatches their optimal cover removes, and print them.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "facts.h"
#include "liveness.h"
#include "ngrams.h"
#include "profile_read.h"
#include "blocks.h"
#include "evaluate.h"
#include "propose.h"
#include "report.h"

#define PROGRESS_INSNS 200000 /* inputs at least this long report progress */

static const char usage[] =
    "usage: pulley-ngrams PROFILE.db [MORE.db...] [--runs all|ID,ID|label:NAME]\n"
    "                     [--max-n N] [--top K] [--ngrams M] [--pool P] [--exact]\n"
    "                     [--train LABEL --test LABEL]\n"
    "                     [--format text|markdown|json|csv] [--quiet]\n"
    "Mines opcode n-grams inside basic blocks of the profiled runs and proposes\n"
    "K macro ops (default 16) chosen as a set by the dispatches they remove.\n"
    "  --runs SEL     runs to analyse (default all)\n"
    "  --max-n N      longest n-gram, 2..8 (default 4)\n"
    "  --top K        macro ops to propose (default 16)\n"
    "  --ngrams M     hottest n-grams to list (default 20)\n"
    "  --pool P       candidates considered by the selection (default max(64, 4K))\n"
    "  --exact        only runs with exact execution counts\n"
    "  --train LABEL  choose the ops on the runs with this label (as --runs label:LABEL)\n"
    "  --test LABEL   and report what they save on the runs with this label\n"
    "  --format F     text (default), markdown, json or csv\n"
    "  --quiet        no progress lines on stderr\n";

static int parse_count(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int by_weight(const void *a, const void *b)
{
    const an_gram *x = *(an_gram *const *)a, *y = *(an_gram *const *)b;
    if (x->weight != y->weight)
        return x->weight < y->weight ? 1 : -1;
    if (x->n != y->n)
        return x->n - y->n;
    return memcmp(x->ops, y->ops, x->n * sizeof x->ops[0]);
}

/* The m hottest n-grams, into a new array; *n gets their number. */
static an_gram **hottest(an_grams *t, size_t m, size_t *n)
{
    an_gram **all = malloc((t->len + 1) * sizeof *all);
    if (!all)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].n && t->slots[i].weight > 0)
            all[k++] = &t->slots[i];
    qsort(all, k, sizeof *all, by_weight);
    *n = k < m ? k : m;
    return all;
}

static size_t count_insns(const an_profile *p)
{
    size_t n = 0;
    for (size_t r = 0; r < p->nruns; r++)
        for (size_t f = 0; f < p->runs[r].nfuncs; f++)
            n += p->runs[r].funcs[f].ninsns;
    return n;
}

/* Load the runs labelled `label` and measure the proposals on them; op
 * names are matched, an op missing from their ISA never applies. */
static int measure_test(const an_profile *train, an_profile *tp, char **dbs, int ndbs,
                        const char *label, int exact, const an_proposal *props, size_t n,
                        double **marginal)
{
    an_runsel sel = {.label = label};
    char err[1024];
    for (int i = 0; i < ndbs; i++)
        if (an_profile_read(tp, dbs[i], &sel, exact, err, sizeof err) < 0) {
            fprintf(stderr, "pulley-ngrams: %s\n", err);
            return -1;
        }
    if (tp->nruns == 0) {
        fprintf(stderr, "pulley-ngrams: no runs labelled %s\n", label);
        return -1;
    }
    an_normalise(tp);
    uint16_t *ops = malloc((n * AN_MAX_N + 1) * sizeof *ops);
    an_macro *set = malloc((n + 1) * sizeof *set);
    *marginal = malloc((n + 1) * sizeof **marginal);
    int rc = ops && set && *marginal ? 0 : -1;
    for (size_t k = 0; rc == 0 && k < n; k++) {
        for (unsigned e = 0; e < props[k].gram->n; e++) {
            const char *name = train->opnames[props[k].gram->ops[e]];
            uint16_t op = UINT16_MAX;
            for (size_t j = 0; j < tp->nops; j++)
                if (strcmp(tp->opnames[j], name) == 0)
                    op = (uint16_t)j;
            ops[k * AN_MAX_N + e] = op;
        }
        set[k] = (an_macro){ops + k * AN_MAX_N, props[k].gram->n};
    }
    if (rc == 0)
        rc = an_evaluate(tp, set, n, *marginal);
    free(ops);
    free(set);
    if (rc != 0)
        fprintf(stderr, "pulley-ngrams: out of memory\n");
    return rc;
}

int main(int argc, char **argv)
{
    enum { OPT_RUNS = 256, OPT_MAXN, OPT_TOP, OPT_NGRAMS, OPT_POOL, OPT_EXACT, OPT_FORMAT,
           OPT_QUIET, OPT_HELP, OPT_VERSION, OPT_TRAIN, OPT_TEST };
    static const struct option opts[] = {
        {"runs", required_argument, NULL, OPT_RUNS},     {"max-n", required_argument, NULL, OPT_MAXN},
        {"top", required_argument, NULL, OPT_TOP},       {"ngrams", required_argument, NULL, OPT_NGRAMS},
        {"pool", required_argument, NULL, OPT_POOL},     {"exact", no_argument, NULL, OPT_EXACT},
        {"format", required_argument, NULL, OPT_FORMAT}, {"quiet", no_argument, NULL, OPT_QUIET},
        {"help", no_argument, NULL, OPT_HELP},           {"version", no_argument, NULL, OPT_VERSION},
        {"train", required_argument, NULL, OPT_TRAIN},   {"test", required_argument, NULL, OPT_TEST},
        {NULL, 0, NULL, 0}};
    an_runsel sel;
    an_runsel_parse(&sel, "all");
    long max_n = 4, top = 16, ngrams = 20, pool = 0;
    int exact = 0, quiet = 0, c;
    an_format fmt = AN_TEXT;
    const char *train = NULL, *test = NULL;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case OPT_RUNS:
            if (an_runsel_parse(&sel, optarg) != 0) {
                fprintf(stderr, "pulley-ngrams: bad --runs '%s' (all, ID,ID,... or label:NAME)\n", optarg);
                return 2;
            }
            break;
        case OPT_MAXN:
        case OPT_TOP:
        case OPT_NGRAMS:
        case OPT_POOL: {
            long *dst = c == OPT_MAXN ? &max_n : c == OPT_TOP ? &top : c == OPT_NGRAMS ? &ngrams : &pool;
            long lo = c == OPT_MAXN ? 2 : c == OPT_POOL ? 1 : 0, hi = c == OPT_MAXN ? AN_MAX_N : 100000;
            if (parse_count(optarg, lo, hi, dst) != 0) {
                fprintf(stderr, "pulley-ngrams: bad number '%s' for --%s (%ld..%ld)\n", optarg,
                        opts[c - OPT_RUNS].name, lo, hi);
                return 2;
            }
            break;
        }
        case OPT_EXACT:
            exact = 1;
            break;
        case OPT_FORMAT:
            if (strcmp(optarg, "text") == 0)
                fmt = AN_TEXT;
            else if (strcmp(optarg, "markdown") == 0)
                fmt = AN_MARKDOWN;
            else if (strcmp(optarg, "json") == 0)
                fmt = AN_JSON;
            else if (strcmp(optarg, "csv") == 0)
                fmt = AN_CSV;
            else {
                fprintf(stderr, "pulley-ngrams: bad --format '%s' (text, markdown, json, csv)\n", optarg);
                return 2;
            }
            break;
        case OPT_TRAIN:
        case OPT_TEST:
            if (!*optarg) {
                fprintf(stderr, "pulley-ngrams: --%s needs a run label\n", c == OPT_TRAIN ? "train" : "test");
                return 2;
            }
            *(c == OPT_TRAIN ? &train : &test) = optarg;
            break;
        case OPT_QUIET:
            quiet = 1;
            break;
        case OPT_HELP:
            fputs(usage, stdout);
            return 0;
        case OPT_VERSION:
            printf("pulley-ngrams %s\n", PULLEY_VERSION);
            return 0;
        default:
            fputs(usage, stderr);
            return 2;
        }
    }
    if (optind >= argc) {
        fputs(usage, stderr);
        return 2;
    }
    if (!train != !test) {
        fprintf(stderr, "pulley-ngrams: --train and --test go together\n");
        return 2;
    }
    if (train) {
        sel.all = 0;
        sel.nids = 0;
        sel.label = train;
    }
    if (pool == 0)
        pool = top * 4 > 64 ? top * 4 : 64;

    an_profile prof = {0}, test_prof = {0};
    double *test_marginal = NULL;
    an_grams grams = {0};
    an_proposal *props = calloc((size_t)top + 1, sizeof *props);
    an_gram **hot = NULL;
    an_facts *facts = NULL;
    char err[1024];
    int status = 1;
    if (!props)
        goto oom;
    for (int i = optind; i < argc; i++) {
        if (an_profile_read(&prof, argv[i], &sel, exact, err, sizeof err) < 0) {
            fprintf(stderr, "pulley-ngrams: %s\n", err);
            goto out;
        }
    }
    if (prof.nruns == 0) {
        fprintf(stderr, "pulley-ngrams: no %sruns selected in %s%s\n", exact ? "exact " : "",
                argv[optind], argc - optind > 1 ? " and the other databases" : "");
        goto out;
    }
    size_t ninsns = count_insns(&prof);
    int progress = !quiet && ninsns >= PROGRESS_INSNS;
    if (progress)
        fprintf(stderr, "pulley-ngrams: %zu runs, %u functions, %zu instructions; mining...\n",
                prof.nruns, prof.nfuncs, ninsns);
    an_normalise(&prof);
    /* Liveness is only read for executed blocks (operand facts). */
    for (size_t r = 0; r < prof.nruns; r++)
        for (size_t f = 0; f < prof.runs[r].nfuncs; f++) {
            an_func *fn = &prof.runs[r].funcs[f];
            int ran = 0;
            for (uint32_t b = 0; b < fn->nblocks && !ran; b++)
                ran = fn->blocks[b].weight > 0;
            if (ran && an_liveness(fn) != 0)
                goto oom;
        }
    if (an_mine(&prof, (unsigned)max_n, &grams) != 0)
        goto oom;
    if (progress)
        fprintf(stderr, "pulley-ngrams: %zu distinct n-grams; choosing %ld macro ops...\n", grams.len, top);
    int nprops = an_propose(&prof, &grams, (size_t)top, (size_t)pool, props);
    if (nprops < 0)
        goto oom;
    size_t ntop = 0;
    if (!(hot = hottest(&grams, (size_t)ngrams, &ntop)))
        goto oom;
    /* Facts of the proposals and of the listed n-grams, in one pass. */
    an_gram **want = malloc(((size_t)nprops + ntop + 1) * sizeof *want);
    facts = calloc((size_t)nprops + ntop + 1, sizeof *facts);
    if (!want || !facts) {
        free(want);
        goto oom;
    }
    for (int i = 0; i < nprops; i++)
        want[i] = (an_gram *)props[i].gram;
    memcpy(want + nprops, hot, ntop * sizeof *want);
    /* A gram both proposed and listed is collected once, copied after. */
    size_t nwant = (size_t)nprops;
    size_t *slot = malloc((ntop + 1) * sizeof *slot);
    if (!slot) {
        free(want);
        goto oom;
    }
    for (size_t i = 0; i < ntop; i++) {
        size_t k = 0;
        while (k < (size_t)nprops && want[k] != hot[i])
            k++;
        if (k == (size_t)nprops)
            want[k = nwant++] = hot[i];
        slot[i] = k;
    }
    int rc = an_facts_collect(&prof, &grams, want, nwant, facts);
    free(want);
    if (rc != 0) {
        free(slot);
        goto oom;
    }
    an_facts *top_facts = malloc((ntop + 1) * sizeof *top_facts);
    if (!top_facts) {
        free(slot);
        goto oom;
    }
    for (size_t i = 0; i < ntop; i++)
        top_facts[i] = facts[slot[i]];
    free(slot);
    if (test && measure_test(&prof, &test_prof, argv + optind, argc - optind, test, exact, props,
                             (size_t)nprops, &test_marginal) != 0)
        goto out_top;
    an_report rep = {.p = &prof, .total = an_total_weight(&prof), .props = props,
                     .prop_facts = facts, .nprops = (size_t)nprops, .top = hot,
                     .top_facts = top_facts, .ntop = ntop, .test = &test_prof,
                     .test_label = test, .test_marginal = test_marginal};
    an_report_print(stdout, &rep, fmt);
    status = fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
    if (status)
        fprintf(stderr, "pulley-ngrams: writing the output failed\n");
out_top:
    free(top_facts);
    goto out;
oom:
    fprintf(stderr, "pulley-ngrams: out of memory\n");
out:
    free(test_marginal);
    an_profile_free(&test_prof);
    free(facts);
    free(hot);
    free(props);
    an_grams_free(&grams);
    an_profile_free(&prof);
    return status;
}
