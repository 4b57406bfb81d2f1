/*
 * wasm_const.c - constant expressions: the initializers of globals and the
 * offsets and items of element and data segments.
 *
 * Wasm 2.0 allows t.const, ref.null, ref.func and global.get of an imported
 * immutable global; every one of them pushes one value and none pops, so a
 * valid constant expression is exactly one of them followed by end.
 */
#include "wasm_insn.h"
#include "wasm_internal.h"

int pvm_wasm_read_const(pvm_wasm_reader *r, pvm_wasm_module *m, uint8_t type,
                        pvm_wasm_const *out)
{
    size_t start = r->pos;
    uint32_t nvalues = 0;
    pvm_wasm_const c = {0};
    for (;;) {
        pvm_wasm_insn in;
        if (pvm_wasm_insn_read(r, &in))
            return -1;
        pvm_wasm_const v = {0};
        switch (in.op) {
        case PVM_WASM_OP_END:
            if (nvalues == 0)
                return pvm_wasm_fail(r, start, "type mismatch: empty constant expression, "
                                     "expected a %s", pvm_wasm_valtype_name(type));
            if (nvalues > 1)
                return pvm_wasm_fail(r, start, "type mismatch: constant expression "
                                     "leaves %u values, expected one %s", nvalues,
                                     pvm_wasm_valtype_name(type));
            if (c.type != type)
                return pvm_wasm_fail(r, start, "type mismatch: expected %s, found %s",
                                     pvm_wasm_valtype_name(type),
                                     pvm_wasm_valtype_name(c.type));
            *out = c;
            return 0;
        case PVM_WASM_OP_I32_CONST:
        case PVM_WASM_OP_I64_CONST:
        case PVM_WASM_OP_F32_CONST:
        case PVM_WASM_OP_F64_CONST:
            v.kind = PVM_WASM_CONST_NUM;
            v.type = pvm_wasm_ops[in.op].push;
            v.bits = in.value;
            break;
        case PVM_WASM_OP_REF_NULL:
            v.kind = PVM_WASM_CONST_REF_NULL;
            v.type = in.type;
            break;
        case PVM_WASM_OP_REF_FUNC:
            if (in.idx >= m->nfuncs)
                return pvm_wasm_fail(r, in.pos, "unknown function %u", in.idx);
            m->funcs[in.idx].referenced = true;
            v.kind = PVM_WASM_CONST_REF_FUNC;
            v.type = PVM_WASM_FUNCREF;
            v.index = in.idx;
            break;
        case PVM_WASM_OP_GLOBAL_GET:
            if (in.idx >= m->nglobal_imports)
                return pvm_wasm_fail(r, in.pos, "unknown global %u (constant expressions "
                                     "may only read imported globals)", in.idx);
            if (m->globals[in.idx].is_mutable)
                return pvm_wasm_fail(r, in.pos, "constant expression required: "
                                     "global.get of mutable global %u", in.idx);
            v.kind = PVM_WASM_CONST_GLOBAL;
            v.type = m->globals[in.idx].type;
            v.index = in.idx;
            break;
        default:
            return pvm_wasm_fail(r, in.pos, "constant expression required: %s is not "
                                 "a constant instruction", pvm_wasm_ops[in.op].text);
        }
        c = v;
        if (nvalues < UINT32_MAX)
            nvalues++;
    }
}
