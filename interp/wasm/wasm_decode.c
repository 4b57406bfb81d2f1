/*
 * wasm_decode.c - pvm_wasm_decode(): the module preamble, the section
 * sequence (ids, order, sizes), and the sections that declare things: types,
 * imports, functions, tables, memories, globals, exports, start, data count
 * and custom sections.  Each index is checked against its space as it is
 * read, since the binary order puts every space before its uses.  Segments
 * and code are in wasm_segments.c; function bodies are validated last, by
 * wasm_validate.c.
 */
#include "wasm_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct decoder {
    pvm_wasm_module *m;
    uint32_t cap_funcs, cap_tables, cap_memories, cap_globals, cap_customs;
    uint32_t ndecls;        /* function section count */
    bool has_code;
    uint32_t data_count;    /* valid if m->has_data_count */
} decoder;

/* Section ids in the order they must appear (custom sections aside). */
static const uint8_t section_rank[13] = {
    [1] = 1, [2] = 2, [3] = 3, [4] = 4, [5] = 5, [6] = 6, [7] = 7,
    [8] = 8, [9] = 9, [12] = 10, [10] = 11, [11] = 12,
};

static int oom(pvm_wasm_reader *r)
{
    return pvm_wasm_fail(r, r->pos, "out of memory");
}

static int read_limits(pvm_wasm_reader *r, pvm_wasm_limits *l, bool memory)
{
    size_t at = r->pos;
    uint8_t flags;
    if (pvm_wasm_read_u8(r, &flags))
        return -1;
    /* The reference interpreter reads the flags as a 1-bit LEB128 integer. */
    if (flags & 0x80)
        return pvm_wasm_fail(r, at, "integer representation too long: limits flags 0x%02x",
                             flags);
    if (flags > 1)
        return pvm_wasm_fail(r, at, "integer too large: limits flags 0x%02x", flags);
    if (pvm_wasm_read_u32(r, &l->min))
        return -1;
    l->has_max = flags == 1;
    l->max = UINT32_MAX;
    if (l->has_max && pvm_wasm_read_u32(r, &l->max))
        return -1;
    if (memory && (l->min > PVM_WASM_MAX_PAGES || (l->has_max && l->max > PVM_WASM_MAX_PAGES)))
        return pvm_wasm_fail(r, at, "memory size must be at most 65536 pages (4GiB)");
    if (l->has_max && l->min > l->max)
        return pvm_wasm_fail(r, at, "size minimum must not be greater than maximum "
                             "(%u > %u)", l->min, l->max);
    return 0;
}

static int read_tabletype(pvm_wasm_reader *r, pvm_wasm_table *t)
{
    return pvm_wasm_read_reftype(r, &t->elemtype) || read_limits(r, &t->limits, false) ? -1 : 0;
}

static int read_globaltype(pvm_wasm_reader *r, pvm_wasm_global *g)
{
    if (pvm_wasm_read_valtype(r, &g->type))
        return -1;
    size_t at = r->pos;
    uint8_t mut;
    if (pvm_wasm_read_u8(r, &mut))
        return -1;
    if (mut > 1)
        return pvm_wasm_fail(r, at, "malformed mutability 0x%02x", mut);
    g->is_mutable = mut == 1;
    return 0;
}

/* Append one entry to a space; returns its index or -1. */
static int64_t add_func(decoder *d, pvm_wasm_reader *r)
{
    pvm_wasm_module *m = d->m;
    if (pvm_wasm_reserve((void **)&m->funcs, &d->cap_funcs, m->nfuncs + 1, sizeof *m->funcs))
        return oom(r);
    m->funcs[m->nfuncs].import = PVM_WASM_NONE;
    return m->nfuncs++;
}

static int64_t add_table(decoder *d, pvm_wasm_reader *r)
{
    pvm_wasm_module *m = d->m;
    if (pvm_wasm_reserve((void **)&m->tables, &d->cap_tables, m->ntables + 1, sizeof *m->tables))
        return oom(r);
    m->tables[m->ntables].import = PVM_WASM_NONE;
    return m->ntables++;
}

static int64_t add_memory(decoder *d, pvm_wasm_reader *r, size_t at)
{
    pvm_wasm_module *m = d->m;
    if (m->nmemories >= 1)
        return pvm_wasm_fail(r, at, "multiple memories");
    if (pvm_wasm_reserve((void **)&m->memories, &d->cap_memories, 1, sizeof *m->memories))
        return oom(r);
    m->memories[0].import = PVM_WASM_NONE;
    return m->nmemories++;
}

static int64_t add_global(decoder *d, pvm_wasm_reader *r)
{
    pvm_wasm_module *m = d->m;
    if (pvm_wasm_reserve((void **)&m->globals, &d->cap_globals, m->nglobals + 1,
                         sizeof *m->globals))
        return oom(r);
    m->globals[m->nglobals].import = PVM_WASM_NONE;
    return m->nglobals++;
}

static int decode_types(pvm_wasm_reader *r, pvm_wasm_module *m)
{
    uint32_t n;
    if (pvm_wasm_read_count(r, 1, &n))
        return -1;
    if (!(m->types = calloc(n ? n : 1, sizeof *m->types)))
        return oom(r);
    for (; m->ntypes < n; m->ntypes++) {
        pvm_wasm_functype *t = &m->types[m->ntypes];
        size_t at = r->pos;
        uint8_t form;
        if (pvm_wasm_read_u8(r, &form))
            return -1;
        if (form != 0x60)
            return pvm_wasm_fail(r, at, "%s: function type form 0x%02x, expected 0x60",
                                 form & 0x80 ? "integer representation too long"
                                             : "malformed function type", form);
        size_t pat = r->pos;
        if (pvm_wasm_read_count(r, 1, &t->nparams))
            return -1;
        if (t->nparams > PVM_WASM_MAX_PARAMS)
            return pvm_wasm_fail(r, pat, "too many parameters: %u (implementation limit %u)",
                                 t->nparams, PVM_WASM_MAX_PARAMS);
        t->params = r->bytes + r->pos;
        for (uint32_t i = 0; i < t->nparams; i++)
            if (pvm_wasm_read_valtype(r, &(uint8_t){0}))
                return -1;
        size_t rat = r->pos;
        if (pvm_wasm_read_count(r, 1, &t->nresults))
            return -1;
        if (t->nresults > PVM_WASM_MAX_RESULTS)
            return pvm_wasm_fail(r, rat, "too many results: %u (implementation limit %u)",
                                 t->nresults, PVM_WASM_MAX_RESULTS);
        t->results = r->bytes + r->pos;
        for (uint32_t i = 0; i < t->nresults; i++)
            if (pvm_wasm_read_valtype(r, &(uint8_t){0}))
                return -1;
    }
    return 0;
}

static int decode_imports(decoder *d, pvm_wasm_reader *r)
{
    pvm_wasm_module *m = d->m;
    uint32_t n;
    if (pvm_wasm_read_count(r, 1, &n))
        return -1;
    if (!(m->imports = calloc(n ? n : 1, sizeof *m->imports)))
        return oom(r);
    for (; m->nimports < n; m->nimports++) {
        pvm_wasm_import *im = &m->imports[m->nimports];
        if (pvm_wasm_read_name(r, &im->module) || pvm_wasm_read_name(r, &im->name))
            return -1;
        size_t at = r->pos;
        if (pvm_wasm_read_u8(r, &im->kind))
            return -1;
        int64_t idx;
        switch (im->kind) {
        case PVM_WASM_EXTERN_FUNC: {
            uint32_t type;
            size_t tat = r->pos;
            if (pvm_wasm_read_u32(r, &type))
                return -1;
            if (type >= m->ntypes)
                return pvm_wasm_fail(r, tat, "unknown type %u", type);
            if ((idx = add_func(d, r)) < 0)
                return -1;
            m->funcs[idx].type = type;
            m->nfunc_imports++;
            break;
        }
        case PVM_WASM_EXTERN_TABLE:
            if ((idx = add_table(d, r)) < 0 || read_tabletype(r, &m->tables[idx]))
                return -1;
            m->ntable_imports++;
            break;
        case PVM_WASM_EXTERN_MEMORY:
            if ((idx = add_memory(d, r, at)) < 0 || read_limits(r, &m->memories[idx].limits, true))
                return -1;
            m->nmemory_imports++;
            break;
        case PVM_WASM_EXTERN_GLOBAL:
            if ((idx = add_global(d, r)) < 0 || read_globaltype(r, &m->globals[idx]))
                return -1;
            m->nglobal_imports++;
            break;
        default:
            return pvm_wasm_fail(r, at, "malformed import kind 0x%02x", im->kind);
        }
        im->index = (uint32_t)idx;
        switch (im->kind) {
        case PVM_WASM_EXTERN_FUNC: m->funcs[idx].import = m->nimports; break;
        case PVM_WASM_EXTERN_TABLE: m->tables[idx].import = m->nimports; break;
        case PVM_WASM_EXTERN_MEMORY: m->memories[idx].import = m->nimports; break;
        default: m->globals[idx].import = m->nimports; break;
        }
    }
    return 0;
}

static int decode_funcs(decoder *d, pvm_wasm_reader *r)
{
    pvm_wasm_module *m = d->m;
    if (pvm_wasm_read_count(r, 1, &d->ndecls))
        return -1;
    for (uint32_t i = 0; i < d->ndecls; i++) {
        size_t at = r->pos;
        uint32_t type;
        int64_t idx;
        if (pvm_wasm_read_u32(r, &type))
            return -1;
        if (type >= m->ntypes)
            return pvm_wasm_fail(r, at, "unknown type %u", type);
        if ((idx = add_func(d, r)) < 0)
            return -1;
        m->funcs[idx].type = type;
    }
    return 0;
}

static int decode_tables(decoder *d, pvm_wasm_reader *r)
{
    uint32_t n;
    if (pvm_wasm_read_count(r, 1, &n))
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        int64_t idx = add_table(d, r);
        if (idx < 0 || read_tabletype(r, &d->m->tables[idx]))
            return -1;
    }
    return 0;
}

static int decode_memories(decoder *d, pvm_wasm_reader *r)
{
    uint32_t n;
    if (pvm_wasm_read_count(r, 1, &n))
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        int64_t idx = add_memory(d, r, r->pos);
        if (idx < 0 || read_limits(r, &d->m->memories[idx].limits, true))
            return -1;
    }
    return 0;
}

static int decode_globals(decoder *d, pvm_wasm_reader *r)
{
    uint32_t n;
    if (pvm_wasm_read_count(r, 1, &n))
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        int64_t idx = add_global(d, r);
        if (idx < 0)
            return -1;
        pvm_wasm_global *g = &d->m->globals[idx];
        if (read_globaltype(r, g) || pvm_wasm_read_const(r, d->m, g->type, &g->init))
            return -1;
    }
    return 0;
}

static int compare_exports(const void *a, const void *b)
{
    const pvm_wasm_export *x = *(const pvm_wasm_export *const *)a;
    const pvm_wasm_export *y = *(const pvm_wasm_export *const *)b;
    if (x->name.len != y->name.len)
        return x->name.len < y->name.len ? -1 : 1;
    int c = memcmp(x->name.str, y->name.str, x->name.len);
    return c ? c : (x < y ? -1 : x > y);
}

/* Export names must be unique: sort pointers by name, compare neighbours. */
static int check_export_names(pvm_wasm_reader *r, pvm_wasm_module *m)
{
    if (m->nexports < 2)
        return 0;
    const pvm_wasm_export **sorted = malloc(m->nexports * sizeof *sorted);
    if (!sorted)
        return oom(r);
    for (uint32_t i = 0; i < m->nexports; i++)
        sorted[i] = &m->exports[i];
    qsort(sorted, m->nexports, sizeof *sorted, compare_exports);
    for (uint32_t i = 1; i < m->nexports; i++) {
        const pvm_wasm_export *a = sorted[i - 1], *b = sorted[i];
        if (a->name.len == b->name.len && !memcmp(a->name.str, b->name.str, a->name.len)) {
            size_t at = (size_t)((const uint8_t *)b->name.str - r->bytes);
            free(sorted);
            return pvm_wasm_fail(r, at, "duplicate export name \"%.*s\"", (int)b->name.len,
                                 b->name.str);
        }
    }
    free(sorted);
    return 0;
}

static int decode_exports(pvm_wasm_reader *r, pvm_wasm_module *m)
{
    uint32_t n;
    if (pvm_wasm_read_count(r, 1, &n))
        return -1;
    if (!(m->exports = calloc(n ? n : 1, sizeof *m->exports)))
        return oom(r);
    for (; m->nexports < n; m->nexports++) {
        pvm_wasm_export *ex = &m->exports[m->nexports];
        if (pvm_wasm_read_name(r, &ex->name))
            return -1;
        size_t at = r->pos;
        if (pvm_wasm_read_u8(r, &ex->kind))
            return -1;
        if (ex->kind > PVM_WASM_EXTERN_GLOBAL)
            return pvm_wasm_fail(r, at, "malformed export kind 0x%02x", ex->kind);
        at = r->pos;
        if (pvm_wasm_read_u32(r, &ex->index))
            return -1;
        const uint32_t space[] = {m->nfuncs, m->ntables, m->nmemories, m->nglobals};
        static const char *const what[] = {"function", "table", "memory", "global"};
        if (ex->index >= space[ex->kind])
            return pvm_wasm_fail(r, at, "unknown %s %u", what[ex->kind], ex->index);
        if (ex->kind == PVM_WASM_EXTERN_FUNC)
            m->funcs[ex->index].referenced = true;
    }
    return check_export_names(r, m);
}

static int decode_start(pvm_wasm_reader *r, pvm_wasm_module *m)
{
    size_t at = r->pos;
    if (pvm_wasm_read_u32(r, &m->start))
        return -1;
    if (m->start >= m->nfuncs)
        return pvm_wasm_fail(r, at, "unknown function %u", m->start);
    const pvm_wasm_functype *t = pvm_wasm_func_type(m, m->start);
    if (t->nparams || t->nresults)
        return pvm_wasm_fail(r, at, "start function %u must have type [] -> [], "
                             "has %u params and %u results", m->start, t->nparams, t->nresults);
    return 0;
}

static int decode_custom(decoder *d, pvm_wasm_reader *r)
{
    pvm_wasm_module *m = d->m;
    pvm_wasm_custom c;
    if (pvm_wasm_read_name(r, &c.name))
        return -1;
    c.start = (uint32_t)r->pos;
    c.size = (uint32_t)(r->end - r->pos);
    r->pos = r->end;
    if (pvm_wasm_reserve((void **)&m->customs, &d->cap_customs, m->ncustoms + 1,
                         sizeof *m->customs))
        return oom(r);
    m->customs[m->ncustoms++] = c;
    return 0;
}

static int decode_section(decoder *d, pvm_wasm_reader *r, uint8_t id)
{
    pvm_wasm_module *m = d->m;
    switch (id) {
    case 0: return decode_custom(d, r);
    case 1: return decode_types(r, m);
    case 2: return decode_imports(d, r);
    case 3: return decode_funcs(d, r);
    case 4: return decode_tables(d, r);
    case 5: return decode_memories(d, r);
    case 6: return decode_globals(d, r);
    case 7: return decode_exports(r, m);
    case 8: return decode_start(r, m);
    case 9: return pvm_wasm_decode_elems(r, m);
    case 10:
        d->has_code = true;
        return pvm_wasm_decode_code(r, m, d->ndecls);
    case 11: return pvm_wasm_decode_datas(r, m, m->has_data_count ? d->data_count : UINT32_MAX);
    case 12:
        m->has_data_count = true;
        return pvm_wasm_read_u32(r, &d->data_count);
    }
    return -1;
}

static int decode_module(decoder *d, pvm_error *err)
{
    pvm_wasm_module *m = d->m;
    pvm_wasm_reader r = pvm_wasm_reader_at(m->bytes, m->size, 0, m->size, err);
    uint64_t magic, version;
    if (pvm_wasm_read_fixed(&r, 4, &magic))
        return -1;
    if (magic != 0x6D736100) /* "\0asm" */
        return pvm_wasm_fail(&r, 0, "magic header not detected");
    if (pvm_wasm_read_fixed(&r, 4, &version))
        return -1;
    if (version != 1)
        return pvm_wasm_fail(&r, 4, "unknown binary version %llu", (unsigned long long)version);

    unsigned last_rank = 0;
    while (r.pos < r.end) {
        size_t at = r.pos;
        uint8_t id;
        uint32_t size;
        if (pvm_wasm_read_u8(&r, &id))
            return -1;
        if (id > 12)
            return pvm_wasm_fail(&r, at, "malformed section id %u", id);
        if (pvm_wasm_read_u32(&r, &size))
            return -1;
        if (size > pvm_wasm_left(&r))
            return pvm_wasm_fail(&r, at, "length out of bounds: section %u of %u bytes, "
                                 "%zu bytes left", id, size, pvm_wasm_left(&r));
        if (id != 0) {
            if (section_rank[id] <= last_rank)
                return pvm_wasm_fail(&r, at, "unexpected content after last section "
                                     "(section %u repeated or out of order)", id);
            last_rank = section_rank[id];
        }
        pvm_wasm_reader sec = r;
        sec.end = r.pos + size;
        sec.in_section = true;
        if (decode_section(d, &sec, id))
            return -1;
        if (sec.pos != sec.end)
            return pvm_wasm_fail(&sec, sec.pos, "section size mismatch: section %u "
                                 "declares %u bytes, its contents end %zu bytes early",
                                 id, size, sec.end - sec.pos);
        r.pos = sec.end;
    }
    if (d->ndecls != 0 && !d->has_code)
        return pvm_wasm_fail(&r, r.pos, "function and code section have inconsistent "
                             "lengths: %u functions, no code section", d->ndecls);
    if (m->has_data_count && d->data_count != m->ndatas)
        return pvm_wasm_fail(&r, r.pos, "data count and data section have inconsistent "
                             "lengths: data count %u, %u data segments", d->data_count,
                             m->ndatas);
    return 0;
}

pvm_wasm_module *pvm_wasm_decode(const uint8_t *bytes, size_t size, pvm_error *err)
{
    if (size > UINT32_MAX) {
        pvm_errorf(err, "at byte 0 (0x0): module too large (%zu bytes)", size);
        return NULL;
    }
    pvm_wasm_module *m = calloc(1, sizeof *m);
    if (m)
        m->bytes = malloc(size ? size : 1);
    if (!m || !m->bytes) {
        free(m);
        pvm_errorf(err, "at byte 0 (0x0): out of memory");
        return NULL;
    }
    if (size)
        memcpy(m->bytes, bytes, size);
    m->size = size;
    m->start = PVM_WASM_NONE;
    decoder d = {.m = m};
    if (decode_module(&d, err) || pvm_wasm_validate_funcs(m, err)) {
        pvm_wasm_module_free(m);
        return NULL;
    }
    pvm_wasm_read_names(m);
    return m;
}
