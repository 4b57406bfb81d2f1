/*
 * wasm_names.c - function names from the "name" custom section, so that
 * profiles, traps and disassembly can say "quicksort" instead of "func 42".
 *
 * Custom sections never make a module invalid: a malformed name section is
 * ignored (names read before the problem are kept).
 */
#include "wasm_internal.h"

static void read_function_names(pvm_wasm_module *m, pvm_wasm_reader *r)
{
    uint32_t n;
    if (pvm_wasm_read_count(r, 2, &n))
        return;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t func;
        pvm_wasm_name name;
        if (pvm_wasm_read_u32(r, &func) || pvm_wasm_read_name(r, &name))
            return;
        if (func < m->nfuncs)
            m->funcs[func].name = name;
    }
}

void pvm_wasm_read_names(pvm_wasm_module *m)
{
    for (uint32_t i = 0; i < m->ncustoms; i++) {
        const pvm_wasm_custom *c = &m->customs[i];
        if (!pvm_wasm_name_is(c->name, "name"))
            continue;
        /* err == NULL: failures are silent. */
        pvm_wasm_reader r = pvm_wasm_reader_at(m->bytes, m->size, c->start,
                                               (size_t)c->start + c->size, NULL);
        while (pvm_wasm_left(&r) > 0) {
            uint8_t id;
            uint32_t size;
            if (pvm_wasm_read_u8(&r, &id) || pvm_wasm_read_u32(&r, &size) ||
                size > pvm_wasm_left(&r))
                return;
            pvm_wasm_reader sub = r;
            sub.end = r.pos + size;
            if (id == 1) { /* function names */
                read_function_names(m, &sub);
                return;
            }
            r.pos = sub.end;
        }
        return;
    }
}
