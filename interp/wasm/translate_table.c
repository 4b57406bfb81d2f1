/*
 * translate_table.c - references and tables: ref.null (a constant 0),
 * ref.is_null, ref.func (func_ref), table.get/set/size/grow as VM ops, and
 * table.fill/copy/init and elem.drop as host calls.
 */
#include "translate_internal.h"

/* An op writing a new i32 or reference into slot d from up to two operands
 * (the entries from slot d); nops: how many. */
static void table_op(tr_func *t, unsigned op, uint32_t nops, uint32_t table, unsigned type)
{
    uint32_t d = t->height - nops;
    unsigned a = nops > 0 ? tr_operand(t, d, TR_SCRATCH1) : 0;
    unsigned b = nops > 1 ? tr_operand(t, d + 1, TR_SCRATCH2) : 0;
    unsigned dst = tr_dest(t, d);
    tr_emit_def(t, op, dst, a, b, table);
    tr_dest_done(t, d, TR_X);
    t->height = d;
    tr_push_reg(t, type);
}

int tr_table(tr_func *t, const pvm_wasm_insn *in)
{
    uint32_t extra[2] = {in->idx, in->idx2};
    switch (in->op) {
    case PVM_WASM_OP_REF_NULL:
        tr_push(t, (tr_val){.kind = TV_CONST, .type = in->type, .bits = 0});
        return 0;
    case PVM_WASM_OP_REF_IS_NULL:
        table_op(t, PVM_OP_xeqz64, 1, 0, PVM_WASM_I32);
        return 0;
    case PVM_WASM_OP_REF_FUNC:
        if (t->mod->func_refs)
            tr_push(t, (tr_val){.kind = TV_CONST, .type = PVM_WASM_FUNCREF,
                                .bits = t->mod->func_refs[in->idx]});
        else
            table_op(t, PVM_OP_func_ref, 0, in->idx, PVM_WASM_FUNCREF);
        return 0;
    case PVM_WASM_OP_TABLE_GET:
        table_op(t, PVM_OP_table_get, 1, in->idx, t->wm->tables[in->idx].elemtype);
        return 0;
    case PVM_WASM_OP_TABLE_SIZE:
        table_op(t, PVM_OP_table_size, 0, in->idx, PVM_WASM_I32);
        return 0;
    case PVM_WASM_OP_TABLE_GROW:
        table_op(t, PVM_OP_table_grow, 2, in->idx, PVM_WASM_I32);
        return 0;
    case PVM_WASM_OP_TABLE_SET: {
        uint32_t d = t->height - 2;
        unsigned index = tr_operand(t, d, TR_SCRATCH1);
        unsigned value = tr_operand(t, d + 1, TR_SCRATCH2);
        tr_emit(t, PVM_OP_table_set, index, value, 0, in->idx);
        t->height = d;
        return 0;
    }
    case PVM_WASM_OP_TABLE_FILL: tr_call_bulk(t, TR_BULK_TABLE_FILL, 3, extra, 1); return 0;
    case PVM_WASM_OP_TABLE_COPY: tr_call_bulk(t, TR_BULK_TABLE_COPY, 3, extra, 2); return 0;
    case PVM_WASM_OP_TABLE_INIT: tr_call_bulk(t, TR_BULK_TABLE_INIT, 3, extra, 2); return 0;
    case PVM_WASM_OP_ELEM_DROP: tr_call_bulk(t, TR_BULK_ELEM_DROP, 0, extra, 1); return 0;
    default: return 1;
    }
}
