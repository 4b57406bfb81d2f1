/*
 * wasm_module.c - freeing a decoded module, and the small lookups and
 * names that consumers of pvm_wasm_module share.
 */
#include "wasm_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

int pvm_wasm_reserve_more(void **arr, uint32_t *cap, uint32_t need, size_t elem_size)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap;
    void *p = *arr;
    if (base_grow(&p, &n, need, elem_size, 8) != 0)
        return -1;
    if (n > UINT32_MAX) /* a capacity that fits in *cap: the rest goes unused */
        n = UINT32_MAX;
    memset((char *)p + (size_t)*cap * elem_size, 0, (n - *cap) * elem_size);
    *arr = p;
    *cap = (uint32_t)n;
    return 0;
}

void pvm_wasm_module_free(pvm_wasm_module *m)
{
    if (!m)
        return;
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        free(m->funcs[i].runs);
        free(m->funcs[i].blocks);
    }
    for (uint32_t i = 0; i < m->nelems; i++)
        free(m->elems[i].items);
    free(m->types);
    free(m->imports);
    free(m->funcs);
    free(m->tables);
    free(m->memories);
    free(m->globals);
    free(m->exports);
    free(m->elems);
    free(m->datas);
    free(m->customs);
    free(m->bytes);
    free(m);
}

const pvm_wasm_functype *pvm_wasm_func_type(const pvm_wasm_module *m, uint32_t func)
{
    return &m->types[m->funcs[func].type];
}

bool pvm_wasm_name_is(pvm_wasm_name name, const char *s)
{
    size_t n = strlen(s);
    return n == name.len && memcmp(name.str, s, n) == 0;
}

const pvm_wasm_export *pvm_wasm_find_export(const pvm_wasm_module *m, const char *name,
                                            pvm_wasm_extern_kind kind)
{
    for (uint32_t i = 0; i < m->nexports; i++)
        if (m->exports[i].kind == kind && pvm_wasm_name_is(m->exports[i].name, name))
            return &m->exports[i];
    return NULL;
}

const char *pvm_wasm_valtype_name(unsigned type)
{
    switch (type) {
    case PVM_WASM_I32: return "i32";
    case PVM_WASM_I64: return "i64";
    case PVM_WASM_F32: return "f32";
    case PVM_WASM_F64: return "f64";
    case PVM_WASM_FUNCREF: return "funcref";
    case PVM_WASM_EXTERNREF: return "externref";
    default: return "?";
    }
}

const char *pvm_wasm_extern_kind_name(unsigned kind)
{
    static const char *const names[] = {"func", "table", "memory", "global"};
    return kind < 4 ? names[kind] : "?";
}
