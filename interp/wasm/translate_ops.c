/*
 * translate_ops.c - the instructions that compute: constants (kept
 * unmaterialised until used), numeric operators (one VM op each, results
 * straight into their slot, an integer constant operand as an immediate),
 * select, locals (read in place; a write retargets the instruction that
 * computed the value) and globals.
 */
#include "translate_internal.h"

/* The VM op of each numeric Wasm op; swap: the operands are exchanged
 * (a > b is b < a).  Op 0 (nop) means "not a plain numeric op". */
typedef struct tr_opmap {
    uint16_t op;
    bool swap;
} tr_opmap;

#define M(w, v) [PVM_WASM_OP_##w] = {PVM_OP_##v, false}
#define S(w, v) [PVM_WASM_OP_##w] = {PVM_OP_##v, true}
static const tr_opmap opmap[PVM_WASM_OP_COUNT] = {
    M(I32_EQZ, xeqz32), M(I32_EQ, xeq32), M(I32_NE, xne32),
    M(I32_LT_S, xlt32_s), M(I32_LT_U, xlt32_u), S(I32_GT_S, xlt32_s), S(I32_GT_U, xlt32_u),
    M(I32_LE_S, xle32_s), M(I32_LE_U, xle32_u), S(I32_GE_S, xle32_s), S(I32_GE_U, xle32_u),
    M(I64_EQZ, xeqz64), M(I64_EQ, xeq64), M(I64_NE, xne64),
    M(I64_LT_S, xlt64_s), M(I64_LT_U, xlt64_u), S(I64_GT_S, xlt64_s), S(I64_GT_U, xlt64_u),
    M(I64_LE_S, xle64_s), M(I64_LE_U, xle64_u), S(I64_GE_S, xle64_s), S(I64_GE_U, xle64_u),
    M(F32_EQ, feq32), M(F32_NE, fne32), M(F32_LT, flt32), S(F32_GT, flt32),
    M(F32_LE, fle32), S(F32_GE, fle32),
    M(F64_EQ, feq64), M(F64_NE, fne64), M(F64_LT, flt64), S(F64_GT, flt64),
    M(F64_LE, fle64), S(F64_GE, fle64),

    M(I32_CLZ, xclz32), M(I32_CTZ, xctz32), M(I32_POPCNT, xpopcnt32),
    M(I32_ADD, xadd32), M(I32_SUB, xsub32), M(I32_MUL, xmul32),
    M(I32_DIV_S, xdiv32_s), M(I32_DIV_U, xdiv32_u), M(I32_REM_S, xrem32_s), M(I32_REM_U, xrem32_u),
    M(I32_AND, xband32), M(I32_OR, xbor32), M(I32_XOR, xbxor32),
    M(I32_SHL, xshl32), M(I32_SHR_S, xshr32_s), M(I32_SHR_U, xshr32_u),
    M(I32_ROTL, xrotl32), M(I32_ROTR, xrotr32),
    M(I64_CLZ, xclz64), M(I64_CTZ, xctz64), M(I64_POPCNT, xpopcnt64),
    M(I64_ADD, xadd64), M(I64_SUB, xsub64), M(I64_MUL, xmul64),
    M(I64_DIV_S, xdiv64_s), M(I64_DIV_U, xdiv64_u), M(I64_REM_S, xrem64_s), M(I64_REM_U, xrem64_u),
    M(I64_AND, xband64), M(I64_OR, xbor64), M(I64_XOR, xbxor64),
    M(I64_SHL, xshl64), M(I64_SHR_S, xshr64_s), M(I64_SHR_U, xshr64_u),
    M(I64_ROTL, xrotl64), M(I64_ROTR, xrotr64),

    M(F32_ABS, fabs32), M(F32_NEG, fneg32), M(F32_CEIL, fceil32), M(F32_FLOOR, ffloor32),
    M(F32_TRUNC, ftrunc32), M(F32_NEAREST, fnearest32), M(F32_SQRT, fsqrt32),
    M(F32_ADD, fadd32), M(F32_SUB, fsub32), M(F32_MUL, fmul32), M(F32_DIV, fdiv32),
    M(F32_MIN, fmin32), M(F32_MAX, fmax32), M(F32_COPYSIGN, fcopysign32),
    M(F64_ABS, fabs64), M(F64_NEG, fneg64), M(F64_CEIL, fceil64), M(F64_FLOOR, ffloor64),
    M(F64_TRUNC, ftrunc64), M(F64_NEAREST, fnearest64), M(F64_SQRT, fsqrt64),
    M(F64_ADD, fadd64), M(F64_SUB, fsub64), M(F64_MUL, fmul64), M(F64_DIV, fdiv64),
    M(F64_MIN, fmin64), M(F64_MAX, fmax64), M(F64_COPYSIGN, fcopysign64),

    M(I32_WRAP_I64, xzext32),
    M(I32_TRUNC_F32_S, x32_from_f32_s), M(I32_TRUNC_F32_U, x32_from_f32_u),
    M(I32_TRUNC_F64_S, x32_from_f64_s), M(I32_TRUNC_F64_U, x32_from_f64_u),
    M(I64_EXTEND_I32_S, xsext32_64),
    M(I64_TRUNC_F32_S, x64_from_f32_s), M(I64_TRUNC_F32_U, x64_from_f32_u),
    M(I64_TRUNC_F64_S, x64_from_f64_s), M(I64_TRUNC_F64_U, x64_from_f64_u),
    M(F32_CONVERT_I32_S, f32_from_x32_s), M(F32_CONVERT_I32_U, f32_from_x32_u),
    M(F32_CONVERT_I64_S, f32_from_x64_s), M(F32_CONVERT_I64_U, f32_from_x64_u),
    M(F32_DEMOTE_F64, f32_from_f64),
    M(F64_CONVERT_I32_S, f64_from_x32_s), M(F64_CONVERT_I32_U, f64_from_x32_u),
    M(F64_CONVERT_I64_S, f64_from_x64_s), M(F64_CONVERT_I64_U, f64_from_x64_u),
    M(F64_PROMOTE_F32, f64_from_f32),
    M(I32_REINTERPRET_F32, xbits_from_f32), M(I64_REINTERPRET_F64, xbits_from_f64),
    M(F32_REINTERPRET_I32, f32_from_xbits), M(F64_REINTERPRET_I64, f64_from_xbits),

    M(I32_EXTEND8_S, xsext8_32), M(I32_EXTEND16_S, xsext16_32),
    M(I64_EXTEND8_S, xsext8_64), M(I64_EXTEND16_S, xsext16_64), M(I64_EXTEND32_S, xsext32_64),

    M(I32_TRUNC_SAT_F32_S, x32_from_f32_s_sat), M(I32_TRUNC_SAT_F32_U, x32_from_f32_u_sat),
    M(I32_TRUNC_SAT_F64_S, x32_from_f64_s_sat), M(I32_TRUNC_SAT_F64_U, x32_from_f64_u_sat),
    M(I64_TRUNC_SAT_F32_S, x64_from_f32_s_sat), M(I64_TRUNC_SAT_F32_U, x64_from_f32_u_sat),
    M(I64_TRUNC_SAT_F64_S, x64_from_f64_s_sat), M(I64_TRUNC_SAT_F64_U, x64_from_f64_u_sat),
};
#undef M
#undef S

/* ---- integer operators with a constant operand ----------------------------- */

/* How an integer operator x OP c becomes a VM op with immediate c. */
typedef enum {
    IMM_NONE,     /* it cannot */
    IMM_SAME,     /* the constant as it is */
    IMM_NEGATED,  /* x - c is x + -c */
    IMM_COUNT,    /* a shift or rotate count, masked to the width */
    IMM_ROTR,     /* rotr x, c is rotl x, width - c */
    IMM_PLUS_ONE, /* x <= c is x < c + 1 (c not the largest value) */
    IMM_MINUS_ONE /* x >= c is x > c - 1 (c not the smallest value) */
} imm_rule;

typedef struct tr_immmap {
    uint16_t op;
    uint8_t rule;
    uint8_t is_signed; /* the width is the operands' (Wasm's opcode table) */
    uint16_t mirror;   /* the Wasm op of c OP x as x OP' c; 0: none */
} tr_immmap;

#define I(w, v, r, s, m) [PVM_WASM_OP_##w] = {PVM_OP_##v, IMM_##r, s, m}
#define MIR(w) PVM_WASM_OP_##w
static const tr_immmap immmap[PVM_WASM_OP_COUNT] = {
    /* Wasm op  VM op          rule       signed mirror */
    I(I32_ADD,   xadd32_imm,    SAME,      0, MIR(I32_ADD)),
    I(I64_ADD,   xadd64_imm,    SAME,      0, MIR(I64_ADD)),
    I(I32_SUB,   xadd32_imm,    NEGATED,   0, 0),
    I(I64_SUB,   xadd64_imm,    NEGATED,   0, 0),
    I(I32_MUL,   xmul32_imm,    SAME,      0, MIR(I32_MUL)),
    I(I64_MUL,   xmul64_imm,    SAME,      0, MIR(I64_MUL)),
    I(I32_AND,   xband32_imm,   SAME,      0, MIR(I32_AND)),
    I(I64_AND,   xband64_imm,   SAME,      0, MIR(I64_AND)),
    I(I32_OR,    xbor32_imm,    SAME,      0, MIR(I32_OR)),
    I(I64_OR,    xbor64_imm,    SAME,      0, MIR(I64_OR)),
    I(I32_XOR,   xbxor32_imm,   SAME,      0, MIR(I32_XOR)),
    I(I64_XOR,   xbxor64_imm,   SAME,      0, MIR(I64_XOR)),
    I(I32_SHL,   xshl32_imm,    COUNT,     0, 0),
    I(I64_SHL,   xshl64_imm,    COUNT,     0, 0),
    I(I32_SHR_S, xshr32_s_imm,  COUNT,     0, 0),
    I(I64_SHR_S, xshr64_s_imm,  COUNT,     0, 0),
    I(I32_SHR_U, xshr32_u_imm,  COUNT,     0, 0),
    I(I64_SHR_U, xshr64_u_imm,  COUNT,     0, 0),
    I(I32_ROTL,  xrotl32_imm,   COUNT,     0, 0),
    I(I64_ROTL,  xrotl64_imm,   COUNT,     0, 0),
    I(I32_ROTR,  xrotl32_imm,   ROTR,      0, 0),
    I(I64_ROTR,  xrotl64_imm,   ROTR,      0, 0),
    I(I32_EQ,    xeq32_imm,     SAME,      0, MIR(I32_EQ)),
    I(I64_EQ,    xeq64_imm,     SAME,      0, MIR(I64_EQ)),
    I(I32_NE,    xne32_imm,     SAME,      0, MIR(I32_NE)),
    I(I64_NE,    xne64_imm,     SAME,      0, MIR(I64_NE)),
    I(I32_LT_S,  xlt32_s_imm,   SAME,      1, MIR(I32_GT_S)),
    I(I64_LT_S,  xlt64_s_imm,   SAME,      1, MIR(I64_GT_S)),
    I(I32_LT_U,  xlt32_u_imm,   SAME,      0, MIR(I32_GT_U)),
    I(I64_LT_U,  xlt64_u_imm,   SAME,      0, MIR(I64_GT_U)),
    I(I32_GT_S,  xgt32_s_imm,   SAME,      1, MIR(I32_LT_S)),
    I(I64_GT_S,  xgt64_s_imm,   SAME,      1, MIR(I64_LT_S)),
    I(I32_GT_U,  xgt32_u_imm,   SAME,      0, MIR(I32_LT_U)),
    I(I64_GT_U,  xgt64_u_imm,   SAME,      0, MIR(I64_LT_U)),
    I(I32_LE_S,  xlt32_s_imm,   PLUS_ONE,  1, MIR(I32_GE_S)),
    I(I64_LE_S,  xlt64_s_imm,   PLUS_ONE,  1, MIR(I64_GE_S)),
    I(I32_LE_U,  xlt32_u_imm,   PLUS_ONE,  0, MIR(I32_GE_U)),
    I(I64_LE_U,  xlt64_u_imm,   PLUS_ONE,  0, MIR(I64_GE_U)),
    I(I32_GE_S,  xgt32_s_imm,   MINUS_ONE, 1, MIR(I32_LE_S)),
    I(I64_GE_S,  xgt64_s_imm,   MINUS_ONE, 1, MIR(I64_LE_S)),
    I(I32_GE_U,  xgt32_u_imm,   MINUS_ONE, 0, MIR(I32_LE_U)),
    I(I64_GE_U,  xgt64_u_imm,   MINUS_ONE, 0, MIR(I64_LE_U)),
};
#undef I
#undef MIR

bool tr_imm_form(unsigned wasm_op, uint64_t bits, bool first, uint16_t *op, int32_t *imm)
{
    if (wasm_op >= PVM_WASM_OP_COUNT)
        return false;
    if (first) { /* c OP x: only as x OP' c */
        wasm_op = immmap[wasm_op].mirror;
        if (wasm_op == 0)
            return false;
    }
    const tr_immmap *m = &immmap[wasm_op];
    bool is64 = pvm_wasm_ops[wasm_op].pop[0] == PVM_WASM_I64;
    /* The constant as a value of the operator's width and signedness, and
     * the width's limits, all as 64-bit two's complement. */
    uint64_t c = is64 ? bits : m->is_signed ? (uint64_t)(int64_t)(int32_t)bits : (uint32_t)bits;
    uint64_t smallest = m->is_signed ? (is64 ? UINT64_C(1) << 63 : (uint64_t)INT32_MIN) : 0;
    uint64_t largest = m->is_signed ? (is64 ? INT64_MAX : INT32_MAX)
                                    : (is64 ? UINT64_MAX : UINT32_MAX);
    unsigned width = is64 ? 64 : 32;
    switch ((imm_rule)m->rule) {
    case IMM_NONE: return false;
    case IMM_SAME: break;
    case IMM_NEGATED: c = 0 - c; break;
    case IMM_COUNT: c &= width - 1; break;
    case IMM_ROTR: c = (width - (c & (width - 1))) & (width - 1); break;
    case IMM_PLUS_ONE:
        if (c == largest)
            return false;
        c++;
        break;
    case IMM_MINUS_ONE:
        if (c == smallest)
            return false;
        c--;
        break;
    }
    /* x & 0xffffffff is x's low half, zero-extended: no constant at all. */
    if (m->op == PVM_OP_xband64_imm && c == UINT32_MAX) {
        *op = PVM_OP_xzext32;
        *imm = 0;
        return true;
    }
    /* A 32-bit op reads the immediate's low 32 bits; a 64-bit op takes
     * it sign-extended, so it must be a sign-extended s32. */
    if (is64 && (uint64_t)(int64_t)(int32_t)c != c)
        return false;
    *op = m->op;
    *imm = (int32_t)(uint32_t)c;
    return true;
}

/* x OP c (or c OP x) as one VM op with an immediate, if there is one:
 * the constant is never materialised. */
static bool op_with_imm(tr_func *t, const pvm_wasm_insn *in, const pvm_wasm_op_info *info)
{
    uint32_t d = t->height - 2;
    uint16_t op;
    int32_t imm;
    const tr_val *x = &t->stack[d], *y = &t->stack[d + 1];
    bool first;
    if (y->kind == TV_CONST && tr_imm_form(in->op, y->bits, false, &op, &imm))
        first = false;
    else if (x->kind == TV_CONST && y->kind != TV_CONST &&
             tr_imm_form(in->op, x->bits, true, &op, &imm))
        first = true;
    else
        return false;
    unsigned src = tr_operand(t, first ? d + 1 : d, TR_SCRATCH1);
    unsigned dst = tr_dest(t, d);
    tr_emit_def(t, op, dst, src, 0, imm);
    tr_dest_done(t, d, TR_X);
    t->height = d;
    tr_push_reg(t, info->push);
    return true;
}

/* An operator popping one or two operands and pushing one result. */
static int op_with(tr_func *t, const pvm_wasm_op_info *info, tr_opmap map)
{
    bool binary = info->pop[1] != PVM_WASM_T_NONE;
    uint32_t d = t->height - 1 - binary;
    unsigned a = tr_operand(t, d, TR_SCRATCH1);
    unsigned b = binary ? tr_operand(t, d + 1, TR_SCRATCH2) : 0;
    unsigned cls = tr_class(info->push);
    unsigned dst = tr_dest(t, d);
    tr_emit_def(t, map.op, dst, map.swap ? b : a, map.swap ? a : b, 0);
    tr_dest_done(t, d, cls);
    t->height = d;
    tr_push_reg(t, info->push);
    return 0;
}

/* Is entry d a local that lives in the frame? */
static bool frame_local(const tr_func *t, uint32_t d)
{
    const tr_val *v = &t->stack[d];
    return v->kind == TV_LOCAL && TR_IS_FRAME(t->home[v->local]);
}

/* Did the last instruction leave the top entry, a register, with its upper
 * 32 bits zero (a right shift of 32 or more, a zero-extension, an unsigned
 * load of 32 bits or fewer)?  Then i32.wrap_i64 of it need do nothing:
 * it already is the i32 that its low half holds, kept zero-extended. */
static bool top_zero_extended(const tr_func *t)
{
    uint32_t d = t->height - 1;
    tr_loc loc = tr_slot_loc(t, d);
    if (t->stack[d].kind != TV_REG || TR_IS_FRAME(loc) || !t->last_def || t->code.failed ||
        t->last.reg[0] != (unsigned)loc)
        return false;
    switch (t->last.op) {
    case PVM_OP_xshr64_u_imm: return (t->last.imm & 63) >= 32;
    case PVM_OP_xzext32:
    case PVM_OP_xload8_u_g32:
    case PVM_OP_xload16_u_g32:
    case PVM_OP_xload32_u_g32: return true;
    default: return false;
    }
}

/* Does the Wasm instruction after i32.wrap_i64 (in) read only the low half
 * of the wrapped value?  An i32 compare or an i32 arithmetic op but
 * division and remainder (their VM ops read u32() or s32() of each
 * operand, as the table says, and write a zero-extended result), next or
 * after one i32.const or local.get (then the wrapped value is its first
 * operand).  i32.eqz is not one: before a branch it becomes br_if_not,
 * which reads the whole register. */
static bool next_reads_low_half(const pvm_wasm_insn *in)
{
    const pvm_wasm_insn *next = &in[1]; /* a wrap is never last: end follows */
    if (next->op == PVM_WASM_OP_I32_CONST || next->op == PVM_WASM_OP_LOCAL_GET)
        next = &in[2];
    unsigned op = next->op;
    return (op >= PVM_WASM_OP_I32_EQ && op <= PVM_WASM_OP_I32_GE_U) ||
           (op >= PVM_WASM_OP_I32_ADD && op <= PVM_WASM_OP_I32_ROTR &&
            !(op >= PVM_WASM_OP_I32_DIV_S && op <= PVM_WASM_OP_I32_REM_U));
}

/* select: [a b cond] -> cond ? a : b. */
static int select_op(tr_func *t, unsigned type)
{
    uint32_t d = t->height - 3;
    unsigned cls = tr_class(type);
    tr_loc dst = tr_slot_loc(t, d);
    if (!TR_IS_FRAME(tr_slot_loc(t, d + 2)) && !frame_local(t, d) && !frame_local(t, d + 1) &&
        !frame_local(t, d + 2)) {
        unsigned cond = tr_operand(t, d + 2, TR_SCRATCH1);
        unsigned a = tr_operand(t, d, TR_SCRATCH1);
        unsigned b = tr_operand(t, d + 1, TR_SCRATCH2);
        tr_emit4(t, cls == TR_X ? PVM_OP_xselect : PVM_OP_fselect, (unsigned)dst, cond, a, b);
    } else { /* deep in the frame: too few scratch registers, branch */
        unsigned cond = tr_operand(t, d + 2, TR_SCRATCH1);
        size_t at = t->code.len;
        tr_emit(t, PVM_OP_br_if_not, cond, 0, 0, 0);
        tr_move mv = tr_move_of(t, d, dst);
        tr_parallel_move(t, &mv, 1);
        size_t jump = t->code.len;
        tr_emit(t, PVM_OP_jump, 0, 0, 0, 0);
        if (!t->code.failed)
            pvm_wr32(t->code.data + at + pvm_ops[PVM_OP_br_if_not].length - 4,
                     (uint32_t)(t->code.len - at));
        mv = tr_move_of(t, d + 1, dst);
        tr_parallel_move(t, &mv, 1);
        if (!t->code.failed)
            pvm_wr32(t->code.data + jump + pvm_ops[PVM_OP_jump].length - 4,
                     (uint32_t)(t->code.len - jump));
        tr_label_here(t);
    }
    t->height = d;
    tr_push_reg(t, type);
    return 0;
}

int tr_numeric(tr_func *t, const pvm_wasm_insn *in)
{
    const pvm_wasm_op_info *info = &pvm_wasm_ops[in->op];
    switch (in->op) {
    case PVM_WASM_OP_I32_CONST:
    case PVM_WASM_OP_I64_CONST:
    case PVM_WASM_OP_F32_CONST:
    case PVM_WASM_OP_F64_CONST:
        tr_push(t, (tr_val){.kind = TV_CONST, .type = info->push, .bits = in->value});
        return 0;
    case PVM_WASM_OP_I64_EXTEND_I32_U: /* i32 values are kept zero-extended */
        tr_top(t, 0)->type = PVM_WASM_I64;
        return 0;
    case PVM_WASM_OP_I32_WRAP_I64: /* nothing to do, or a zero-extension */
        if (tr_top(t, 0)->kind == TV_CONST)
            tr_top(t, 0)->bits = (uint32_t)tr_top(t, 0)->bits;
        else if (!top_zero_extended(t) && !next_reads_low_half(in))
            break;
        tr_top(t, 0)->type = PVM_WASM_I32;
        return 0;
    case PVM_WASM_OP_SELECT: return select_op(t, tr_top(t, 1)->type);
    case PVM_WASM_OP_SELECT_T: return select_op(t, in->type);
    default: break;
    }
    if (opmap[in->op].op == 0)
        return 1;
    if (immmap[in->op].op != 0 && op_with_imm(t, in, info))
        return 0;
    return op_with(t, info, opmap[in->op]);
}

/* ---- locals and globals -------------------------------------------------- */

/* Write the top entry into local i; keep: leave the local's value on the
 * stack (local.tee). */
static void set_local(tr_func *t, uint32_t i, bool keep)
{
    uint32_t d = t->height - 1;
    tr_val v = t->stack[d];
    if (!(v.kind == TV_LOCAL && v.local == i)) {
        tr_materialize_local(t, i, d);
        /* A frame slot held in a register through this loop: both. */
        tr_loc at = tr_local_loc(t, i);
        tr_move mv = tr_move_of(t, d, at);
        tr_parallel_move(t, &mv, 1);
        if (at != t->home[i])
            tr_frame_store(t, tr_class(t->ltype[i]), TR_FRAME_INDEX(t->home[i]), (unsigned)at);
    }
    t->height = d;
    if (keep)
        tr_push(t, (tr_val){.kind = TV_LOCAL, .type = t->ltype[i], .local = i});
}

static void global_get(tr_func *t, uint32_t g)
{
    unsigned type = t->wm->globals[g].type, cls = tr_class(type);
    uint32_t d = t->height;
    unsigned dst = tr_dest(t, d);
    tr_emit_def(t, cls == TR_X ? PVM_OP_xglobal_get : PVM_OP_fglobal_get, dst, 0, 0, g);
    tr_dest_done(t, d, cls);
    tr_push_reg(t, type);
}

static void global_set(tr_func *t, uint32_t g)
{
    unsigned cls = tr_class(t->wm->globals[g].type);
    unsigned r = tr_operand(t, t->height - 1, TR_SCRATCH1);
    tr_emit(t, cls == TR_X ? PVM_OP_xglobal_set : PVM_OP_fglobal_set, r, 0, 0, g);
    t->height--;
}

int tr_variable(tr_func *t, const pvm_wasm_insn *in)
{
    switch (in->op) {
    case PVM_WASM_OP_LOCAL_GET:
    case PVM_WASM_OP_LOCAL_SET:
    case PVM_WASM_OP_LOCAL_TEE:
        if (in->idx >= t->nlocals) /* the plan renamed it to its web */
            return tr_fail(t, "internal error: local reference at %u has no web", t->pos);
        if (in->op == PVM_WASM_OP_LOCAL_GET)
            tr_push(t, (tr_val){.kind = TV_LOCAL, .type = t->ltype[in->idx], .local = in->idx});
        else
            set_local(t, in->idx, in->op == PVM_WASM_OP_LOCAL_TEE);
        return 0;
    case PVM_WASM_OP_GLOBAL_GET: global_get(t, in->idx); return 0;
    case PVM_WASM_OP_GLOBAL_SET: global_set(t, in->idx); return 0;
    default: return 1;
    }
}
