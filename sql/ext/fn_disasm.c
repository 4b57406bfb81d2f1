/*
 * fn_disasm.c - the scalar functions:
 *
 *   pulley_disasm(code [, offset [, run_id [, module_id]]])
 *       the text of every instruction of a code BLOB, one per line after
 *       its offset (offset NULL or absent), or of the one instruction at
 *       `offset`; decoded with the opcode table stored with run `run_id`
 *       (the compiled-in one when it is NULL or absent); function operands
 *       named after the functions of module `module_id`.  Code of a run of
 *       another interpreter (its encoding is not Pulley's) is listed from
 *       the instruction rows its own decoder stored.
 *   pulley_isa_hash()
 *       the hash of the compiled-in opcode table, as in runs.isa_hash.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "extension.h"
#include "insn_text.h"
#include "isa.h"
#include "profile_lookup.h"

static void error(sqlite3_context *ctx, const char *msg)
{
    char text[600];
    snprintf(text, sizeof text, "pulley_disasm: %s", msg);
    sqlite3_result_error(ctx, text, -1);
}

static void free_opcode_table(void *p)
{
    ot_table_free(p);
    free(p);
}

static void free_names(void *p)
{
    sx_names_free(p);
    free(p);
}

/* The text of every instruction, each line "OFFSET  TEXT" with the offsets
 * right-aligned.  The whole code is decoded first, so a bad blob gives an
 * error and no text. */
static int list_all(const ot_table *isa, const sx_names *names, const unsigned char *code,
                    size_t size, sx_text *out, char *err, size_t cap)
{
    ot_insn insn;
    size_t last = 0;
    for (size_t off = 0; off < size; off += insn.length) {
        char why[256];
        if (ot_decode(isa, code, size, off, &insn, why, sizeof why) != 0) {
            snprintf(err, cap, "code is not valid at offset %zu: %s", off, why);
            return -1;
        }
        last = off;
    }
    int width = snprintf(NULL, 0, "%zu", last);
    for (size_t off = 0; off < size; off += insn.length) {
        ot_decode(isa, code, size, off, &insn, NULL, 0);
        sx_text_printf(out, "%s%*zu  ", off ? "\n" : "", width, off);
        sx_format(out, &insn, names);
    }
    if (!out->data)
        sx_text_append(out, "", 0);
    return 0;
}

/* The text of the instruction at `at`, checked to be an instruction start. */
static int list_one(const ot_table *isa, const sx_names *names, const unsigned char *code,
                    size_t size, sqlite3_int64 at, sx_text *out, char *err, size_t cap)
{
    if (at < 0 || (uint64_t)at >= size) {
        snprintf(err, cap, "offset %lld is outside the code (%zu bytes)", (long long)at, size);
        return -1;
    }
    ot_insn insn;
    for (size_t off = 0;; off += insn.length) {
        char why[256];
        if (ot_decode(isa, code, size, off, &insn, why, sizeof why) != 0) {
            snprintf(err, cap, "code is not valid at offset %zu: %s", off, why);
            return -1;
        }
        if (off == (size_t)at)
            break;
        if ((size_t)at < off + insn.length) {
            snprintf(err, cap,
                     "offset %lld is not an instruction start: it is inside the %s at offset %zu",
                     (long long)at, insn.op->name, off);
            return -1;
        }
    }
    sx_format(out, &insn, names);
    return 0;
}

/* Return text as the result; SQLite frees it (with free, as it was
 * allocated), and text gives it up. */
static void result_text(sqlite3_context *ctx, sx_text *text)
{
    if (text->failed) {
        sqlite3_result_error_nomem(ctx);
    } else {
        sqlite3_result_text64(ctx, text->data, text->len, free, SQLITE_UTF8);
        text->data = NULL;
    }
}

/* The listing of code in another interpreter's encoding, or the text of
 * its instruction at `at`, from the rows stored for it. */
static int list_stored(sqlite3 *db, sqlite3_int64 run, const unsigned char *code, size_t size,
                       int has_at, sqlite3_int64 at, sx_text *out, char *err, size_t cap)
{
    sx_stored rows;
    if (sx_load_stored(db, run, code, size, &rows, err, cap) != 0)
        return -1;
    int failed = 0;
    if (!has_at) {
        int width = snprintf(NULL, 0, "%lld", (long long)rows.insns[rows.n - 1].offset);
        for (size_t i = 0; i < rows.n; i++)
            sx_text_printf(out, "%s%*lld  %s", i ? "\n" : "", width,
                           (long long)rows.insns[i].offset, rows.insns[i].text);
    } else {
        size_t i = 0;
        while (i < rows.n && rows.insns[i].offset + rows.insns[i].length <= at)
            i++;
        if (i < rows.n && rows.insns[i].offset == at) {
            sx_text_printf(out, "%s", rows.insns[i].text);
        } else if (i < rows.n && rows.insns[i].offset < at) {
            snprintf(err, cap,
                     "offset %lld is not an instruction start: it is inside the %s at offset %lld",
                     (long long)at, rows.insns[i].name ? rows.insns[i].name : "instruction",
                     (long long)rows.insns[i].offset);
            failed = 1;
        } else {
            snprintf(err, cap, "offset %lld is not the start of a stored instruction of this code",
                     (long long)at);
            failed = 1;
        }
    }
    sx_stored_free(&rows);
    return failed ? -1 : 0;
}

/* For a run of another interpreter, its stored listing as the result, and
 * 1; 1 also after the question failed, the error being the result; 0 for
 * a run of this VM. */
static int disasm_foreign(sqlite3_context *ctx, sqlite3 *db, sqlite3_int64 run,
                          const unsigned char *code, size_t size, int has_at, sqlite3_int64 at)
{
    char err[512];
    int foreign = sx_run_is_foreign(db, run, err, sizeof err);
    if (foreign == 0)
        return 0;
    sx_text text = {0};
    if (foreign < 0 || list_stored(db, run, code, size, has_at, at, &text, err, sizeof err) != 0)
        error(ctx, err);
    else
        result_text(ctx, &text);
    sx_text_free(&text);
    return 1;
}

/* Run `run`'s opcode table: the one kept with the statement (auxdata 2),
 * else one loaded now, into *loaded (for keep_loaded).  NULL after err
 * says why. */
static const ot_table *run_opcode_table(sqlite3_context *ctx, sqlite3 *db, sqlite3_int64 run,
                                        ot_table **loaded, char *err, size_t cap)
{
    ot_table *t = sqlite3_get_auxdata(ctx, 2);
    if (t)
        return t;
    if (!(t = calloc(1, sizeof *t))) {
        snprintf(err, cap, "out of memory");
        return NULL;
    }
    *loaded = t;
    return sx_load_run_isa(db, run, t, err, cap) == 0 ? t : NULL;
}

/* The names of module `module`'s functions: those kept with the statement
 * (auxdata 3), else loaded now, into *loaded (for keep_loaded).  NULL
 * after err says why. */
static const sx_names *module_names(sqlite3_context *ctx, sqlite3 *db, sqlite3_int64 module,
                                    sx_names **loaded, char *err, size_t cap)
{
    sx_names *names = sqlite3_get_auxdata(ctx, 3);
    if (names)
        return names;
    if (!(names = calloc(1, sizeof *names))) {
        snprintf(err, cap, "out of memory");
        return NULL;
    }
    *loaded = names;
    return sx_load_module_names(db, module, names, err, cap) == 0 ? names : NULL;
}

/* What this call loaded, handed over to SQLite to keep with the statement,
 * or freed after a failure.  Last of all: SQLite may free it at once. */
static void keep_loaded(sqlite3_context *ctx, int failed, ot_table *isa, sx_names *names)
{
    if (isa) {
        if (failed)
            free_opcode_table(isa);
        else
            sqlite3_set_auxdata(ctx, 2, isa, free_opcode_table);
    }
    if (names) {
        if (failed)
            free_names(names);
        else
            sqlite3_set_auxdata(ctx, 3, names, free_names);
    }
}

static void pulley_disasm(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    sx_ext *ext = sqlite3_user_data(ctx);
    sqlite3 *db = sqlite3_context_db_handle(ctx);
    char err[512];
    const unsigned char *code = NULL;
    size_t size = 0;
    sqlite3_int64 at = 0, run = 0, module = 0;
    int has_code = sx_arg_blob(argv[0], "code", &code, &size, err, sizeof err);
    int has_at = has_code < 0 || argc < 2 ? 0 : sx_arg_int(argv[1], "offset", &at, err, sizeof err);
    int has_run = has_at < 0 || argc < 3 ? 0 : sx_arg_int(argv[2], "run_id", &run, err, sizeof err);
    int has_module =
        has_run < 0 || argc < 4 ? 0 : sx_arg_int(argv[3], "module_id", &module, err, sizeof err);
    if (has_code < 0 || has_at < 0 || has_run < 0 || has_module < 0) {
        error(ctx, err);
        return;
    }
    if (!has_code) {
        sqlite3_result_null(ctx);
        return;
    }
    if (has_run && disasm_foreign(ctx, db, run, code, size, has_at, at))
        return;

    /* The run's table and the module's names: kept with the statement
     * (auxdata) while the argument stays the same, else loaded per call. */
    const ot_table *isa = &ext->builtin;
    const sx_names *names = NULL;
    ot_table *new_isa = NULL;
    sx_names *new_names = NULL;
    int failed = has_run && !(isa = run_opcode_table(ctx, db, run, &new_isa, err, sizeof err));
    if (!failed && has_module)
        failed = !(names = module_names(ctx, db, module, &new_names, err, sizeof err));

    sx_text text = {0};
    if (!failed)
        failed = has_at ? list_one(isa, names, code, size, at, &text, err, sizeof err)
                        : list_all(isa, names, code, size, &text, err, sizeof err);
    if (failed)
        error(ctx, err);
    else
        result_text(ctx, &text);
    sx_text_free(&text);
    keep_loaded(ctx, failed, new_isa, new_names);
}

static void pulley_isa_hash(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    (void)argv;
    char hash[32];
    snprintf(hash, sizeof hash, "%016" PRIx64, pvm_isa_hash());
    sqlite3_result_text(ctx, hash, -1, SQLITE_TRANSIENT);
}

int sx_register_disasm(sqlite3 *db, sx_ext *ext)
{
    int pure = SQLITE_UTF8 | SQLITE_DETERMINISTIC;
#ifdef SQLITE_INNOCUOUS
    pure |= SQLITE_INNOCUOUS;
#endif
    int rc = SQLITE_OK;
    for (int argc = 1; argc <= 4 && rc == SQLITE_OK; argc++) /* 3, 4: read the database */
        rc = sqlite3_create_function_v2(db, "pulley_disasm", argc, argc <= 2 ? pure : SQLITE_UTF8,
                                        ext, pulley_disasm, NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_create_function_v2(db, "pulley_isa_hash", 0, pure, NULL, pulley_isa_hash,
                                        NULL, NULL, NULL);
    return rc;
}
