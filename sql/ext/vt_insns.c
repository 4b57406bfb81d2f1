/*
 * vt_insns.c - the table-valued function
 *
 *   pulley_insns(code [, run_id [, module_id]])
 *       -> one row per instruction of a code BLOB:
 *          (offset, length, opcode, name, text)
 *
 * decoded with the opcode table stored with run `run_id` (the compiled-in
 * one when it is NULL or absent), function operands named after the
 * functions of module `module_id`.  The rows have the columns of the
 * `instructions` table (plus the mnemonic), so the two can be compared or
 * joined.  The whole code is decoded before the first row: a bad BLOB is
 * an error, never part of a listing.  Code of a run of another
 * interpreter (an encoding not Pulley's) gives the instruction rows its
 * own decoder stored.  The arguments are the hidden columns
 * arg_*: named so that `functions, pulley_insns(code, run_id, module_id)`
 * finds the columns of `functions`, not these.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extension.h"
#include "insn_text.h"
#include "profile_lookup.h"

enum { COL_OFFSET, COL_LENGTH, COL_OPCODE, COL_NAME, COL_TEXT, COL_CODE, COL_RUN, COL_MODULE };
enum { ARG_CODE = 1, ARG_RUN = 2, ARG_MODULE = 4 };

typedef struct insns_vtab {
    sqlite3_vtab base;
    sqlite3 *db;
    sx_ext *ext;
} insns_vtab;

typedef struct insns_cursor {
    sqlite3_vtab_cursor base;
    unsigned char *code; /* a copy of the argument */
    size_t size;
    int has_code, has_run, has_module;
    sqlite3_int64 run, module;
    /* Kept from one xFilter to the next while the argument stays the same
     * (a join calls xFilter once per row of the left table). */
    ot_table run_isa;
    sqlite3_int64 run_isa_of;
    sx_names names;
    sqlite3_int64 names_of;
    int have_run_isa, have_names;
    /* Code of another interpreter: its stored rows, and the current one;
     * whether run foreign_of is one is kept like run_isa. */
    int foreign, have_foreign, run_is_foreign;
    sqlite3_int64 foreign_of;
    sx_stored stored;
    size_t row;
    /* The current instruction. */
    size_t off;
    ot_insn insn;
    sqlite3_int64 seq;
} insns_cursor;

static int insns_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                         sqlite3_vtab **out, char **errmsg)
{
    (void)argc;
    (void)argv;
    (void)errmsg;
    int rc = sx_vtab_connect(db,
                             "CREATE TABLE x(offset INTEGER, length INTEGER, opcode INTEGER,"
                             " name TEXT, text TEXT, arg_code BLOB HIDDEN,"
                             " arg_run_id INTEGER HIDDEN, arg_module_id INTEGER HIDDEN)",
                             sizeof(insns_vtab), out);
    if (rc == SQLITE_OK) {
        insns_vtab *vt = (insns_vtab *)*out;
        vt->db = db;
        vt->ext = aux;
    }
    return rc;
}

static int insns_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
    (void)vt;
    return sx_best_index(info, COL_CODE, 3);
}

static int insns_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
    (void)vt;
    return sx_cursor_open(sizeof(insns_cursor), out);
}

static int insns_close(sqlite3_vtab_cursor *cur)
{
    insns_cursor *c = (insns_cursor *)cur;
    sqlite3_free(c->code);
    ot_table_free(&c->run_isa);
    sx_names_free(&c->names);
    sx_stored_free(&c->stored);
    sqlite3_free(c);
    return SQLITE_OK;
}

static int fail(insns_cursor *c, const char *msg)
{
    sqlite3_vtab *vt = c->base.pVtab;
    sqlite3_free(vt->zErrMsg);
    vt->zErrMsg = sqlite3_mprintf("pulley_insns: %s", msg);
    return vt->zErrMsg ? SQLITE_ERROR : SQLITE_NOMEM;
}

static const ot_table *isa_of(insns_cursor *c)
{
    insns_vtab *vt = (insns_vtab *)c->base.pVtab;
    return c->has_run ? &c->run_isa : &vt->ext->builtin;
}

/* Load what the arguments name, unless it is loaded already. */
static int load_tables(insns_cursor *c)
{
    insns_vtab *vt = (insns_vtab *)c->base.pVtab;
    char err[512];
    if (c->has_run && !(c->have_run_isa && c->run_isa_of == c->run)) {
        ot_table_free(&c->run_isa);
        c->have_run_isa = 0;
        if (sx_load_run_isa(vt->db, c->run, &c->run_isa, err, sizeof err) != 0)
            return fail(c, err);
        c->have_run_isa = 1;
        c->run_isa_of = c->run;
    }
    if (c->has_module && !(c->have_names && c->names_of == c->module)) {
        sx_names_free(&c->names);
        c->have_names = 0;
        if (sx_load_module_names(vt->db, c->module, &c->names, err, sizeof err) != 0)
            return fail(c, err);
        c->have_names = 1;
        c->names_of = c->module;
    }
    return SQLITE_OK;
}

static int insns_filter(sqlite3_vtab_cursor *cur, int idx_num, const char *idx_str, int argc,
                        sqlite3_value **argv)
{
    (void)idx_str;
    insns_cursor *c = (insns_cursor *)cur;
    char err[512];
    sqlite3_value *code_arg = NULL, *run_arg = NULL, *module_arg = NULL;
    int i = 0;
    if ((idx_num & ARG_CODE) && i < argc)
        code_arg = argv[i++];
    if ((idx_num & ARG_RUN) && i < argc)
        run_arg = argv[i++];
    if ((idx_num & ARG_MODULE) && i < argc)
        module_arg = argv[i++];
    if (!code_arg)
        return fail(c, "the code argument is missing: pulley_insns(code [, run_id [, module_id]])");

    sqlite3_free(c->code);
    c->code = NULL;
    c->size = 0;
    c->has_code = c->has_run = c->has_module = c->foreign = 0;
    c->seq = 0;
    const unsigned char *code;
    size_t size;
    if ((c->has_code = sx_arg_blob(code_arg, "code", &code, &size, err, sizeof err)) < 0 ||
        (run_arg && (c->has_run = sx_arg_int(run_arg, "run_id", &c->run, err, sizeof err)) < 0) ||
        (module_arg &&
         (c->has_module = sx_arg_int(module_arg, "module_id", &c->module, err, sizeof err)) < 0)) {
        c->has_code = c->has_run = c->has_module = 0;
        return fail(c, err);
    }
    if (!c->has_code)
        return SQLITE_OK; /* NULL code: no rows */
    if (!(c->code = sqlite3_malloc64(size ? size : 1)))
        return SQLITE_NOMEM;
    memcpy(c->code, code, size);
    c->size = size;
    sx_stored_free(&c->stored);
    c->row = 0;
    insns_vtab *vt = (insns_vtab *)c->base.pVtab;
    if (c->has_run && !(c->have_foreign && c->foreign_of == c->run)) {
        c->have_foreign = 0;
        if ((c->run_is_foreign = sx_run_is_foreign(vt->db, c->run, err, sizeof err)) < 0) {
            c->has_code = 0;
            return fail(c, err);
        }
        c->have_foreign = 1;
        c->foreign_of = c->run;
    }
    if (c->has_run && c->run_is_foreign) {
        if (sx_load_stored(vt->db, c->run, c->code, c->size, &c->stored, err, sizeof err) != 0) {
            c->has_code = 0;
            return fail(c, err);
        }
        c->foreign = 1;
        return SQLITE_OK;
    }
    int rc = load_tables(c);
    if (rc != SQLITE_OK)
        return rc;

    const ot_table *isa = isa_of(c);
    ot_insn insn;
    for (size_t off = 0; off < c->size; off += insn.length) {
        char why[256];
        if (ot_decode(isa, c->code, c->size, off, &insn, why, sizeof why) != 0) {
            snprintf(err, sizeof err, "code is not valid at offset %zu: %s", off, why);
            return fail(c, err);
        }
    }
    c->off = 0;
    if (c->size > 0)
        ot_decode(isa, c->code, c->size, 0, &c->insn, NULL, 0);
    return SQLITE_OK;
}

static int insns_eof(sqlite3_vtab_cursor *cur)
{
    insns_cursor *c = (insns_cursor *)cur;
    if (c->has_code && c->foreign)
        return c->row >= c->stored.n;
    return !c->has_code || c->off >= c->size;
}

static int insns_next(sqlite3_vtab_cursor *cur)
{
    insns_cursor *c = (insns_cursor *)cur;
    c->seq++;
    if (c->foreign) {
        c->row++;
        return SQLITE_OK;
    }
    c->off += c->insn.length;
    if (c->off < c->size) /* decoded once in xFilter: it succeeds */
        ot_decode(isa_of(c), c->code, c->size, c->off, &c->insn, NULL, 0);
    return SQLITE_OK;
}

static int insns_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
    insns_cursor *c = (insns_cursor *)cur;
    if (c->foreign && col <= COL_TEXT) {
        const sx_stored_insn *in = &c->stored.insns[c->row];
        switch (col) {
        case COL_OFFSET: sqlite3_result_int64(ctx, in->offset); break;
        case COL_LENGTH: sqlite3_result_int64(ctx, in->length); break;
        case COL_OPCODE: sqlite3_result_int64(ctx, in->opcode); break;
        case COL_NAME: sqlite3_result_text(ctx, in->name, -1, SQLITE_TRANSIENT); break;
        default: sqlite3_result_text(ctx, in->text, -1, SQLITE_TRANSIENT); break;
        }
        return SQLITE_OK;
    }
    switch (col) {
    case COL_OFFSET: sqlite3_result_int64(ctx, (sqlite3_int64)c->off); break;
    case COL_LENGTH: sqlite3_result_int64(ctx, c->insn.length); break;
    case COL_OPCODE: sqlite3_result_int64(ctx, c->insn.op->id); break;
    case COL_NAME: sqlite3_result_text(ctx, c->insn.op->name, -1, SQLITE_TRANSIENT); break;
    case COL_TEXT: {
        sx_text text = {0};
        sx_format(&text, &c->insn, c->has_module ? &c->names : NULL);
        if (text.failed || !text.data) {
            sx_text_free(&text);
            sqlite3_result_error_nomem(ctx);
        } else {
            sqlite3_result_text64(ctx, text.data, text.len, free, SQLITE_UTF8);
        }
        break;
    }
    case COL_CODE: sqlite3_result_blob64(ctx, c->code, c->size, SQLITE_TRANSIENT); break;
    case COL_RUN:
        if (c->has_run)
            sqlite3_result_int64(ctx, c->run);
        break;
    case COL_MODULE:
        if (c->has_module)
            sqlite3_result_int64(ctx, c->module);
        break;
    default: break;
    }
    return SQLITE_OK;
}

static int insns_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
    *rowid = ((insns_cursor *)cur)->seq;
    return SQLITE_OK;
}

static const sqlite3_module insns_module = {
    .iVersion = 0,
    .xCreate = NULL, /* eponymous only: used as pulley_insns(...), never created */
    .xConnect = insns_connect,
    .xBestIndex = insns_best_index,
    .xDisconnect = sx_vtab_disconnect,
    .xDestroy = NULL,
    .xOpen = insns_open,
    .xClose = insns_close,
    .xFilter = insns_filter,
    .xNext = insns_next,
    .xEof = insns_eof,
    .xColumn = insns_column,
    .xRowid = insns_rowid,
};

static void free_ext(void *p)
{
    sx_ext *ext = p;
    ot_table_free(&ext->builtin);
    sqlite3_free(ext);
}

int sx_register_insns(sqlite3 *db, sx_ext *ext)
{
    /* On failure too, SQLite calls free_ext. */
    return sqlite3_create_module_v2(db, "pulley_insns", &insns_module, ext, free_ext);
}
