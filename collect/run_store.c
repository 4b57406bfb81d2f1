/*
 * run_store.c - the rows of one run (see run_store.h).  Every SQLite call
 * is checked; a failed transaction is rolled back.
 */
#include "run_store.h"

#include "func_checksum.h"
#include "sample_codec.h"
#include "stored_text.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

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
    return insert_parts(p, run, isa, err, errcap);
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
                    " dispatch_cost) VALUES (?,?,?,?,?,?,?,?,?,?,?,1,?)",
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

/* ---- the catalog: modules, and functions with their instructions ------- */

enum { TEXT_CAP = 512 };

static int insert_modules(profile_db *p, int64_t run, const reg_module *mods, size_t from,
                          size_t to, int64_t *ids, char *err, size_t errcap)
{
    sqlite3_stmt *st;
    if (pp__pdb_prepare(p, "INSERT INTO modules (run_id, name) VALUES (?,?)", &st, err, errcap) != 0)
        return -1;
    int rc = 0;
    for (size_t i = from; rc == 0 && i < to; i++) {
        int b = sqlite3_bind_int64(st, 1, run);
        b = b ? b : bind_text(st, 2, mods[i].name);
        rc = pp__pdb_run(p, st, b, err, errcap);
        ids[i] = sqlite3_last_insert_rowid(p->db);
    }
    return pp__pdb_finalize(p, st, err, errcap) || rc ? -1 : 0;
}

static int insert_functions(profile_db *p, int64_t run, const reg_function *funcs, size_t from,
                            size_t to, const int64_t *module_ids, int64_t *ids, char *err,
                            size_t errcap)
{
    sqlite3_stmt *st;
    if (pp__pdb_prepare(p,
                    "INSERT INTO functions (run_id, module_id, idx, name, address, size, code)"
                    " VALUES (?,?,?,?,?,?,?)",
                    &st, err, errcap) != 0)
        return -1;
    int rc = 0;
    for (size_t i = from; rc == 0 && i < to; i++) {
        const reg_function *f = &funcs[i];
        int b = sqlite3_bind_int64(st, 1, run);
        b = b ? b : sqlite3_bind_int64(st, 2, module_ids[f->module]);
        b = b ? b : sqlite3_bind_int64(st, 3, f->index);
        b = b ? b : bind_text(st, 4, f->name);
        b = b ? b : sqlite3_bind_int64(st, 5, (sqlite3_int64)f->address);
        b = b ? b : sqlite3_bind_int64(st, 6, (sqlite3_int64)f->size);
        b = b ? b : sqlite3_bind_blob64(st, 7, f->code, f->size, SQLITE_STATIC);
        rc = pp__pdb_run(p, st, b, err, errcap);
        ids[i] = sqlite3_last_insert_rowid(p->db);
    }
    return pp__pdb_finalize(p, st, err, errcap) || rc ? -1 : 0;
}

/* One decoded instruction's operand columns (regs, imms, targets) as
 * text lists; targets may be long (a jump table), so they get a heap
 * buffer.  0, or -1 when out of memory. */
typedef struct operand_text {
    char regs[PULLEYPROF_MAX_REGS * 12], imms[PULLEYPROF_MAX_IMMS * 22];
    char *targets;
    size_t targets_cap;
} operand_text;

static int format_operands(operand_text *t, const pulleyprof_insn *insn)
{
    int64_t v[PULLEYPROF_MAX_REGS > PULLEYPROF_MAX_IMMS ? PULLEYPROF_MAX_REGS
                                                        : PULLEYPROF_MAX_IMMS];
    for (unsigned i = 0; i < insn->nregs; i++)
        v[i] = insn->regs[i];
    fmt_write_ints(t->regs, sizeof t->regs, v, insn->nregs);
    fmt_write_ints(t->imms, sizeof t->imms, insn->imms, insn->nimms);
    size_t need = insn->ntargets * 11 + 1;
    if (BASE_GROW(t->targets, t->targets_cap, need, 0) != 0)
        return -1;
    size_t len = 0;
    t->targets[0] = '\0';
    for (size_t i = 0; i < insn->ntargets; i++)
        len += (size_t)snprintf(t->targets + len, t->targets_cap - len, "%s%" PRIu32, i ? " " : "",
                                insn->targets[i]);
    return 0;
}

/* Decode every function from its start into its instruction rows, with
 * their operands and branch targets, and store the function's checksum of
 * its code and those rows (format/func_checksum.h).  A function whose bytes
 * stop decoding keeps the rows before them and counts in *cut_short. */
static int insert_instructions(profile_db *p, const isa_rows *isa, const reg_module *mods,
                               const reg_function *funcs, size_t from, size_t to,
                               const int64_t *ids, uint64_t *cut_short, char *err,
                               size_t errcap)
{
    sqlite3_stmt *st, *sum;
    if (pp__pdb_prepare(p,
                    "INSERT INTO instructions (function_id, offset, length, opcode, text, regs,"
                    " imms, targets) VALUES (?,?,?,?,?,?,?,?)",
                    &st, err, errcap) != 0)
        return -1;
    if (pp__pdb_prepare(p, "UPDATE functions SET checksum = ? WHERE id = ?", &sum, err, errcap) != 0) {
        pp__pdb_finalize(p, st, err, errcap);
        return -1;
    }
    int rc = 0;
    char text[TEXT_CAP];
    pulleyprof_insn insn = {0};
    operand_text ot = {0};
    for (size_t i = from; rc == 0 && i < to; i++) {
        const reg_function *f = &funcs[i];
        const void *ctx = mods[f->module].decode_ctx;
        uint64_t h = pvm_checksum_bytes(PVM_CHECKSUM_START, f->code, f->size);
        for (size_t off = 0; rc == 0 && off < f->size; off += insn.length) {
            if (pp__isa_rows_decode(isa, ctx, f->code, f->size, off, &insn, text, sizeof text) != 0) {
                ++*cut_short;
                break;
            }
            if (format_operands(&ot, &insn) != 0) {
                snprintf(err, errcap, "out of memory writing the instructions");
                rc = -1;
                break;
            }
            h = pvm_checksum_row(h, (int64_t)off, insn.length, insn.opcode, text);
            h = pvm_checksum_operands(h, ot.regs, ot.imms, ot.targets);
            int b = sqlite3_bind_int64(st, 1, ids[i]);
            b = b ? b : sqlite3_bind_int64(st, 2, (sqlite3_int64)off);
            b = b ? b : sqlite3_bind_int64(st, 3, insn.length);
            b = b ? b : sqlite3_bind_int64(st, 4, insn.opcode);
            b = b ? b : bind_text(st, 5, text);
            b = b ? b : bind_text(st, 6, ot.regs);
            b = b ? b : bind_text(st, 7, ot.imms);
            b = b ? b : bind_text(st, 8, ot.targets);
            rc = pp__pdb_run(p, st, b, err, errcap);
        }
        if (rc == 0) {
            int b = sqlite3_bind_int64(sum, 1, (sqlite3_int64)h);
            b = b ? b : sqlite3_bind_int64(sum, 2, ids[i]);
            rc = pp__pdb_run(p, sum, b, err, errcap);
        }
    }
    free(insn.targets);
    free(ot.targets);
    int fin = pp__pdb_finalize(p, sum, err, errcap);
    return pp__pdb_finalize(p, st, err, errcap) || fin || rc ? -1 : 0;
}

void pp__run_catalog_free(run_catalog *c)
{
    free(c->module_ids);
    free(c->func_ids);
    *c = (run_catalog){0};
}

/* Room for nmods module ids and nfuncs function ids (never less than c
 * holds). */
static int catalog_reserve(run_catalog *c, size_t nmods, size_t nfuncs, char *err, size_t errcap)
{
    nmods = nmods > c->nmodules ? nmods : c->nmodules;
    nfuncs = nfuncs > c->nfuncs ? nfuncs : c->nfuncs;
    int64_t *m = realloc(c->module_ids, (nmods + 1) * sizeof *m);
    if (m)
        c->module_ids = m;
    int64_t *f = m ? realloc(c->func_ids, (nfuncs + 1) * sizeof *f) : NULL;
    if (f)
        c->func_ids = f;
    if (!m || !f) {
        snprintf(err, errcap, "out of memory writing the functions");
        return -1;
    }
    return 0;
}

/* Inside a transaction: the part of the lists c does not hold; c is
 * extended by the caller once the transaction commits. */
static int write_catalog(profile_db *p, int64_t run, const isa_rows *isa,
                         const reg_module *mods, size_t nmods, const reg_function *funcs,
                         size_t nfuncs, run_catalog *c, uint64_t *cut_short, char *err,
                         size_t errcap)
{
    size_t m0 = c->nmodules < nmods ? c->nmodules : nmods;
    size_t f0 = c->nfuncs < nfuncs ? c->nfuncs : nfuncs;
    return catalog_reserve(c, nmods, nfuncs, err, errcap) ||
                   insert_modules(p, run, mods, m0, nmods, c->module_ids, err, errcap) ||
                   insert_functions(p, run, funcs, f0, nfuncs, c->module_ids, c->func_ids, err,
                                    errcap) ||
                   insert_instructions(p, isa, mods, funcs, f0, nfuncs, c->func_ids, cut_short, err,
                                       errcap)
               ? -1
               : 0;
}

static void catalog_written(run_catalog *c, size_t nmods, size_t nfuncs, uint64_t cut_short)
{
    c->cut_short += cut_short;
    if (nmods > c->nmodules)
        c->nmodules = nmods;
    if (nfuncs > c->nfuncs)
        c->nfuncs = nfuncs;
}

/* Functions written per transaction: the writer's chunk commits, which
 * share the connection, wait for one batch at most, not for the whole
 * catalog (a large module under a sanitizer takes a minute). */
enum { CATALOG_BATCH = 256 };

int pp__run_store_catalog(profile_db *p, int64_t run_id, const isa_rows *isa,
                      const reg_module *mods, size_t nmods, const reg_function *funcs,
                      size_t nfuncs, run_catalog *c, char *err, size_t errcap)
{
    if (catalog_reserve(c, nmods, nfuncs, err, errcap) != 0)
        return -1;
    size_t done = c->nfuncs < nfuncs ? c->nfuncs : nfuncs;
    do {
        size_t to = nfuncs - done > CATALOG_BATCH ? done + CATALOG_BATCH : nfuncs;
        pp__pdb_lock(p);
        int rc = -1;
        uint64_t cut_short = 0;
        if (pp__pdb_begin(p, err, errcap) == 0) {
            if (write_catalog(p, run_id, isa, mods, nmods, funcs, to, c, &cut_short, err,
                              errcap) == 0 &&
                pp__pdb_commit(p, err, errcap) == 0)
                rc = 0;
            else
                pp__pdb_rollback(p);
        }
        if (rc == 0)
            catalog_written(c, nmods, to, cut_short);
        pp__pdb_unlock(p);
        if (rc != 0)
            return -1;
        done = to;
    } while (done < nfuncs);
    return 0;
}

/* ---- the end of a run --------------------------------------------------- */

/* The offset of the instruction of function `id` (its rows written) that
 * holds byte `off`: off itself, or the start before it when an interpreter
 * records an address inside the instruction it runs (CPython's caller
 * frames keep the last unit of their CALL).  -1 on an SQLite error. */
static int64_t instruction_at(sqlite3_stmt *st, int64_t id, int64_t off)
{
    int b = sqlite3_bind_int64(st, 1, id);
    b = b ? b : sqlite3_bind_int64(st, 2, off);
    int rc = b ? b : sqlite3_step(st);
    int64_t at = rc == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER
                     ? sqlite3_column_int64(st, 0)
                     : off;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        at = -1;
    sqlite3_reset(st);
    return at;
}

static int insert_pc_samples(profile_db *p, int64_t run, const registry *r, const pc_hist *h,
                             const int64_t *ids, char *err, size_t errcap)
{
    sqlite3_stmt *st, *at_st;
    if (pp__pdb_prepare(p,
                    "INSERT INTO pc_samples (run_id, function_id, offset, pc, samples)"
                    " VALUES (?,?,?,?,?)",
                    &st, err, errcap) != 0)
        return -1;
    if (pp__pdb_prepare(p,
                    "SELECT max(offset) FROM instructions WHERE function_id = ?1 AND offset <= ?2",
                    &at_st, err, errcap) != 0) {
        pp__pdb_finalize(p, st, err, errcap);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < h->cap; i++) {
        const pc_hist_entry *e = &h->slots[i];
        if (!e->count)
            continue;
        int f = e->pc ? pp__registry_find_pc(r, (uintptr_t)e->pc) : -1;
        int b = sqlite3_bind_int64(st, 1, run);
        if (f >= 0) {
            int64_t off = instruction_at(at_st, ids[f], (int64_t)(e->pc - r->funcs[f].address));
            if (off < 0)
                b = b ? b : SQLITE_ERROR;
            b = b ? b : sqlite3_bind_int64(st, 2, ids[f]);
            b = b ? b : sqlite3_bind_int64(st, 3, off);
        } else { /* function_id and offset stay NULL */
            b = b ? b : sqlite3_bind_null(st, 2);
            b = b ? b : sqlite3_bind_null(st, 3);
        }
        b = b ? b : sqlite3_bind_int64(st, 4, (sqlite3_int64)e->pc);
        b = b ? b : sqlite3_bind_int64(st, 5, (sqlite3_int64)e->count);
        rc = pp__pdb_run(p, st, b, err, errcap);
    }
    int fin = pp__pdb_finalize(p, at_st, err, errcap);
    return pp__pdb_finalize(p, st, err, errcap) || fin || rc ? -1 : 0;
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
                            : "INSERT INTO exec_counts (run_id, function_id, offset, count)"
                              " VALUES (?1,?2,?3,?5)"
                              " ON CONFLICT (function_id, offset)"
                              " DO UPDATE SET count = count + excluded.count";
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
                    " counts_unmapped = ?, functions_cut_short = ? WHERE id = ?",
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
    b = b ? b : sqlite3_bind_int64(st, 13, run);
    int rc = pp__pdb_run(p, st, b, err, errcap);
    return pp__pdb_finalize(p, st, err, errcap) || rc ? -1 : 0;
}

static int write_content(profile_db *p, int64_t run, const isa_rows *isa, const registry *r,
                         const pc_hist *h, run_catalog *c, uint64_t *cut_short, char *err,
                         size_t errcap)
{
    return write_catalog(p, run, isa, r->modules, r->nmodules, r->funcs, r->nfuncs, c, cut_short,
                         err, errcap) ||
                   insert_pc_samples(p, run, r, h, c->func_ids, err, errcap) ||
                   insert_counts(p, run, &r->execs, 0, c->func_ids, err, errcap) ||
                   insert_counts(p, run, &r->edges, 1, c->func_ids, err, errcap)
               ? -1
               : 0;
}

int pp__run_store_finish(profile_db *p, int64_t run_id, const isa_rows *isa, const registry *r,
                     const pc_hist *h, run_catalog *c, const run_end *end, char *err,
                     size_t errcap)
{
    pp__pdb_lock(p);
    int rc = -1;
    uint64_t cut_short = 0;
    if (pp__pdb_begin(p, err, errcap) == 0) {
        if (write_content(p, run_id, isa, r, h, c, &cut_short, err, errcap) == 0 &&
            end_run_row(p, run_id, end, c->cut_short + cut_short, err, errcap) == 0 &&
            pp__pdb_commit(p, err, errcap) == 0)
            rc = 0;
        else
            pp__pdb_rollback(p);
    }
    if (rc == 0) {
        catalog_written(c, r->nmodules, r->nfuncs, cut_short);
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
