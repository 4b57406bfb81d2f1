/*
 * translate_memory.c - linear memory: every load and store is one Wasm heap
 * access (an op of the _g32 family: the u32 address register and the
 * offset, checked against the heap's size, which is Wasm's bounds check),
 *
 *     xload32_u_g32 dst, addr, offset     ; traps heap_oob out of bounds
 *
 * but for an offset past INT32_MAX (beyond any heap but the largest), where
 * x30 = heap base (x31) + address + offset feeds the data-space access;
 * memory.size and memory.grow in pages; the bulk operations as host calls.
 */
#include "translate_internal.h"

typedef struct tr_access {
    uint16_t op;     /* the Wasm heap access */
    uint16_t data_op; /* the data-space access, for offsets past INT32_MAX */
    bool store;
} tr_access;

#define L(w, v) [PVM_WASM_OP_##w] = {PVM_OP_##v##_g32, PVM_OP_##v, false}
#define ST(w, v) [PVM_WASM_OP_##w] = {PVM_OP_##v##_g32, PVM_OP_##v, true}
static const tr_access accesses[PVM_WASM_OP_COUNT] = {
    L(I32_LOAD, xload32_u), L(I64_LOAD, xload64), L(F32_LOAD, fload32), L(F64_LOAD, fload64),
    L(I32_LOAD8_S, xload8_s32), L(I32_LOAD8_U, xload8_u),
    L(I32_LOAD16_S, xload16_s32), L(I32_LOAD16_U, xload16_u),
    L(I64_LOAD8_S, xload8_s64), L(I64_LOAD8_U, xload8_u),
    L(I64_LOAD16_S, xload16_s64), L(I64_LOAD16_U, xload16_u),
    L(I64_LOAD32_S, xload32_s64), L(I64_LOAD32_U, xload32_u),
    ST(I32_STORE, xstore32), ST(I64_STORE, xstore64), ST(F32_STORE, fstore32),
    ST(F64_STORE, fstore64), ST(I32_STORE8, xstore8), ST(I32_STORE16, xstore16),
    ST(I64_STORE8, xstore8), ST(I64_STORE16, xstore16), ST(I64_STORE32, xstore32),
};
#undef L
#undef ST

/* A load or store: [addr] -> [value] or [addr value] -> []. */
static int access(tr_func *t, const pvm_wasm_insn *in, tr_access acc)
{
    const pvm_wasm_op_info *info = &pvm_wasm_ops[in->op];
    uint32_t d = t->height - 1 - acc.store;
    uint64_t end = (uint64_t)in->offset + info->mem_bytes;
    unsigned addr = tr_operand(t, d, TR_SCRATCH1);
    if (end > UINT32_MAX) { /* beyond any memory: what follows cannot run */
        tr_emit(t, PVM_OP_trap, 0, 0, 0, PVM_TRAP_HEAP_OOB);
        t->dead = true;
        return 0;
    }
    uint16_t op = acc.op;
    int64_t offset = in->offset;
    if (offset > INT32_MAX) {
        tr_emit(t, PVM_OP_xadd64, TR_SCRATCH1, TR_HEAP_BASE, addr, 0);
        tr_const(t, TR_X, TR_SCRATCH2, (uint64_t)offset);
        tr_emit(t, PVM_OP_xadd64, TR_SCRATCH1, TR_SCRATCH1, TR_SCRATCH2, 0);
        op = acc.data_op;
        addr = TR_SCRATCH1;
        offset = 0;
    }
    if (acc.store) {
        unsigned value = tr_operand(t, d + 1, TR_SCRATCH2);
        tr_emit(t, op, addr, value, 0, offset);
        t->height = d;
        return 0;
    }
    unsigned cls = tr_class(info->push);
    unsigned dst = tr_dest(t, d);
    tr_emit_def(t, op, dst, addr, 0, offset);
    tr_dest_done(t, d, cls);
    t->height = d;
    tr_push_reg(t, info->push);
    return 0;
}

/* memory.size: heap bytes >> 16. */
static int memory_size(tr_func *t)
{
    uint32_t d = t->height;
    unsigned dst = tr_dest(t, d);
    tr_emit(t, PVM_OP_heap_size, dst, 0, 0, 0);
    tr_const(t, TR_X, TR_SCRATCH2, 16);
    tr_emit_def(t, PVM_OP_xshr64_u, dst, dst, TR_SCRATCH2, 0);
    tr_dest_done(t, d, TR_X);
    tr_push_reg(t, PVM_WASM_I32);
    return 0;
}

/* memory.grow: pages in bytes, heap_grow, the old size in pages (-1, all
 * ones, stays all ones in 32 bits). */
static int memory_grow(tr_func *t)
{
    uint32_t d = t->height - 1;
    unsigned delta = tr_operand(t, d, TR_SCRATCH1);
    unsigned dst = tr_dest(t, d);
    tr_const(t, TR_X, TR_SCRATCH2, 16);
    tr_emit(t, PVM_OP_xshl64, dst, delta, TR_SCRATCH2, 0);
    tr_emit(t, PVM_OP_heap_grow, dst, dst, 0, 0);
    tr_emit(t, PVM_OP_xshr64_u, dst, dst, TR_SCRATCH2, 0);
    tr_emit_def(t, PVM_OP_xzext32, dst, dst, 0, 0);
    tr_dest_done(t, d, TR_X);
    t->height = d;
    tr_push_reg(t, PVM_WASM_I32);
    return 0;
}

int tr_memory(tr_func *t, const pvm_wasm_insn *in)
{
    switch (in->op) {
    case PVM_WASM_OP_MEMORY_SIZE: return memory_size(t);
    case PVM_WASM_OP_MEMORY_GROW: return memory_grow(t);
    case PVM_WASM_OP_MEMORY_COPY: tr_call_bulk(t, TR_BULK_MEMORY_COPY, 3, NULL, 0); return 0;
    case PVM_WASM_OP_MEMORY_FILL: tr_call_bulk(t, TR_BULK_MEMORY_FILL, 3, NULL, 0); return 0;
    case PVM_WASM_OP_MEMORY_INIT: tr_call_bulk(t, TR_BULK_MEMORY_INIT, 3, &in->idx, 1); return 0;
    case PVM_WASM_OP_DATA_DROP: tr_call_bulk(t, TR_BULK_DATA_DROP, 0, &in->idx, 1); return 0;
    default: break;
    }
    if (accesses[in->op].op == 0)
        return 1;
    return access(t, in, accesses[in->op]);
}
