/*
 * vt_samples.c - the table-valued function
 *
 *   pulley_samples(data [, run_id])
 *       -> one row per sample of a compressed chunk (sample_chunks.data):
 *          (seq, tick, pc, function_id, offset)
 *
 * seq counts the chunk's samples from 0, tick is the sampler's tick (1 /
 * runs.sample_hz seconds since the run started), pc the sampled address
 * (0: host time; in a run with runs.run_starts, the first instruction of
 * the run of instructions the interpreter was in, which pc_samples spreads
 * over that run).  Given the run, function_id and offset say which
 * function of that run the pc is in (NULL for host time or an address of
 * no registered function), as pc_samples does.  Chunks are decoded by
 * format/sample_codec.h, whatever their encoding.  The arguments are the
 * hidden columns arg_*, named apart from the columns of sample_chunks.
 */
#include <stdio.h>
#include <stdlib.h>

#include "extension.h"
#include "pc_map.h"
#include "profile_lookup.h"
#include "sample_codec.h"

enum { COL_SEQ, COL_TICK, COL_PC, COL_FUNCTION, COL_OFFSET, COL_DATA, COL_RUN };
enum { ARG_DATA = 1, ARG_RUN = 2 };

typedef struct samples_vtab {
    sqlite3_vtab base;
    sqlite3 *db;
} samples_vtab;

typedef struct samples_cursor {
    sqlite3_vtab_cursor base;
    sqlite3_value *data; /* the argument, for the hidden column */
    sample_rec *recs;    /* from sample_decode (malloc'd) */
    size_t n, i;
    int has_run;
    sqlite3_int64 run;
    /* The run's functions, kept while the run argument stays the same. */
    sx_pc_map map;
    sqlite3_int64 map_of;
    int have_map;
} samples_cursor;

static int samples_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                           sqlite3_vtab **out, char **errmsg)
{
    (void)aux;
    (void)argc;
    (void)argv;
    (void)errmsg;
    int rc = sx_vtab_connect(db,
                             "CREATE TABLE x(seq INTEGER, tick INTEGER, pc INTEGER,"
                             " function_id INTEGER, offset INTEGER, arg_data BLOB HIDDEN,"
                             " arg_run_id INTEGER HIDDEN)",
                             sizeof(samples_vtab), out);
    if (rc == SQLITE_OK)
        ((samples_vtab *)*out)->db = db;
    return rc;
}

static int samples_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
    (void)vt;
    return sx_best_index(info, COL_DATA, 2);
}

static int samples_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
    (void)vt;
    return sx_cursor_open(sizeof(samples_cursor), out);
}

static void clear_samples(samples_cursor *c)
{
    free(c->recs);
    c->recs = NULL;
    c->n = c->i = 0;
    sqlite3_value_free(c->data);
    c->data = NULL;
    c->has_run = 0;
}

static int samples_close(sqlite3_vtab_cursor *cur)
{
    samples_cursor *c = (samples_cursor *)cur;
    clear_samples(c);
    sx_pc_map_free(&c->map);
    sqlite3_free(c);
    return SQLITE_OK;
}

static int fail(samples_cursor *c, const char *msg)
{
    sqlite3_vtab *vt = c->base.pVtab;
    sqlite3_free(vt->zErrMsg);
    vt->zErrMsg = sqlite3_mprintf("pulley_samples: %s", msg);
    return vt->zErrMsg ? SQLITE_ERROR : SQLITE_NOMEM;
}

static int samples_filter(sqlite3_vtab_cursor *cur, int idx_num, const char *idx_str, int argc,
                          sqlite3_value **argv)
{
    (void)idx_str;
    samples_cursor *c = (samples_cursor *)cur;
    samples_vtab *vt = (samples_vtab *)cur->pVtab;
    char err[512];
    sqlite3_value *data_arg = NULL, *run_arg = NULL;
    int i = 0;
    if ((idx_num & ARG_DATA) && i < argc)
        data_arg = argv[i++];
    if ((idx_num & ARG_RUN) && i < argc)
        run_arg = argv[i++];
    clear_samples(c);
    if (!data_arg)
        return fail(c, "the data argument is missing: pulley_samples(data [, run_id])");

    const unsigned char *data;
    size_t len;
    int has_data = sx_arg_blob(data_arg, "data", &data, &len, err, sizeof err);
    int has_run =
        has_data < 0 || !run_arg ? 0 : sx_arg_int(run_arg, "run_id", &c->run, err, sizeof err);
    if (has_data < 0 || has_run < 0)
        return fail(c, err);
    if (!has_data)
        return SQLITE_OK; /* NULL data: no rows */
    if (has_run && !(c->have_map && c->map_of == c->run)) {
        sx_pc_map_free(&c->map);
        c->have_map = 0;
        if (sx_load_run_functions(vt->db, c->run, &c->map, err, sizeof err) != 0)
            return fail(c, err);
        c->have_map = 1;
        c->map_of = c->run;
    }
    c->has_run = has_run;
    if (!(c->data = sqlite3_value_dup(data_arg)))
        return SQLITE_NOMEM;
    char why[256];
    if (sample_decode(data, len, &c->recs, &c->n, why, sizeof why) != 0) {
        c->recs = NULL;
        c->n = 0;
        return fail(c, why);
    }
    return SQLITE_OK;
}

static int samples_eof(sqlite3_vtab_cursor *cur)
{
    samples_cursor *c = (samples_cursor *)cur;
    return c->i >= c->n;
}

static int samples_next(sqlite3_vtab_cursor *cur)
{
    ((samples_cursor *)cur)->i++;
    return SQLITE_OK;
}

/* The function of the current sample's pc, or NULL (host time, no run). */
static const sx_range *function_of(const samples_cursor *c)
{
    uint64_t pc = c->recs[c->i].pc;
    return c->has_run && pc != 0 ? sx_pc_map_find(&c->map, pc) : NULL;
}

static int samples_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
    samples_cursor *c = (samples_cursor *)cur;
    const sample_rec *s = &c->recs[c->i];
    const sx_range *f;
    switch (col) {
    case COL_SEQ: sqlite3_result_int64(ctx, (sqlite3_int64)c->i); break;
    case COL_TICK: sqlite3_result_int64(ctx, (sqlite3_int64)s->tick); break;
    case COL_PC: sqlite3_result_int64(ctx, (sqlite3_int64)s->pc); break;
    case COL_FUNCTION:
        if ((f = function_of(c)))
            sqlite3_result_int64(ctx, f->function_id);
        break;
    case COL_OFFSET:
        if ((f = function_of(c)))
            sqlite3_result_int64(ctx, (sqlite3_int64)(s->pc - f->address));
        break;
    case COL_DATA: sqlite3_result_value(ctx, c->data); break;
    case COL_RUN:
        if (c->has_run)
            sqlite3_result_int64(ctx, c->run);
        break;
    default: break;
    }
    return SQLITE_OK;
}

static int samples_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
    *rowid = (sqlite3_int64)((samples_cursor *)cur)->i;
    return SQLITE_OK;
}

static const sqlite3_module samples_module = {
    .iVersion = 0,
    .xCreate = NULL, /* eponymous only: used as pulley_samples(...), never created */
    .xConnect = samples_connect,
    .xBestIndex = samples_best_index,
    .xDisconnect = sx_vtab_disconnect,
    .xDestroy = NULL,
    .xOpen = samples_open,
    .xClose = samples_close,
    .xFilter = samples_filter,
    .xNext = samples_next,
    .xEof = samples_eof,
    .xColumn = samples_column,
    .xRowid = samples_rowid,
};

int sx_register_samples(sqlite3 *db, sx_ext *ext)
{
    (void)ext;
    return sqlite3_create_module_v2(db, "pulley_samples", &samples_module, NULL, NULL);
}
