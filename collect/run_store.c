/*
 * run_store.c - the rows of one run (see run_store.h).  Every SQLite call
 * is checked; a failed transaction is rolled back.
 */
#include "run_store.h"
#include "run_spread.h"

#include "sample_codec.h"
#include "stored_text.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "base/error.h"
#include "base/grow.h"

#ifndef PULLEY_VERSION
#error "PULLEY_VERSION is defined by the build"
#endif

/* UTC now, ISO 8601 with milliseconds. */
static void utc_now(char *buf, size_t cap)
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(buf, cap, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, cap - n, ".%03ldZ", ts.tv_nsec / 1000000);
}

static void host_name(char *buf, size_t cap)
{
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(buf, cap, "%s %s %s %s", u.nodename, u.sysname, u.release, u.machine);
    else
        snprintf(buf, cap, "unknown");
}

static int bind_text(sqlite3_stmt *st, int i, const char *s)
{
    return s ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

static int insert_parts(profile_db *p, int64_t run, const isa_rows *isa, char *err,
                        size_t errcap)
{
    sqlite3_stmt *st;
    if (pp__pdb_prepare(p,
                    "INSERT INTO macro_parts (run_id, opcode, part, part_opcode, regs, imms)"
                    " VALUES (?,?,?,?,?,?)",
                    &st, err, errcap) != 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < isa->n; i++) {
        const pulleyprof_opcode *o = isa->by_id[i];
        for (unsigned k = 0; rc == 0 && o->parts && k < o->nparts; k++) {
            int b = sqlite3_bind_int64(st, 1, run);
            b = b ? b : sqlite3_bind_int64(st, 2, o->id);
            b = b ? b : sqlite3_bind_int64(st, 3, k);
            b = b ? b : sqlite3_bind_int64(st, 4, o->parts[k].opcode);
            b = b ? b : bind_text(st, 5, o->parts[k].regs ? o->parts[k].regs : "");
            b = b ? b : bind_text(st, 6, o->parts[k].imms ? o->parts[k].imms : "");
            rc = pp__pdb_run(p, st, b, err, errcap);
        }
    }
    return pp__pdb_finalize(p, st, err, errcap) || rc ? -1 : 0;
}

static int insert_ranges(profile_db *p, int64_t run, const isa_rows *isa, char *err,
                         size_t errcap)
{
    sqlite3_stmt *st;
    if (pp__pdb_prepare(p,
                        "INSERT INTO register_ranges (run_id, opcode, n, access, base, offset,"
                        " count_imm, count_add, open_if_zero) VALUES (?,?,?,?,?,?,?,?,?)",
                        &st, err, errcap) != 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < isa->n; i++) {
        const pulleyprof_opcode *o = isa->by_id[i];
        for (unsigned k = 0; rc == 0 && o->implicit && k < o->nimplicit; k++) {
            const pulleyprof_range *g = &o->implicit[k];
            int b = sqlite3_bind_int64(st, 1, run);
            b = b ? b : sqlite3_bind_int64(st, 2, o->id);
            b = b ? b : sqlite3_bind_int64(st, 3, k);
            b = b ? b : sqlite3_bind_int64(st, 4, g->access);
            b = b ? b : sqlite3_bind_int64(st, 5, g->base);
            b = b ? b : sqlite3_bind_int64(st, 6, g->offset);
            b = b ? b : sqlite3_bind_int64(st, 7, g->count_imm);
            b = b ? b : sqlite3_bind_int64(st, 8, g->count_add);
            b = b ? b : sqlite3_bind_int64(st, 9, g->open_if_zero != 0);
            rc = pp__pdb_run(p, st, b, err, errcap);
        }
    }
    return pp__pdb_finalize(p, st, err, errcap) || rc ? -1 : 0;
}

_Static_assert(1u << (FMT_FLAG_WORDS - 1) == PULLEYPROF_ADAPTIVE,
               "a stored word for each PULLEYPROF_ flag, the highest last");

static int insert_opcodes(profile_db *p, int64_t run, const isa_rows *isa, char *err,
                          size_t errcap)
{
    sqlite3_stmt *st;
    if (pp__pdb_prepare(p,
                    "INSERT INTO opcodes (run_id, id, name, format, operands, length, flags,"
                    " flag_names, semantics, roles, reg_bits, wide_form, cost)"
                    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    &st, err, errcap) != 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < isa->n; i++) {
        const pulleyprof_opcode *o = isa->by_id[i];
        char flags[64];
        fmt_flag_words(o->flags, flags, sizeof flags);
        int b = sqlite3_bind_int64(st, 1, run);
        b = b ? b : sqlite3_bind_int64(st, 2, o->id);
        b = b ? b : bind_text(st, 3, o->name);
        b = b ? b : bind_text(st, 4, o->format ? o->format : "");
        b = b ? b : bind_text(st, 5, o->operands ? o->operands : "");
        b = b ? b : sqlite3_bind_int64(st, 6, o->length);
        b = b ? b : sqlite3_bind_int64(st, 7, o->flags);
        b = b ? b : bind_text(st, 8, flags);
        b = b ? b : bind_text(st, 9, o->semantics ? o->semantics : "");
        b = b ? b : bind_text(st, 10, o->roles ? o->roles : "");
        b = b ? b : sqlite3_bind_int64(st, 11, o->reg_bits);
        if (!b && o->wide_form) {
            const pulleyprof_opcode *w = pp__isa_rows_named(isa, o->wide_form);
            b = w ? sqlite3_bind_int64(st, 12, w->id) : SQLITE_MISUSE;
        }
        if (!b && o->cost > 0)
            b = sqlite3_bind_double(st, 13, o->cost);
        rc = pp__pdb_run(p, st, b, err, errcap);
    }
    if (pp__pdb_finalize(p, st, err, errcap) || rc)
        return -1;
    return insert_parts(p, run, isa, err, errcap) || insert_ranges(p, run, isa, err, errcap) ? -1 : 0;
}

int pp__run_store_begin(profile_db *p, const pulleyprof_config *cfg, const isa_rows *isa, unsigned hz,
                    int64_t *run_id, char *err, size_t errcap)
{
    char start[64], host[512], hash[32];
    utc_now(start, sizeof start);
    host_name(host, sizeof host);
    snprintf(hash, sizeof hash, "%016" PRIx64, isa->hash);
    sqlite3_stmt *st;
    pp__pdb_lock(p);
    if (pp__pdb_begin(p, err, errcap) != 0)
        goto begin_failed;
    if (pp__pdb_prepare(p,
                    "INSERT INTO runs (label, benchmark, command_line, start_time, sample_hz,"
                    " exact, build_flags, host, isa_name, isa_hash, collector, operands_stored,"
                    " dispatch_cost, run_starts) VALUES (?,?,?,?,?,?,?,?,?,?,?,1,?,?)",
                    &st, err, errcap) != 0)
        goto failed;
    int b = bind_text(st, 1, cfg->label);
    b = b ? b : bind_text(st, 2, cfg->benchmark);
    b = b ? b : bind_text(st, 3, cfg->command_line ? cfg->command_line : "");
    b = b ? b : bind_text(st, 4, start);
    b = b ? b : sqlite3_bind_int64(st, 5, hz);
    b = b ? b : sqlite3_bind_int(st, 6, cfg->exact != 0);
    b = b ? b : bind_text(st, 7, cfg->build_flags);
    b = b ? b : bind_text(st, 8, host);
    b = b ? b : bind_text(st, 9, cfg->isa->name ? cfg->isa->name : "unknown");
    b = b ? b : bind_text(st, 10, hash);
    b = b ? b : bind_text(st, 11, cfg->tool ? cfg->tool : "libpulleyprof " PULLEY_VERSION);
    if (!b && cfg->isa->dispatch_cost > 0)
        b = sqlite3_bind_double(st, 12, cfg->isa->dispatch_cost);
    b = b ? b : sqlite3_bind_int(st, 13, cfg->run_starts != 0);
    int rc = pp__pdb_run(p, st, b, err, errcap);
    if (pp__pdb_finalize(p, st, err, errcap) != 0 || rc != 0)
        goto failed;
    *run_id = sqlite3_last_insert_rowid(p->db);
    if (insert_opcodes(p, *run_id, isa, err, errcap) != 0 || pp__pdb_commit(p, err, errcap) != 0)
        goto failed;
    pp__pdb_unlock(p);
    return 0;
failed:
    pp__pdb_rollback(p);
begin_failed:
    pp__pdb_unlock(p);
    return -1;
}

int pp__run_store_chunk(profile_db *p, int64_t run_id, const run_chunk *c, char *err, size_t errcap)
{
    sqlite3_stmt *st;
    pp__pdb_lock(p);
    if (pp__pdb_begin(p, err, errcap) != 0)
        goto begin_failed;
    if (pp__pdb_prepare(p,
                    "INSERT INTO sample_chunks (run_id, seq, encoding, sample_count, first_ns,"
                    " last_ns, raw_bytes, data) VALUES (?,?,?,?,?,?,?,?)",
                    &st, err, errcap) != 0)
        goto failed;
    int b = sqlite3_bind_int64(st, 1, run_id);
    b = b ? b : sqlite3_bind_int64(st, 2, c->seq);
    b = b ? b : bind_text(st, 3, c->encoding ? c->encoding : SAMPLE_ENCODING);
    b = b ? b : sqlite3_bind_int64(st, 4, (sqlite3_int64)c->samples);
    b = b ? b : sqlite3_bind_int64(st, 5, (sqlite3_int64)c->first_ns);
    b = b ? b : sqlite3_bind_int64(st, 6, (sqlite3_int64)c->last_ns);
    b = b ? b : sqlite3_bind_int64(st, 7, (sqlite3_int64)c->raw_bytes);
    b = b ? b : sqlite3_bind_blob64(st, 8, c->data, c->len, SQLITE_STATIC);
    int rc = pp__pdb_run(p, st, b, err, errcap);
    if (pp__pdb_finalize(p, st, err, errcap) != 0 || rc != 0 || pp__pdb_commit(p, err, errcap) != 0)
        goto failed;
    pp__pdb_unlock(p);
    return 0;
failed:
    pp__pdb_rollback(p);
begin_failed:
    pp__pdb_unlock(p);
    return -1;
}

/* ---- the end of a run --------------------------------------------------- */

/* Each sampled pc with its count, placed in the function whose stored
 * range holds it, at the start of the instruction that holds it (an
 * interpreter may record an address inside the instruction it runs:
 * CPython's caller frames keep the last unit of their CALL).  Every
 * function is decoded; h is per instruction (run_spread.h). */
static int insert_pc_samples(profile_db *p, int64_t run, const registry *r, const pc_hist *h,
                             const int64_t *ids, char *err, size_t errcap)
{
    sqlite3_stmt *st;
    if (pp__pdb_prepare(p,
                        "INSERT INTO pc_samples (run_id, function_id, offset, pc, samples)"
                        " VALUES (?,?,?,?,?)",
                        &st, err, errcap) != 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < h->cap; i++) {
        const pc_hist_entry *e = &h->slots[i];
        if (!e->count)
            continue;
        int f = e->pc ? pp__registry_find_stored(r, (uintptr_t)e->pc) : -1;
        int b = sqlite3_bind_int64(st, 1, run);
        if (f >= 0) {
            const reg_function *fn = &r->funcs[f];
            size_t off = pp__func_rows_start_at(fn->starts, (uintptr_t)e->pc - fn->stored);
            b = b ? b : sqlite3_bind_int64(st, 2, ids[f]);
            b = b ? b : sqlite3_bind_int64(st, 3, (sqlite3_int64)off);
        } else { /* function_id and offset stay NULL */
            b = b ? b : sqlite3_bind_null(st, 2);
            b = b ? b : sqlite3_bind_null(st, 3);
        }
        b = b ? b : sqlite3_bind_int64(st, 4, (sqlite3_int64)e->pc);
        b = b ? b : sqlite3_bind_int64(st, 5, (sqlite3_int64)e->count);
        rc = pp__pdb_run(p, st, b, err, errcap);
    }
    return pp__pdb_finalize(p, st, err, errcap) || rc ? -1 : 0;
}

/* Exact counts (edges: transfers, else instructions); a count reported
 * twice for one instruction or transfer (several VMs) is summed. */
static int insert_counts(profile_db *p, int64_t run, const reg_counts *c, int edges,
                         const int64_t *ids, char *err, size_t errcap)
{
    const char *sql = edges ? "INSERT INTO edge_counts (run_id, function_id, from_offset,"
                              " to_offset, count, to_function_id) VALUES (?1,?2,?3,?4,?5,?6)"
                              " ON CONFLICT (function_id, from_offset, to_function_id, to_offset)"
                              " DO UPDATE SET count = count + excluded.count"
                              " WHERE count <= 9223372036854775807 - excluded.count"
                            : "INSERT INTO exec_counts (run_id, function_id, offset, count)"
                              " VALUES (?1,?2,?3,?5)"
                              " ON CONFLICT (function_id, offset)"
                              " DO UPDATE SET count = count + excluded.count"
                              " WHERE count <= 9223372036854775807 - excluded.count";
    sqlite3_stmt *st;
    if (pp__pdb_prepare(p, sql, &st, err, errcap) != 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < c->n; i++) {
        const reg_count *k = &c->items[i];
        int b = sqlite3_bind_int64(st, 1, run);
        b = b ? b : sqlite3_bind_int64(st, 2, ids[k->func]);
        b = b ? b : sqlite3_bind_int64(st, 3, k->from);
        b = b ? b : edges ? sqlite3_bind_int64(st, 4, k->to) : SQLITE_OK;
        b = b ? b : sqlite3_bind_int64(st, 5, (sqlite3_int64)k->count);
        b = b ? b : edges ? sqlite3_bind_int64(st, 6, ids[k->to_func]) : SQLITE_OK;
        rc = pp__pdb_run(p, st, b, err, errcap);
        /* No row changed: the sum would pass INT64_MAX (the WHERE above). */
        if (rc == 0 && sqlite3_changes(p->db) == 0)
            rc = base_fail(err, errcap,
                           "%s: the exact count of offset %u of a function would pass %lld when"
                           " added to the one stored; not stored",
                           p->path, (unsigned)k->from, (long long)INT64_MAX);
    }
    return pp__pdb_finalize(p, st, err, errcap) || rc ? -1 : 0;
}

/* The run row's totals; cut_short: functions whose code stopped decoding. */
static int end_run_row(profile_db *p, int64_t run, const run_end *end, uint64_t cut_short,
                       char *err, size_t errcap)
{
    char now[64], incomplete[768];
    utc_now(now, sizeof now);
    const pulleyprof_summary *s = end->summary;
    const char *outcome = end->outcome;
    if (end->lost) {
        snprintf(incomplete, sizeof incomplete, "incomplete: %s (%s)", end->lost,
                 outcome ? outcome : "outcome unknown");
        outcome = incomplete;
    }
    sqlite3_stmt *st;
    if (pp__pdb_prepare(p,
                    "UPDATE runs SET end_time = ?, duration_ns = ?, sampled_ns = ?,"
                    " samples_taken = ?, samples_written = ?, samples_dropped = ?,"
                    " ticks_missed = ?, bytes_stored = ?, outcome = ?, exit_status = ?,"
                    " counts_unmapped = ?, functions_cut_short = ?, sampler_cpu_ns = ?"
                    " WHERE id = ?",
                    &st, err, errcap) != 0)
        return -1;
    int b = bind_text(st, 1, now);
    b = b ? b : sqlite3_bind_int64(st, 2, (sqlite3_int64)end->duration_ns);
    b = b ? b : sqlite3_bind_int64(st, 3, (sqlite3_int64)s->sampled_ns);
    b = b ? b : sqlite3_bind_int64(st, 4, (sqlite3_int64)s->samples_taken);
    b = b ? b : sqlite3_bind_int64(st, 5, (sqlite3_int64)s->samples_written);
    b = b ? b : sqlite3_bind_int64(st, 6, (sqlite3_int64)s->samples_dropped);
    b = b ? b : sqlite3_bind_int64(st, 7, (sqlite3_int64)s->ticks_missed);
    b = b ? b : sqlite3_bind_int64(st, 8, (sqlite3_int64)s->bytes_stored);
    b = b ? b : bind_text(st, 9, outcome);
    b = b ? b : end->has_exit_status ? sqlite3_bind_int(st, 10, end->exit_status)
                                     : sqlite3_bind_null(st, 10);
    b = b ? b : sqlite3_bind_int64(st, 11, (sqlite3_int64)s->counts_unmapped);
    b = b ? b : sqlite3_bind_int64(st, 12, (sqlite3_int64)cut_short);
    b = b ? b : s->sampler_cpu_ns ? sqlite3_bind_int64(st, 13, (sqlite3_int64)s->sampler_cpu_ns)
                                  : sqlite3_bind_null(st, 13);
    b = b ? b : sqlite3_bind_int64(st, 14, run);
    int rc = pp__pdb_run(p, st, b, err, errcap);
    return pp__pdb_finalize(p, st, err, errcap) || rc ? -1 : 0;
}

/* Decode the functions c does not hold yet: -1 with err when out of memory. */
static int decode_rest(registry *r, const run_catalog *c, char *err, size_t errcap)
{
    for (size_t i = c->nfuncs; i < r->nfuncs; i++)
        if (pp__registry_decode(r, i) != 0) {
            snprintf(err, errcap, "out of memory decoding the functions");
            return -1;
        }
    return 0;
}

/* The samples per instruction: h itself, or with run_starts each sample
 * spread over its run first. */
static int insert_samples(profile_db *p, int64_t run, const registry *r, const pc_hist *h,
                          bool run_starts, const int64_t *ids, char *err, size_t errcap)
{
    if (!run_starts)
        return insert_pc_samples(p, run, r, h, ids, err, errcap);
    pc_hist spread = {0};
    int rc = pp__spread_runs(r, h, &spread) != 0
                 ? base_fail(err, errcap, "out of memory spreading the samples over their runs")
                 : insert_pc_samples(p, run, r, &spread, ids, err, errcap);
    pp__pc_hist_free(&spread);
    return rc;
}

static int write_content(profile_db *p, int64_t run, registry *r, const pc_hist *h,
                         bool run_starts, run_catalog *c, uint64_t *cut_short, char *err,
                         size_t errcap)
{
    /* Those in c were decoded to be written: then every function is, and
     * the samples find their instruction starts. */
    return decode_rest(r, c, err, errcap) ||
                   pp__catalog_write(p, run, r->modules, r->nmodules,
                                     r->nfuncs > c->nfuncs ? r->funcs + c->nfuncs : NULL,
                                     r->nfuncs - c->nfuncs, c, cut_short, err, errcap) ||
                   insert_samples(p, run, r, h, run_starts, c->func_ids, err, errcap) ||
                   insert_counts(p, run, &r->execs, 0, c->func_ids, err, errcap) ||
                   insert_counts(p, run, &r->edges, 1, c->func_ids, err, errcap)
               ? -1
               : 0;
}

int pp__run_store_finish(profile_db *p, int64_t run_id, registry *r, const pc_hist *h,
                         run_catalog *c, const run_end *end, char *err, size_t errcap)
{
    pp__pdb_lock(p);
    int rc = -1;
    uint64_t cut_short = 0;
    size_t nfuncs = r->nfuncs - c->nfuncs;
    if (pp__pdb_begin(p, err, errcap) == 0) {
        if (write_content(p, run_id, r, h, end->run_starts, c, &cut_short, err, errcap) == 0 &&
            end_run_row(p, run_id, end, c->cut_short + cut_short, err, errcap) == 0 &&
            pp__pdb_commit(p, err, errcap) == 0)
            rc = 0;
        else
            pp__pdb_rollback(p);
    }
    pp__catalog_finish(c); /* the connection closes next */
    if (rc == 0) {
        pp__catalog_written(c, r->nmodules, nfuncs, cut_short);
    } else {
        /* The content could not be written: still end the run row. */
        char ignored[256], what[640];
        run_end lost = *end;
        if (!lost.lost) {
            snprintf(what, sizeof what, "functions, instructions and counts not stored: %s", err);
            snprintf(err, errcap, "%s", what);
            lost.lost = what;
        }
        if (pp__pdb_begin(p, ignored, sizeof ignored) == 0) {
            if (end_run_row(p, run_id, &lost, c->cut_short, ignored, sizeof ignored) != 0 ||
                pp__pdb_commit(p, ignored, sizeof ignored) != 0)
                pp__pdb_rollback(p);
        }
    }
    pp__pdb_unlock(p);
    return rc;
}
