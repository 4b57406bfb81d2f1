/*
 * wasm_segments.c - the element, code and data sections: segment modes and
 * their eight (elements) and three (data) binary encodings, and each code
 * entry's local declarations and body range.  Bodies themselves are
 * validated later (wasm_validate.c), once every section has been read.
 */
#include "wasm_internal.h"

#include <stdlib.h>

static int oom(pvm_wasm_reader *r)
{
    return pvm_wasm_fail(r, r->pos, "out of memory");
}

/* Element segment flags: bit 0 passive or declarative, bit 1 explicit table
 * (active) or declarative (not active), bit 2 items are expressions. */
static int decode_elem(pvm_wasm_reader *r, pvm_wasm_module *m, pvm_wasm_elem *e)
{
    size_t at = r->pos;
    uint32_t flags;
    if (pvm_wasm_read_u32(r, &flags))
        return -1;
    if (flags > 7)
        return pvm_wasm_fail(r, at, "malformed elements segment kind %u", flags);
    bool active = !(flags & 1), exprs = flags & 4;
    e->mode = active ? PVM_WASM_SEG_ACTIVE
                     : (flags & 2) ? PVM_WASM_SEG_DECLARATIVE : PVM_WASM_SEG_PASSIVE;
    e->type = PVM_WASM_FUNCREF;
    size_t table_at = (flags & 2) ? r->pos : at; /* table 0 is implicit */
    if (active) {
        if ((flags & 2) && pvm_wasm_read_u32(r, &e->table))
            return -1;
        if (pvm_wasm_read_const(r, m, PVM_WASM_I32, &e->offset))
            return -1;
    }
    if (flags & 3) { /* an explicit element kind or type */
        size_t kat = r->pos;
        if (exprs) {
            if (pvm_wasm_read_reftype(r, &e->type))
                return -1;
        } else {
            uint8_t kind;
            if (pvm_wasm_read_u8(r, &kind))
                return -1;
            if (kind != 0x00)
                return pvm_wasm_fail(r, kat, "malformed element kind 0x%02x", kind);
        }
    }
    uint32_t n;
    if (pvm_wasm_read_count(r, 1, &n))
        return -1;
    if (!(e->items = calloc(n ? n : 1, sizeof *e->items)))
        return oom(r);
    for (; e->count < n; e->count++) {
        pvm_wasm_const *c = &e->items[e->count];
        if (exprs) {
            if (pvm_wasm_read_const(r, m, e->type, c))
                return -1;
            continue;
        }
        size_t fat = r->pos;
        if (pvm_wasm_read_u32(r, &c->index))
            return -1;
        if (c->index >= m->nfuncs)
            return pvm_wasm_fail(r, fat, "unknown function %u", c->index);
        m->funcs[c->index].referenced = true;
        c->kind = PVM_WASM_CONST_REF_FUNC;
        c->type = PVM_WASM_FUNCREF;
    }
    if (active) {
        if (e->table >= m->ntables)
            return pvm_wasm_fail(r, table_at, "unknown table %u", e->table);
        if (m->tables[e->table].elemtype != e->type)
            return pvm_wasm_fail(r, at, "type mismatch: %s segment for a table of %s",
                                 pvm_wasm_valtype_name(e->type),
                                 pvm_wasm_valtype_name(m->tables[e->table].elemtype));
    }
    return 0;
}

int pvm_wasm_decode_elems(pvm_wasm_reader *r, pvm_wasm_module *m)
{
    uint32_t n;
    if (pvm_wasm_read_count(r, 1, &n))
        return -1;
    if (!(m->elems = calloc(n ? n : 1, sizeof *m->elems)))
        return oom(r);
    for (uint32_t i = 0; i < n; i++) {
        m->nelems = i + 1; /* so that free() sees a half-read segment's items */
        if (decode_elem(r, m, &m->elems[i]))
            return -1;
    }
    return 0;
}

/* One code entry: its size, then local runs, then the body. */
static int decode_code_entry(pvm_wasm_reader *r, pvm_wasm_module *m, pvm_wasm_func *f)
{
    size_t at = r->pos;
    uint32_t size;
    if (pvm_wasm_read_u32(r, &size))
        return -1;
    if (size > pvm_wasm_left(r))
        return pvm_wasm_fail(r, at, "length out of bounds: function body of %u bytes, "
                             "%zu bytes left in the section", size, pvm_wasm_left(r));
    pvm_wasm_reader body = *r;
    body.end = r->pos + size;
    uint32_t nruns;
    if (pvm_wasm_read_count(&body, 2, &nruns))
        return -1;
    if (!(f->runs = calloc(nruns ? nruns : 1, sizeof *f->runs)))
        return oom(r);
    uint64_t total = 0;
    for (; f->nruns < nruns; f->nruns++) {
        pvm_wasm_local_run *run = &f->runs[f->nruns];
        size_t rat = body.pos;
        if (pvm_wasm_read_u32(&body, &run->count) || pvm_wasm_read_valtype(&body, &run->type))
            return -1;
        total += run->count;
        if (total > UINT32_MAX)
            return pvm_wasm_fail(&body, rat, "too many locals: more than 2^32-1");
    }
    uint64_t with_params = total + m->types[f->type].nparams;
    if (with_params > PVM_WASM_MAX_LOCALS)
        return pvm_wasm_fail(&body, at, "too many locals: %llu (with parameters), "
                             "the limit is %u", (unsigned long long)with_params,
                             PVM_WASM_MAX_LOCALS);
    f->nlocals = (uint32_t)total;
    f->body_pos = (uint32_t)body.pos;
    f->body_end = (uint32_t)body.end;
    r->pos = body.end;
    return 0;
}

int pvm_wasm_decode_code(pvm_wasm_reader *r, pvm_wasm_module *m, uint32_t ndecls)
{
    size_t at = r->pos;
    uint32_t n;
    if (pvm_wasm_read_count(r, 1, &n))
        return -1;
    if (n != ndecls)
        return pvm_wasm_fail(r, at, "function and code section have inconsistent "
                             "lengths: %u functions, %u bodies", ndecls, n);
    for (uint32_t i = 0; i < n; i++)
        if (decode_code_entry(r, m, &m->funcs[m->nfunc_imports + i]))
            return -1;
    return 0;
}

static int decode_data(pvm_wasm_reader *r, pvm_wasm_module *m, pvm_wasm_data *s)
{
    size_t at = r->pos;
    uint32_t flags;
    if (pvm_wasm_read_u32(r, &flags))
        return -1;
    if (flags > 2)
        return pvm_wasm_fail(r, at, "malformed data segment kind %u", flags);
    s->mode = flags == 1 ? PVM_WASM_SEG_PASSIVE : PVM_WASM_SEG_ACTIVE;
    if (s->mode == PVM_WASM_SEG_ACTIVE) {
        size_t mat = r->pos;
        if (flags == 2 && pvm_wasm_read_u32(r, &s->memory))
            return -1;
        if (s->memory >= m->nmemories)
            return pvm_wasm_fail(r, mat, "unknown memory %u", s->memory);
        if (pvm_wasm_read_const(r, m, PVM_WASM_I32, &s->offset))
            return -1;
    }
    size_t lat = r->pos;
    if (pvm_wasm_read_u32(r, &s->size))
        return -1;
    if (s->size > pvm_wasm_left(r))
        return pvm_wasm_fail(r, lat, "unexpected end of section or function: data "
                             "segment of %u bytes, %zu bytes left", s->size, pvm_wasm_left(r));
    s->start = (uint32_t)r->pos;
    r->pos += s->size;
    return 0;
}

int pvm_wasm_decode_datas(pvm_wasm_reader *r, pvm_wasm_module *m, uint32_t data_count)
{
    size_t at = r->pos;
    uint32_t n;
    if (pvm_wasm_read_count(r, 1, &n))
        return -1;
    if (data_count != UINT32_MAX && n != data_count)
        return pvm_wasm_fail(r, at, "data count and data section have inconsistent "
                             "lengths: data count %u, %u data segments", data_count, n);
    if (!(m->datas = calloc(n ? n : 1, sizeof *m->datas)))
        return oom(r);
    for (; m->ndatas < n; m->ndatas++)
        if (decode_data(r, m, &m->datas[m->ndatas]))
            return -1;
    return 0;
}
