/*
 * module.c - building and freeing modules in memory.  The initial state of
 * globals and tables is built in module_state.c, the .pbc reader and
 * writer live in module_io.c.
 */
#include "module.h"

#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "lazy.h"

pvm_module *pvm_module_new(void)
{
    pvm_module *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->entry = m->start = PVM_NO_ENTRY;
    m->heap_reg = PVM_NO_HEAP_REG;
    m->code = calloc(1, PVM_CODE_PADDING);
    if (!m->code) {
        free(m);
        return NULL;
    }
    m->code_cap = 0;
    return m;
}

void pvm_module_free(pvm_module *m)
{
    if (!m)
        return;
    pvm_lazy_free(m); /* its code, if lazy */
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        free(m->funcs[i].name);
        free(m->funcs[i].params);
        free(m->funcs[i].results);
    }
    for (uint32_t i = 0; i < m->nimports; i++)
        free(m->imports[i]);
    for (uint32_t i = 0; i < m->ntypes; i++) {
        free(m->types[i].params);
        free(m->types[i].results);
    }
    for (uint32_t i = 0; i < m->ndata; i++)
        free(m->data[i].bytes);
    for (uint32_t i = 0; i < m->nelems; i++)
        free(m->elems[i].funcs);
    free(m->elems);
    free(m->global_init);
    free(m->table_decl);
    free(m->funcs);
    free(m->imports);
    free(m->types);
    free(m->data);
    free(m->code);
    free(m->insn_starts);
    free(m);
}

bool pvm_valid_types(const char *s)
{
    if (strlen(s) > PVM_MAX_TYPES)
        return false;
    for (; *s; s++)
        if (!strchr(PVM_TYPE_LETTERS, *s))
            return false;
    return true;
}

/* Grow an array of `count` elements of `size` bytes by one; NULL on failure. */
static void *grow_by_one(void *array, uint32_t count, size_t size)
{
    return realloc(array, (count + (size_t)1) * size);
}

int pvm_module_add_function(pvm_module *m, const char *name, const char *params,
                            const char *results, const uint8_t *code,
                            size_t size, pvm_error *err)
{
    if (strlen(name) > PVM_MAX_NAME)
        return pvm_errorf(err, "function name longer than %d bytes", PVM_MAX_NAME);
    if (!pvm_valid_types(params) || !pvm_valid_types(results))
        return pvm_errorf(err, "function %s: bad type letters (use i, l, f, d, r, e)", name);
    if (m->nfuncs >= PVM_MAX_FUNCS)
        return pvm_errorf(err, "more than %u functions", PVM_MAX_FUNCS);
    if (size > PVM_MAX_CODE - m->code_size)
        return pvm_errorf(err, "function %s: module code exceeds %u bytes", name,
                          PVM_MAX_CODE);

    size_t need = m->code_size + size + PVM_CODE_PADDING;
    if (BASE_GROW(m->code, m->code_cap, need, 256) != 0)
        return pvm_errorf(err, "out of memory");
    pvm_function *funcs = grow_by_one(m->funcs, m->nfuncs, sizeof *funcs);
    if (!funcs)
        return pvm_errorf(err, "out of memory");
    m->funcs = funcs;

    pvm_function *f = &m->funcs[m->nfuncs];
    f->name = strdup(name);
    f->params = strdup(params);
    f->results = strdup(results);
    if (!f->name || !f->params || !f->results) {
        free(f->name);
        free(f->params);
        free(f->results);
        return pvm_errorf(err, "out of memory");
    }
    f->offset = (uint32_t)m->code_size;
    f->size = (uint32_t)size;
    if (size)
        memcpy(m->code + m->code_size, code, size);
    m->code_size += size;
    memset(m->code + m->code_size, 0, PVM_CODE_PADDING);
    m->verified = false;
    return (int)m->nfuncs++;
}

int pvm_module_add_import(pvm_module *m, const char *name, pvm_error *err)
{
    if (strlen(name) > PVM_MAX_NAME)
        return pvm_errorf(err, "import name longer than %d bytes", PVM_MAX_NAME);
    if (m->nimports >= PVM_MAX_IMPORTS)
        return pvm_errorf(err, "more than %u imports", PVM_MAX_IMPORTS);
    char **imports = grow_by_one(m->imports, m->nimports, sizeof *imports);
    if (!imports)
        return pvm_errorf(err, "out of memory");
    m->imports = imports;
    if (!(m->imports[m->nimports] = strdup(name)))
        return pvm_errorf(err, "out of memory");
    m->verified = false;
    return (int)m->nimports++;
}

int pvm_module_add_type(pvm_module *m, const char *params, const char *results,
                        pvm_error *err)
{
    if (!pvm_valid_types(params) || !pvm_valid_types(results))
        return pvm_errorf(err, "type %u: bad type letters (use i, l, f, d, r, e)", m->ntypes);
    if (m->ntypes >= PVM_MAX_FUNCTYPES)
        return pvm_errorf(err, "more than %u types", PVM_MAX_FUNCTYPES);
    pvm_functype *types = grow_by_one(m->types, m->ntypes, sizeof *types);
    if (!types)
        return pvm_errorf(err, "out of memory");
    m->types = types;
    pvm_functype *t = &m->types[m->ntypes];
    t->params = strdup(params);
    t->results = strdup(results);
    if (!t->params || !t->results) {
        free(t->params);
        free(t->results);
        return pvm_errorf(err, "out of memory");
    }
    m->verified = false;
    return (int)m->ntypes++;
}

int pvm_module_add_data(pvm_module *m, uint64_t offset, const uint8_t *bytes,
                        uint32_t size, pvm_error *err)
{
    pvm_data_segment *data = grow_by_one(m->data, m->ndata, sizeof *data);
    if (!data)
        return pvm_errorf(err, "out of memory");
    m->data = data;
    pvm_data_segment *d = &m->data[m->ndata];
    d->offset = offset;
    d->size = size;
    d->bytes = malloc(size ? size : 1);
    if (!d->bytes)
        return pvm_errorf(err, "out of memory");
    if (size)
        memcpy(d->bytes, bytes, size);
    m->verified = false;
    return (int)m->ndata++;
}

int pvm_module_find_function(const pvm_module *m, const char *name)
{
    for (uint32_t i = 0; i < m->nfuncs; i++)
        if (strcmp(m->funcs[i].name, name) == 0)
            return (int)i;
    return -1;
}

int pvm_module_find_import(const pvm_module *m, const char *name)
{
    for (uint32_t i = 0; i < m->nimports; i++)
        if (strcmp(m->imports[i], name) == 0)
            return (int)i;
    return -1;
}
