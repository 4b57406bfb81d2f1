/*
 * wasm_internal.h - what the files of the Wasm front end share with each
 * other and nobody else: the steps of pvm_wasm_decode().
 */
#ifndef PULLEY_WASM_INTERNAL_H
#define PULLEY_WASM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "wasm_module.h"
#include "wasm_reader.h"

/* Grow *arr (of *cap elements of elem_size bytes) to hold at least `need`
 * elements; new elements are zeroed.  Returns -1 on allocation failure.
 * Inline where there is room already (the validator asks per operand). */
int pvm_wasm_reserve_more(void **arr, uint32_t *cap, uint32_t need, size_t elem_size);
static inline int pvm_wasm_reserve(void **arr, uint32_t *cap, uint32_t need, size_t elem_size)
{
    return need <= *cap ? 0 : pvm_wasm_reserve_more(arr, cap, need, elem_size);
}

/* wasm_const.c: a constant expression of type `type`, up to and including
 * its end.  Marks functions it references with ref.func as referenced. */
int pvm_wasm_read_const(pvm_wasm_reader *r, pvm_wasm_module *m, uint8_t type,
                        pvm_wasm_const *out);

/* wasm_segments.c: the element, code and data sections.  `ndecls` is the
 * function section's count. */
int pvm_wasm_decode_elems(pvm_wasm_reader *r, pvm_wasm_module *m);
int pvm_wasm_decode_code(pvm_wasm_reader *r, pvm_wasm_module *m, uint32_t ndecls);
int pvm_wasm_decode_datas(pvm_wasm_reader *r, pvm_wasm_module *m, uint32_t data_count);

/* wasm_validate.c: validate every function body, filling in what the
 * validator learns (max_stack, max_depth, blocks). */
int pvm_wasm_validate_funcs(pvm_wasm_module *m, pvm_error *err);

/* wasm_names.c: function names from the "name" custom section, if it is
 * well-formed (a bad name section is ignored, as the spec requires). */
void pvm_wasm_read_names(pvm_wasm_module *m);

#endif
