/*
 * module_state.c - the initial state a module gives its VM beyond code and
 * data: initial values of globals, table sizes, the element segments that
 * put function references into tables, and the start function (module.h).
 */
#include "module.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int pvm_module_set_global(pvm_module *m, uint32_t i, uint64_t value, pvm_error *err)
{
    if (i >= m->nglobals)
        return pvm_errorf(err, "global %" PRIu32 " out of range (%" PRIu32 " globals)", i,
                          m->nglobals);
    if (!m->global_init && !(m->global_init = calloc(m->nglobals, sizeof *m->global_init)))
        return pvm_errorf(err, "out of memory");
    m->global_init[i] = value;
    return 0;
}

int pvm_module_set_table(pvm_module *m, uint32_t i, uint32_t size, uint32_t max, pvm_error *err)
{
    if (i >= m->ntables)
        return pvm_errorf(err, "table %" PRIu32 " out of range (%" PRIu32 " tables)", i,
                          m->ntables);
    if (size > max || size > PVM_MAX_TABLE_ENTRIES)
        return pvm_errorf(err, "table %" PRIu32 ": size %" PRIu32 " above its maximum %" PRIu32
                               " or the limit of %u entries", i, size, max, PVM_MAX_TABLE_ENTRIES);
    if (!m->table_decl && !(m->table_decl = calloc(m->ntables, sizeof *m->table_decl)))
        return pvm_errorf(err, "out of memory");
    m->table_decl[i] = (pvm_table_decl){size, max};
    return 0;
}

int pvm_module_add_elem(pvm_module *m, uint32_t table, uint32_t offset, const uint32_t *funcs,
                        uint32_t count, pvm_error *err)
{
    pvm_elem_segment *grown = realloc(m->elems, (m->nelems + (size_t)1) * sizeof *grown);
    if (!grown)
        return pvm_errorf(err, "out of memory");
    m->elems = grown;
    uint32_t *copy = malloc(count ? count * sizeof *copy : 1);
    if (!copy)
        return pvm_errorf(err, "out of memory");
    if (count)
        memcpy(copy, funcs, count * sizeof *copy);
    m->elems[m->nelems++] = (pvm_elem_segment){table, offset, count, copy};
    return 0;
}

int pvm_module_check_state(const pvm_module *m, pvm_error *err)
{
    if (m->heap_reg != PVM_NO_HEAP_REG && m->heap_reg >= 32)
        return pvm_errorf(err, "heap register x%u does not exist", m->heap_reg);
    if (m->start != PVM_NO_ENTRY && m->start >= m->nfuncs)
        return pvm_errorf(err, "start function %" PRIu32 " out of range (%" PRIu32 " functions)",
                          m->start, m->nfuncs);
    for (uint32_t i = 0; i < m->nelems; i++) {
        const pvm_elem_segment *e = &m->elems[i];
        if (e->table >= m->ntables)
            return pvm_errorf(err, "element segment %" PRIu32 ": table %" PRIu32
                                   " out of range (%" PRIu32 " tables)", i, e->table, m->ntables);
        uint32_t size = m->table_decl ? m->table_decl[e->table].size : 0;
        if (e->offset > size || e->count > size - e->offset)
            return pvm_errorf(err, "element segment %" PRIu32 ": %" PRIu32 " entries at %" PRIu32
                                   " do not fit table %" PRIu32 " of %" PRIu32 " entries",
                              i, e->count, e->offset, e->table, size);
        for (uint32_t k = 0; k < e->count; k++)
            if (e->funcs[k] != PVM_NO_ENTRY && e->funcs[k] >= m->nfuncs)
                return pvm_errorf(err, "element segment %" PRIu32 ": function %" PRIu32
                                       " out of range (%" PRIu32 " functions)",
                                  i, e->funcs[k], m->nfuncs);
    }
    return 0;
}
