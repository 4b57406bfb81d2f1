/*
 * module_io.c - the .pbc container (layout in module.h): writing a module
 * as bytes, reading bytes back into a module, and reading whole files for
 * the tools.  The reader trusts nothing: every count, length and index is
 * checked against the bytes that remain before anything is allocated from
 * it, and every error names the byte offset where the problem is.  It does
 * not look inside code; the verifier (verify.c) does that.
 */
#include "module.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- writing ------------------------------------------------------------- */

static void put_string(pvm_buf *out, const char *s)
{
    size_t len = strlen(s);
    pvm_buf_u32(out, (uint32_t)len);
    pvm_buf_append(out, s, len);
}

int pvm_module_write(const pvm_module *m, pvm_buf *out, pvm_error *err)
{
    pvm_buf_append(out, PVM_PBC_MAGIC, 4);
    pvm_buf_u32(out, PVM_PBC_VERSION);
    pvm_buf_u32(out, m->entry);
    pvm_buf_u64(out, m->heap_min);
    pvm_buf_u64(out, m->heap_max);
    pvm_buf_u32(out, m->nglobals);
    pvm_buf_u32(out, m->ntables);
    pvm_buf_u32(out, m->nimports);
    for (uint32_t i = 0; i < m->nimports; i++)
        put_string(out, m->imports[i]);
    pvm_buf_u32(out, m->ntypes);
    for (uint32_t i = 0; i < m->ntypes; i++) {
        put_string(out, m->types[i].params);
        put_string(out, m->types[i].results);
    }
    pvm_buf_u32(out, m->nfuncs);
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        const pvm_function *f = &m->funcs[i];
        put_string(out, f->name);
        put_string(out, f->params);
        put_string(out, f->results);
        pvm_buf_u32(out, f->size);
        pvm_buf_append(out, m->code + f->offset, f->size);
    }
    pvm_buf_u32(out, m->ndata);
    for (uint32_t i = 0; i < m->ndata; i++) {
        pvm_buf_u64(out, m->data[i].offset);
        pvm_buf_u32(out, m->data[i].size);
        pvm_buf_append(out, m->data[i].bytes, m->data[i].size);
    }
    pvm_buf_u32(out, m->start);
    pvm_buf_u32(out, m->heap_reg);
    for (uint32_t i = 0; i < m->nglobals; i++)
        pvm_buf_u64(out, m->global_init ? m->global_init[i] : 0);
    for (uint32_t i = 0; i < m->ntables; i++) {
        pvm_table_decl d = m->table_decl ? m->table_decl[i] : (pvm_table_decl){0, 0};
        pvm_buf_u32(out, d.size);
        pvm_buf_u32(out, d.max);
    }
    pvm_buf_u32(out, m->nelems);
    for (uint32_t i = 0; i < m->nelems; i++) {
        const pvm_elem_segment *e = &m->elems[i];
        pvm_buf_u32(out, e->table);
        pvm_buf_u32(out, e->offset);
        pvm_buf_u32(out, e->count);
        for (uint32_t k = 0; k < e->count; k++)
            pvm_buf_u32(out, e->funcs[k]);
    }
    return out->failed ? pvm_errorf(err, "out of memory") : 0;
}

/* ---- reading ------------------------------------------------------------- */

typedef struct reader {
    const uint8_t *bytes;
    size_t size, pos;
    pvm_error *err;
} reader;

static size_t remaining(const reader *r) { return r->size - r->pos; }

static int read_u32(reader *r, const char *what, uint32_t *v)
{
    if (remaining(r) < 4)
        return pvm_errorf(r->err, "offset %zu: %s runs past the end of the file", r->pos, what);
    *v = pvm_rd32(r->bytes + r->pos);
    r->pos += 4;
    return 0;
}

static int read_u64(reader *r, const char *what, uint64_t *v)
{
    if (remaining(r) < 8)
        return pvm_errorf(r->err, "offset %zu: %s runs past the end of the file", r->pos, what);
    *v = pvm_rd64(r->bytes + r->pos);
    r->pos += 8;
    return 0;
}

/* A count of items that take at least `item_size` bytes each. */
static int read_count(reader *r, const char *what, uint32_t limit, size_t item_size,
                      uint32_t *count)
{
    size_t at = r->pos;
    if (read_u32(r, what, count))
        return -1;
    if (*count > limit)
        return pvm_errorf(r->err, "offset %zu: %s %" PRIu32 " exceeds the limit of %" PRIu32,
                          at, what, *count, limit);
    if (*count > remaining(r) / item_size)
        return pvm_errorf(r->err, "offset %zu: %s %" PRIu32 " exceeds remaining bytes", at,
                          what, *count);
    return 0;
}

/* A length of bytes that follow it. */
static int read_length(reader *r, const char *what, size_t limit, uint32_t *len)
{
    size_t at = r->pos;
    if (read_u32(r, what, len))
        return -1;
    if (*len > limit)
        return pvm_errorf(r->err, "offset %zu: %s %" PRIu32 " exceeds the limit of %zu", at,
                          what, *len, limit);
    if (*len > remaining(r))
        return pvm_errorf(r->err, "offset %zu: %s %" PRIu32 " exceeds remaining bytes", at,
                          what, *len);
    return 0;
}

/* A string of at most `limit` bytes without NUL, copied into buf (limit + 1
 * bytes) with a terminating NUL. */
static int read_string(reader *r, const char *what, size_t limit, char *buf)
{
    char length_of[64];
    snprintf(length_of, sizeof length_of, "%s length", what);
    uint32_t len = 0;
    if (read_length(r, length_of, limit, &len))
        return -1;
    if (memchr(r->bytes + r->pos, 0, len))
        return pvm_errorf(r->err, "offset %zu: %s contains a NUL byte", r->pos, what);
    memcpy(buf, r->bytes + r->pos, len);
    buf[len] = 0;
    r->pos += len;
    return 0;
}

static int read_types(reader *r, const char *what, char buf[PVM_MAX_TYPES + 1])
{
    size_t at = r->pos;
    if (read_string(r, what, PVM_MAX_TYPES, buf))
        return -1;
    if (!pvm_valid_types(buf))
        return pvm_errorf(r->err, "offset %zu: bad %s '%s' (letters i, l, f, d, r, e)", at, what, buf);
    return 0;
}

/* A name and where it was read, to find duplicates. */
typedef struct named {
    const char *name;
    size_t at;
} named;

static int compare_named(const void *a, const void *b)
{
    const named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->at > y->at) - (x->at < y->at);
}

/* Reject a name that occurs twice (the assembler could not name both). */
static int check_unique(named *v, uint32_t n, const char *what, pvm_error *err)
{
    qsort(v, n, sizeof *v, compare_named);
    for (uint32_t i = 1; i < n; i++)
        if (strcmp(v[i - 1].name, v[i].name) == 0)
            return pvm_errorf(err, "offset %zu: duplicate %s name '%.64s'", v[i].at, what,
                              v[i].name);
    return 0;
}

/* A failure of a module.c builder, with the offset of what was being added. */
static int build_error(reader *r, size_t at, const pvm_error *e)
{
    return pvm_errorf(r->err, "offset %zu: %s", at, e->msg);
}

static int read_imports(reader *r, pvm_module *m, named **names)
{
    uint32_t n = 0;
    if (read_count(r, "import count", PVM_MAX_IMPORTS, 4, &n))
        return -1;
    if (!(*names = calloc(n ? n : 1, sizeof **names)))
        return pvm_errorf(r->err, "out of memory");
    char name[PVM_MAX_NAME + 1];
    for (uint32_t i = 0; i < n; i++) {
        size_t at = r->pos;
        pvm_error e;
        if (read_string(r, "import name", PVM_MAX_NAME, name))
            return -1;
        if (pvm_module_add_import(m, name, &e) < 0)
            return build_error(r, at, &e);
        (*names)[i] = (named){m->imports[i], at};
    }
    return check_unique(*names, n, "import", r->err);
}

static int read_types_table(reader *r, pvm_module *m)
{
    uint32_t n = 0;
    if (read_count(r, "type count", PVM_MAX_FUNCTYPES, 8, &n))
        return -1;
    char params[PVM_MAX_TYPES + 1], results[PVM_MAX_TYPES + 1];
    for (uint32_t i = 0; i < n; i++) {
        size_t at = r->pos;
        pvm_error e;
        if (read_types(r, "parameter types", params) || read_types(r, "result types", results))
            return -1;
        if (pvm_module_add_type(m, params, results, &e) < 0)
            return build_error(r, at, &e);
    }
    return 0;
}

static int read_functions(reader *r, pvm_module *m, named **names)
{
    uint32_t n = 0;
    if (read_count(r, "function count", PVM_MAX_FUNCS, 16, &n))
        return -1;
    if (!(*names = calloc(n ? n : 1, sizeof **names)))
        return pvm_errorf(r->err, "out of memory");
    char name[PVM_MAX_NAME + 1], params[PVM_MAX_TYPES + 1], results[PVM_MAX_TYPES + 1];
    for (uint32_t i = 0; i < n; i++) {
        size_t at = r->pos;
        uint32_t size = 0;
        pvm_error e;
        if (read_string(r, "function name", PVM_MAX_NAME, name) ||
            read_types(r, "parameter types", params) ||
            read_types(r, "result types", results) ||
            read_length(r, "code size", PVM_MAX_CODE, &size))
            return -1;
        if (pvm_module_add_function(m, name, params, results, r->bytes + r->pos, size, &e) < 0)
            return build_error(r, at, &e);
        r->pos += size;
        (*names)[i] = (named){m->funcs[i].name, at};
    }
    return check_unique(*names, n, "function", r->err);
}

static int read_data(reader *r, pvm_module *m)
{
    uint32_t n = 0;
    if (read_count(r, "data segment count", UINT32_MAX, 12, &n))
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        size_t at = r->pos;
        uint64_t offset = 0;
        uint32_t size = 0;
        pvm_error e;
        if (read_u64(r, "data segment offset", &offset) ||
            read_length(r, "data segment size", UINT32_MAX, &size))
            return -1;
        if (offset > m->heap_max || size > m->heap_max - offset)
            return pvm_errorf(r->err,
                              "offset %zu: data segment %" PRIu32 " (%" PRIu32
                              " bytes at heap offset %" PRIu64
                              ") exceeds the maximum heap of %" PRIu64 " bytes",
                              at, i, size, offset, m->heap_max);
        if (pvm_module_add_data(m, offset, r->bytes + r->pos, size, &e) < 0)
            return build_error(r, at, &e);
        r->pos += size;
    }
    return 0;
}

/* The start function, the globals' initial values, the tables' sizes and
 * the element segments (checked against the module by the caller). */
static int read_state(reader *r, pvm_module *m)
{
    pvm_error e;
    size_t at = r->pos;
    uint32_t heap_reg = 0;
    if (read_u32(r, "start function", &m->start) || read_u32(r, "heap register", &heap_reg))
        return -1;
    if (heap_reg != PVM_NO_HEAP_REG && heap_reg >= 32)
        return pvm_errorf(r->err, "offset %zu: heap register %" PRIu32 " does not exist",
                          r->pos - 4, heap_reg);
    m->heap_reg = (uint8_t)heap_reg;
    if (m->nglobals > remaining(r) / 8)
        return pvm_errorf(r->err, "offset %zu: %" PRIu32 " global values exceed remaining bytes",
                          r->pos, m->nglobals);
    for (uint32_t i = 0; i < m->nglobals; i++) {
        uint64_t v = 0;
        at = r->pos;
        if (read_u64(r, "global value", &v))
            return -1;
        if (v && pvm_module_set_global(m, i, v, &e) != 0)
            return build_error(r, at, &e);
    }
    if (m->ntables > remaining(r) / 8)
        return pvm_errorf(r->err, "offset %zu: %" PRIu32 " table sizes exceed remaining bytes",
                          r->pos, m->ntables);
    for (uint32_t i = 0; i < m->ntables; i++) {
        uint32_t size = 0, max = 0;
        at = r->pos;
        if (read_u32(r, "table size", &size) || read_u32(r, "table maximum", &max))
            return -1;
        if ((size || max) && pvm_module_set_table(m, i, size, max, &e) != 0)
            return build_error(r, at, &e);
    }
    uint32_t n = 0;
    if (read_count(r, "element segment count", UINT32_MAX, 12, &n))
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t table = 0, offset = 0, count = 0;
        at = r->pos;
        if (read_u32(r, "element table", &table) || read_u32(r, "element offset", &offset) ||
            read_count(r, "element count", PVM_MAX_TABLE_ENTRIES, 4, &count))
            return -1;
        uint32_t *funcs = malloc(count ? count * sizeof *funcs : 1);
        if (!funcs)
            return pvm_errorf(r->err, "out of memory");
        for (uint32_t k = 0; k < count; k++)
            funcs[k] = pvm_rd32(r->bytes + r->pos + 4 * (size_t)k);
        r->pos += 4 * (size_t)count;
        int rc = pvm_module_add_elem(m, table, offset, funcs, count, &e);
        free(funcs);
        if (rc != 0)
            return build_error(r, at, &e);
    }
    if (pvm_module_check_state(m, &e) != 0)
        return build_error(r, at, &e);
    return 0;
}

/* The fixed-size header: magic, version, entry, heap limits, global and
 * table counts. */
static int read_header(reader *r, pvm_module *m)
{
    uint32_t version = 0;
    if (r->size < 4 || memcmp(r->bytes, PVM_PBC_MAGIC, 4) != 0)
        return pvm_errorf(r->err, "offset 0: bad magic (not a .pbc file)");
    r->pos = 4;
    if (read_u32(r, "format version", &version))
        return -1;
    if (version != PVM_PBC_VERSION)
        return pvm_errorf(r->err, "offset 4: unknown format version %" PRIu32 " (expected %u)",
                          version, PVM_PBC_VERSION);
    if (read_u32(r, "entry function", &m->entry) ||
        read_u64(r, "initial heap size", &m->heap_min) ||
        read_u64(r, "maximum heap size", &m->heap_max))
        return -1;
    if (m->heap_max > PVM_MAX_HEAP)
        return pvm_errorf(r->err, "offset 20: maximum heap %" PRIu64
                          " exceeds the limit of %" PRIu64, m->heap_max, PVM_MAX_HEAP);
    if (m->heap_min > m->heap_max)
        return pvm_errorf(r->err, "offset 12: initial heap %" PRIu64
                          " exceeds the maximum heap %" PRIu64, m->heap_min, m->heap_max);
    if (read_u32(r, "global count", &m->nglobals) || read_u32(r, "table count", &m->ntables))
        return -1;
    if (m->nglobals > PVM_MAX_GLOBALS)
        return pvm_errorf(r->err, "offset 28: global count %" PRIu32
                          " exceeds the limit of %u", m->nglobals, PVM_MAX_GLOBALS);
    if (m->ntables > PVM_MAX_TABLES)
        return pvm_errorf(r->err, "offset 32: table count %" PRIu32
                          " exceeds the limit of %u", m->ntables, PVM_MAX_TABLES);
    return 0;
}

pvm_module *pvm_module_read(const uint8_t *bytes, size_t size, pvm_error *err)
{
    reader r = {bytes, size, 0, err};
    pvm_module *m = pvm_module_new();
    named *import_names = NULL, *func_names = NULL;
    int rc = m ? read_header(&r, m) : pvm_errorf(err, "out of memory");
    if (rc == 0)
        rc = read_imports(&r, m, &import_names);
    if (rc == 0)
        rc = read_types_table(&r, m);
    if (rc == 0)
        rc = read_functions(&r, m, &func_names);
    if (rc == 0 && m->entry != PVM_NO_ENTRY && m->entry >= m->nfuncs)
        rc = pvm_errorf(err, "offset 8: entry function %" PRIu32 " out of range (%" PRIu32
                        " functions)", m->entry, m->nfuncs);
    if (rc == 0)
        rc = read_data(&r, m);
    if (rc == 0)
        rc = read_state(&r, m);
    if (rc == 0 && r.pos != size)
        rc = pvm_errorf(err, "offset %zu: %zu trailing byte(s) after the element segments",
                        r.pos, size - r.pos);
    free(import_names);
    free(func_names);
    if (rc) {
        pvm_module_free(m);
        return NULL;
    }
    return m;
}

/* ---- files ------------------------------------------------------------------ */

uint8_t *pvm_read_file(const char *path, size_t *size, pvm_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        pvm_errorf(err, "%s: %s", path, strerror(errno));
        return NULL;
    }
    enum { CHUNK = 1 << 16 };
    pvm_buf b = {0};
    size_t got;
    do {
        uint8_t *p = pvm_buf_reserve(&b, CHUNK);
        if (!p)
            break;
        got = fread(p, 1, CHUNK, f);
        b.len -= CHUNK - got;
    } while (got == CHUNK);
    bool read_failed = ferror(f);
    int read_errno = errno;
    fclose(f);
    if (read_failed || b.failed) {
        pvm_errorf(err, "%s: %s", path, b.failed ? "out of memory" : strerror(read_errno));
        pvm_buf_free(&b);
        return NULL;
    }
    *size = b.len;
    return b.data;
}
