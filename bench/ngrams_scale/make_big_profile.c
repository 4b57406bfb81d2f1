/*
 * make_big_profile.c - writes a large, realistic profile database for
 * timing pulley-ngrams (bench/ngrams_scale.sh): about --bytes of verified
 * bytecode in many functions (big_code_gen.c) and --samples pc samples,
 * stored through the collector library exactly as pulley-collect stores
 * a run (run_store.h: the run row and opcode table, compressed
 * sample_chunks, then functions, instructions and the pc_samples
 * histogram).  Only the threads are left out: samples are drawn from a
 * model instead of read from a running VM's pc slot, and each buffer of
 * them goes through what the writer thread does (codec, chunk row, pc
 * histogram) in the same thread, so that ten million samples take
 * seconds rather than a quarter of an hour at 10 kHz, and the database
 * content is the same for the same seed.
 *
 * The sample model: functions are hot by a Zipf law (rank^-zipf, ranks
 * shuffled) over half of them, the other half never runs; sampling
 * proceeds in bursts inside one function (as a profile spends stretches
 * in one loop nest), where an instruction is drawn in proportion to its
 * execution frequency (loop trip counts, branch probabilities) times a
 * cost (memory, calls and divisions take longer); 0.5% of samples are
 * host time (pc 0) and the sampler now and then misses a tick.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "big_code_gen.h"
#include "insn.h"
#include "pc_hist.h"
#include "profile_db.h"
#include "pulley_isa_desc.h"
#include "registry.h"
#include "run_store.h"
#include "sample_codec.h"

enum {
    CHUNK_SAMPLES = 8192, /* what the agent's buffers hold */
    SAMPLE_HZ = 10000,
};
#define CODE_BASE UINT64_C(0x7f3a00010000) /* "load address" of the code blob */
#define LIVE_FRACTION 0.5                   /* functions that run at all */
#define BURST_MEAN 256.0                    /* samples per stay in one function */
#define HOST_SHARE 0.005

static const char usage[] =
    "usage: make_big_profile [-o PROFILE.db] [--bytes N] [--samples N] [--seed S]\n"
    "                        [--zipf S] [--label NAME] [--quiet]\n"
    "Appends one run to PROFILE.db (default big_profile.db), as pulley-collect\n"
    "would: synthetic translator-shaped bytecode, verified, and a skewed sample\n"
    "stream through the real codec and pc histogram.  N takes a K or M suffix\n"
    "(powers of 1000 for --samples, 1024 for --bytes).\n"
    "  --bytes N    bytecode size (default 1M = 1048576)\n"
    "  --samples N  pc samples (default 10M)\n"
    "  --seed S     random seed (default 1); same seed, same database content\n"
    "  --zipf S     skew of the function hotness, rank^-S (default 1.1)\n"
    "  --label NAME the run's label (default big)\n"
    "  --quiet      no summary line on stderr\n";

typedef struct options {
    const char *out, *label;
    uint64_t bytes, samples, seed;
    double zipf;
    int quiet;
} options;

/* "10M", "256K", "1000": a count with an optional suffix. */
static int parse_size(const char *s, uint64_t unit_k, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno || *s == '-')
        return -1;
    uint64_t mul = 1;
    if (*end == 'K' || *end == 'k')
        mul = unit_k, end++;
    else if (*end == 'M' || *end == 'm')
        mul = unit_k * unit_k, end++;
    if (*end || v > UINT64_MAX / mul / 16)
        return -1;
    *out = v * mul;
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    enum { OPT_BYTES = 256, OPT_SAMPLES, OPT_SEED, OPT_ZIPF, OPT_LABEL, OPT_QUIET, OPT_HELP };
    static const struct option opts[] = {
        {"bytes", required_argument, NULL, OPT_BYTES}, {"samples", required_argument, NULL, OPT_SAMPLES},
        {"seed", required_argument, NULL, OPT_SEED},   {"zipf", required_argument, NULL, OPT_ZIPF},
        {"label", required_argument, NULL, OPT_LABEL}, {"quiet", no_argument, NULL, OPT_QUIET},
        {"help", no_argument, NULL, OPT_HELP},         {NULL, 0, NULL, 0}};
    *o = (options){.out = "big_profile.db", .label = "big", .bytes = 1 << 20,
                   .samples = 10000000, .seed = 1, .zipf = 1.1};
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
        switch (c) {
        case 'o': o->out = optarg; break;
        case OPT_LABEL: o->label = optarg; break;
        case OPT_QUIET: o->quiet = 1; break;
        case OPT_HELP: fputs(usage, stdout); exit(0);
        case OPT_BYTES:
            if (parse_size(optarg, 1024, &o->bytes) != 0 || o->bytes == 0 || o->bytes > (1u << 28)) {
                fprintf(stderr, "make_big_profile: bad --bytes '%s' (1 .. 256M)\n", optarg);
                return -1;
            }
            break;
        case OPT_SAMPLES:
            if (parse_size(optarg, 1000, &o->samples) != 0 || o->samples > (UINT64_C(1) << 40)) {
                fprintf(stderr, "make_big_profile: bad --samples '%s'\n", optarg);
                return -1;
            }
            break;
        case OPT_SEED:
            if (parse_size(optarg, 1000, &o->seed) != 0) {
                fprintf(stderr, "make_big_profile: bad --seed '%s'\n", optarg);
                return -1;
            }
            break;
        case OPT_ZIPF:
            o->zipf = strtod(optarg, &end);
            if (end == optarg || *end || !(o->zipf >= 0 && o->zipf <= 4)) {
                fprintf(stderr, "make_big_profile: bad --zipf '%s' (0 .. 4)\n", optarg);
                return -1;
            }
            break;
        default: fputs(usage, stderr); return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "make_big_profile: unexpected argument '%s'\n%s", argv[optind], usage);
        return -1;
    }
    return 0;
}

/* ---- the sample model ------------------------------------------------------ */

typedef struct model {
    const big_code *code;
    uint32_t nlive;
    uint32_t *live;      /* [nlive] function by hotness rank */
    double *func_cum;    /* [nlive] cumulative Zipf weights */
    double *insn_cum;    /* [ninsns] cumulative weights inside each function */
    bench_rng rng;
    uint32_t func;       /* the function of the current burst */
    uint64_t burst_left;
    uint64_t tick, ticks_missed;
} model;

/* First index in cum[0..n) whose value exceeds x (cum ascending). */
static uint32_t search(const double *cum, uint32_t n, double x)
{
    uint32_t lo = 0, hi = n - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (cum[mid] > x)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* How much longer than one dispatch an instruction keeps the pc. */
static double cost(const pvm_module *m, uint32_t off)
{
    pvm_insn in;
    if (pvm_decode(m->code, m->code_size, off, &in) != NULL)
        return 1;
    const pvm_op_info *o = &pvm_ops[in.op];
    if (o->flags & PVM_FLAG_CALL)
        return 2;
    if (strstr(o->name, "load") || strstr(o->name, "store") || strstr(o->name, "div") ||
        strstr(o->name, "rem"))
        return 1.6;
    return 1;
}

static int model_init(model *m, const big_code *c, const options *o)
{
    uint32_t nfuncs = c->module->nfuncs;
    *m = (model){.code = c, .rng = bench_rng_seed(o->seed ^ UINT64_C(0x5a3c96e1f00d)),
                 .nlive = (uint32_t)ceil(nfuncs * LIVE_FRACTION)};
    m->live = malloc(nfuncs * sizeof *m->live);
    m->func_cum = malloc(nfuncs * sizeof *m->func_cum);
    m->insn_cum = malloc((c->ninsns + 1) * sizeof *m->insn_cum);
    if (!m->live || !m->func_cum || !m->insn_cum)
        return -1;
    for (uint32_t f = 0; f < nfuncs; f++)
        m->live[f] = f;
    for (uint32_t f = nfuncs; f-- > 1;) { /* Fisher-Yates */
        uint32_t j = bench_rng_below(&m->rng, f + 1), t = m->live[f];
        m->live[f] = m->live[j];
        m->live[j] = t;
    }
    double sum = 0;
    for (uint32_t r = 0; r < m->nlive; r++)
        m->func_cum[r] = sum += pow(r + 1, -o->zipf);
    for (uint32_t f = 0; f < nfuncs; f++) {
        double s = 0;
        for (uint32_t i = c->first[f]; i < c->first[f + 1]; i++)
            m->insn_cum[i] = s += c->insn_freq[i] * cost(c->module, c->insn_off[i]);
    }
    return 0;
}

static void model_free(model *m)
{
    free(m->live);
    free(m->func_cum);
    free(m->insn_cum);
}

static sample_rec next_sample(model *m)
{
    const big_code *c = m->code;
    bench_rng *r = &m->rng;
    m->tick += 1;
    if (bench_rng_below(r, 1000) == 0) {
        uint32_t missed = 1 + bench_rng_below(r, 3);
        m->tick += missed;
        m->ticks_missed += missed;
    }
    if (bench_rng_unit(r) < HOST_SHARE)
        return (sample_rec){m->tick, 0};
    if (m->burst_left == 0) {
        double x = bench_rng_unit(r) * m->func_cum[m->nlive - 1];
        m->func = m->live[search(m->func_cum, m->nlive, x)];
        m->burst_left = 1 + (uint64_t)(-BURST_MEAN * log(1 - bench_rng_unit(r)));
    }
    m->burst_left--;
    uint32_t lo = c->first[m->func], n = c->first[m->func + 1] - lo;
    double x = bench_rng_unit(r) * m->insn_cum[lo + n - 1];
    uint32_t i = lo + search(m->insn_cum + lo, n, x);
    return (sample_rec){m->tick, CODE_BASE + c->insn_off[i]};
}

/* ---- writing the run ------------------------------------------------------ */

typedef struct totals {
    uint64_t written, bytes, chunks;
} totals;

/* What the writer thread does with a full buffer: compress it, store the
 * chunk, count its pcs. */
static int store_chunk(profile_db *db, int64_t run, const sample_rec *s, size_t n, pc_hist *hist,
                       totals *t, char *err, size_t errcap)
{
    uint8_t *data = NULL;
    size_t len, raw;
    if (sample_encode(s, n, &data, &len, &raw, err, errcap) != 0)
        return -1;
    uint64_t period = 1000000000u / SAMPLE_HZ;
    run_chunk ch = {.seq = (int64_t)t->chunks, .samples = n, .first_ns = s[0].tick * period,
                    .last_ns = s[n - 1].tick * period, .raw_bytes = raw, .data = data, .len = len};
    int rc = pp__run_store_chunk(db, run, &ch, err, errcap);
    free(data);
    if (rc != 0)
        return -1;
    t->written += n;
    t->bytes += len;
    t->chunks++;
    for (size_t i = 0; i < n; i++)
        if (pp__pc_hist_add(hist, s[i].pc, 1) != 0) {
            snprintf(err, errcap, "out of memory counting samples per pc");
            return -1;
        }
    return 0;
}

static int register_code(registry *reg, const big_code *c)
{
    const pvm_module *m = c->module;
    char why[512];
    if (pp__registry_add_module(reg, "synthetic.pbc", m, why, sizeof why) < 0)
        return -1;
    for (uint32_t f = 0; f < m->nfuncs; f++) {
        const pvm_function *fn = &m->funcs[f];
        pulleyprof_function rf = {.module = 0, .index = f, .name = fn->name,
                                  .address = CODE_BASE + fn->offset,
                                  .code = m->code + fn->offset, .size = fn->size};
        if (pp__registry_add_function(reg, &rf, why, sizeof why) < 0)
            return -1;
    }
    return 0;
}

static char *command_line(int argc, char **argv)
{
    size_t len = 1;
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 1;
    char *s = malloc(len), *p = s;
    for (int i = 0; s && i < argc; i++)
        p += sprintf(p, "%s%s", i ? " " : "", argv[i]);
    return s;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Samples and content of the run; the run row is ended either way. */
static int write_run(profile_db *db, int64_t run, const isa_rows *isa, const big_code *code,
                     const options *o, char *err, size_t errcap)
{
    model m = {0};
    registry reg;
    pp__registry_init(&reg, isa);
    pc_hist hist = {0};
    totals t = {0};
    sample_rec *buf = malloc(CHUNK_SAMPLES * sizeof *buf);
    int rc = -1;
    if (!buf || model_init(&m, code, o) != 0 || register_code(&reg, code) != 0) {
        snprintf(err, errcap, "out of memory");
    } else {
        rc = 0;
        for (uint64_t done = 0; rc == 0 && done < o->samples;) {
            size_t n = o->samples - done < CHUNK_SAMPLES ? (size_t)(o->samples - done) : CHUNK_SAMPLES;
            for (size_t i = 0; i < n; i++)
                buf[i] = next_sample(&m);
            rc = store_chunk(db, run, buf, n, &hist, &t, err, errcap);
            done += n;
        }
    }
    uint64_t ns = m.tick * (1000000000u / SAMPLE_HZ);
    pulleyprof_summary s = {.run_id = run, .samples_taken = o->samples, .samples_written = t.written,
                           .samples_dropped = o->samples - t.written, .ticks_missed = m.ticks_missed,
                           .sampled_ns = ns, .bytes_stored = t.bytes, .chunks = t.chunks};
    run_end end = {.outcome = rc == 0 ? "return" : "collector failed", .exit_status = 0,
                   .has_exit_status = rc == 0, .duration_ns = ns, .summary = &s};
    char finish_err[512];
    run_catalog catalog = {0};
    int finished = pp__run_store_finish(db, run, &reg, &hist, &catalog, &end, finish_err,
                                        sizeof finish_err);
    pp__run_catalog_free(&catalog);
    if (finished != 0 && rc == 0) {
        snprintf(err, errcap, "%s", finish_err);
        rc = -1;
    }
    if (rc == 0 && !o->quiet)
        fprintf(stderr,
                "make_big_profile: %u functions, %zu instructions, %zu bytes of code; %" PRIu64
                " samples in %" PRIu64 " chunks (%.3f B/sample); run %" PRId64 " in %s\n",
                code->module->nfuncs, code->ninsns, code->module->code_size, t.written, t.chunks,
                t.written ? (double)t.bytes / t.written : 0.0, run, o->out);
    model_free(&m);
    pp__registry_free(&reg);
    pp__pc_hist_free(&hist);
    free(buf);
    return rc;
}

int main(int argc, char **argv)
{
    options o;
    if (parse_options(argc, argv, &o) != 0)
        return 2;
    char err[1024];
    double t0 = now_s();
    big_code code;
    if (big_code_generate(&code, (size_t)o.bytes, o.seed, err, sizeof err) != 0) {
        fprintf(stderr, "make_big_profile: %s\n", err);
        return 1;
    }
    char *cmd = command_line(argc, argv);
    char bench[64];
    snprintf(bench, sizeof bench, "synthetic-%" PRIu64, o.seed);
    pulleyprof_config cfg = {.db_path = o.out, .sample_hz = SAMPLE_HZ, .isa = pulley_agent_isa(),
                            .label = o.label, .benchmark = bench, .command_line = cmd,
                            .build_flags = "synthetic (make_big_profile)"};
    profile_db db;
    int64_t run;
    int status = 1;
    isa_rows isa = {0};
    if (!cmd) {
        fprintf(stderr, "make_big_profile: out of memory\n");
    } else if (pp__isa_rows_init(&isa, cfg.isa, err, sizeof err) != 0) {
        fprintf(stderr, "make_big_profile: %s\n", err);
    } else if (pp__pdb_open(&db, o.out, err, sizeof err) != 0) {
        fprintf(stderr, "make_big_profile: %s: %s\n", o.out, err);
    } else {
        if (pp__run_store_begin(&db, &cfg, &isa, SAMPLE_HZ, &run, err, sizeof err) != 0 ||
            write_run(&db, run, &isa, &code, &o, err, sizeof err) != 0)
            fprintf(stderr, "make_big_profile: %s: %s\n", o.out, err);
        else
            status = 0;
        if (pp__pdb_close(&db, err, sizeof err) != 0) {
            fprintf(stderr, "make_big_profile: %s: %s\n", o.out, err);
            status = 1;
        }
    }
    if (status == 0 && !o.quiet)
        fprintf(stderr, "make_big_profile: %.2f s\n", now_s() - t0);
    pp__isa_rows_free(&isa);
    free(cmd);
    big_code_free(&code);
    return status;
}
