/*
 * translate_stack.c - the translator's compile-time operand stack and its
 * emitters: where each slot lives, reading an entry as an operand (locals
 * in place, constants materialised on use), writing results, retargeting
 * the last definition, and parallel moves for calls, branches and returns.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "translate_internal.h"

int tr_fail(tr_func *t, const char *fmt, ...)
{
    if (!t->failed) {
        char msg[400];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        pvm_errorf(t->mod->err, "function %" PRIu32 ": %s", t->index, msg);
        t->failed = true;
    }
    return -1;
}

unsigned tr_class(unsigned valtype)
{
    return valtype == PVM_WASM_F32 || valtype == PVM_WASM_F64 ? TR_F : TR_X;
}

/* ---- emission ----------------------------------------------------------- */

/* Forget the constant of every pool register in writes; a call forgets
 * them all (the table states what an instruction writes). */
static void note_writes(tr_func *t, const pvm_insn *in)
{
    const pvm_format_info *fmt = pvm_insn_format(in);
    if (pvm_ops[in->op].flags & PVM_FLAG_CALL) {
        t->cknown[TR_X] = t->cknown[TR_F] = 0;
        return;
    }
    for (unsigned i = 0; i < fmt->nregs; i++) {
        if (!(fmt->role[i] & PVM_ROLE_W))
            continue;
        unsigned cls = fmt->reg[i] == PVM_REG_X ? TR_X : TR_F;
        t->cknown[cls] &= ~(UINT32_C(1) << in->reg[i]);
    }
}

static void emit_insn(tr_func *t, const pvm_insn *in)
{
    note_writes(t, in);
    if (pvm_encode(&t->code, in) == 0 && !t->code.failed)
        tr_fail(t, "cannot encode %s", pvm_ops[in->op].name);
}

void tr_emit(tr_func *t, unsigned op, unsigned r0, unsigned r1, unsigned r2, int64_t imm)
{
    pvm_insn in = {.op = (uint16_t)op, .reg = {(uint8_t)r0, (uint8_t)r1, (uint8_t)r2}, .imm = imm};
    emit_insn(t, &in);
    t->last_def = false;
}

void tr_emit4(tr_func *t, unsigned op, unsigned r0, unsigned r1, unsigned r2, unsigned r3)
{
    pvm_insn in = {.op = (uint16_t)op,
                   .reg = {(uint8_t)r0, (uint8_t)r1, (uint8_t)r2, (uint8_t)r3}};
    size_t start = t->code.len;
    emit_insn(t, &in);
    t->last_def = true;
    t->last_start = start;
    t->last = in;
}

void tr_emit_def(tr_func *t, unsigned op, unsigned r0, unsigned r1, unsigned r2, int64_t imm)
{
    pvm_insn in = {.op = (uint16_t)op, .reg = {(uint8_t)r0, (uint8_t)r1, (uint8_t)r2}, .imm = imm};
    size_t start = t->code.len;
    emit_insn(t, &in);
    t->last_def = true;
    t->last_start = start;
    t->last = in;
}

bool tr_retarget(tr_func *t, unsigned cls, unsigned from, unsigned to)
{
    if (!t->last_def || t->last.reg[0] != from || t->code.failed)
        return false;
    const pvm_format_info *fmt = &pvm_formats[pvm_ops[t->last.op].format];
    if (fmt->reg[0] != (cls == TR_X ? PVM_REG_X : PVM_REG_F) || fmt->role[0] != PVM_ROLE_W)
        return false;
    t->code.len = t->last_start;
    t->last.reg[0] = (uint8_t)to;
    pvm_insn again = t->last;
    emit_insn(t, &again);
    return true;
}

void tr_const(tr_func *t, unsigned cls, unsigned r, uint64_t bits)
{
    if (cls == TR_F) {
        if (bits >> 32 == 0)
            tr_emit_def(t, PVM_OP_fconst32, r, 0, 0, (int64_t)bits);
        else
            tr_emit_def(t, PVM_OP_fconst64, r, 0, 0, (int64_t)bits);
        return;
    }
    int64_t v = (int64_t)bits;
    unsigned op = v >= INT8_MIN && v <= INT8_MAX     ? PVM_OP_xconst8
                  : v >= INT16_MIN && v <= INT16_MAX ? PVM_OP_xconst16
                  : v >= INT32_MIN && v <= INT32_MAX ? PVM_OP_xconst32
                                                     : PVM_OP_xconst64;
    tr_emit_def(t, op, r, 0, 0, v);
}

void tr_frame_load(tr_func *t, unsigned cls, unsigned r, uint32_t slot)
{
    tr_emit_def(t, cls == TR_X ? PVM_OP_xload64 : PVM_OP_fload64, r, TR_FRAME_BASE, 0,
                8 * (int64_t)slot);
}

void tr_frame_store(tr_func *t, unsigned cls, uint32_t slot, unsigned r)
{
    tr_emit(t, cls == TR_X ? PVM_OP_xstore64 : PVM_OP_fstore64, TR_FRAME_BASE, r, 0,
            8 * (int64_t)slot);
}

void tr_mov(tr_func *t, unsigned cls, unsigned dst, unsigned src)
{
    if (dst != src)
        tr_emit_def(t, cls == TR_X ? PVM_OP_xmov : PVM_OP_fmov, dst, src, 0, 0);
}

/* ---- the operand stack ---------------------------------------------------- */

tr_loc tr_slot_loc(const tr_func *t, uint32_t d)
{
    uint64_t r = (uint64_t)t->sbase + d;
    if (r < TR_NSLOTREGS)
        return (tr_loc)r;
    return TR_FRAME(t->slot_frame0 + (r - TR_NSLOTREGS));
}

void tr_push(tr_func *t, tr_val v)
{
    if (t->height == t->stack_cap) { /* only past the validator's bound */
        tr_fail(t, "operand stack deeper than validation found");
        return;
    }
    t->stack[t->height++] = v;
}

/* ---- the constant pool ----------------------------------------------------- */

void tr_const_pool_init(tr_func *t)
{
    uint32_t used[2] = {0, 0};
    for (uint32_t i = 0; i < t->nlocals; i++)
        if (!TR_IS_FRAME(t->home[i]))
            used[tr_class(t->ltype[i])] |= UINT32_C(1) << t->home[i];
    for (uint32_t i = 0; i < t->nconsts; i++)
        if (t->consts[i].reg != TR_NOREG && t->consts[i].lo == 0)
            used[t->consts[i].cls] |= UINT32_C(1) << t->consts[i].reg;
    uint32_t slots = ((UINT32_C(1) << TR_NSLOTREGS) - 1) & ~((UINT32_C(1) << t->sbase) - 1);
    for (unsigned cls = TR_X; cls <= TR_F; cls++)
        t->cfree[cls] = slots & ~used[cls];
}

unsigned tr_hoisted_const(const tr_func *t, unsigned cls, uint64_t bits)
{
    for (uint32_t i = 0; i < t->nconsts; i++) {
        const tr_creg *c = &t->consts[i];
        if (c->cls == cls && c->bits == bits && tr_const_held(t, c))
            return c->reg;
    }
    return TR_NOREG;
}

void tr_load_hoisted_consts(tr_func *t, uint32_t from)
{
    for (uint32_t i = 0; i < t->nconsts; i++) {
        const tr_creg *c = &t->consts[i];
        if (c->reg == TR_NOREG || c->lo != from)
            continue;
        tr_const(t, c->cls, c->reg, c->bits);
        t->cknown[c->cls] &= ~(UINT32_C(1) << c->reg); /* not the pool's any more */
    }
    t->last_def = false;
}

void tr_load_loop_slots(tr_func *t, uint32_t from)
{
    for (uint32_t k = 0; k < t->nloop_slots; k++) {
        const tr_loop_slot *s = &t->loop_slots[k];
        if (s->lo == from)
            tr_frame_load(t, s->cls, s->reg, s->slot);
    }
    t->last_def = false;
}

/* Does loop slot s hold its register at the current position (after the
 * load where its loop is entered)? */
static bool loop_slot_held(const tr_func *t, const tr_loop_slot *s)
{
    return s->lo < t->pos && t->pos <= s->hi;
}

unsigned tr_loop_slot_reg(const tr_func *t, uint32_t slot)
{
    for (uint32_t k = 0; k < t->nloop_slots; k++) {
        const tr_loop_slot *s = &t->loop_slots[k];
        if (s->slot == slot && loop_slot_held(t, s))
            return s->reg;
    }
    return TR_NOREG;
}

/* A pool register holding `bits`: one that already does, else one loaded
 * with it (a register holding nothing known first, else the next in turn);
 * TR_NOREG when every pool register is pinned or none is free. */
static unsigned pooled_const(tr_func *t, unsigned cls, uint64_t bits)
{
    uint64_t top = (uint64_t)t->sbase + t->height;
    uint32_t pool = top < 32 ? t->cfree[cls] & ~((UINT32_C(1) << top) - 1) : 0;
    for (uint32_t i = 0; i < t->nconsts; i++) { /* not those of a loop's constants */
        const tr_creg *c = &t->consts[i];
        if (c->cls == cls && tr_const_held(t, c))
            pool &= ~(UINT32_C(1) << c->reg);
    }
    for (uint32_t k = 0; k < t->nloop_slots; k++)
        if (t->loop_slots[k].cls == cls && loop_slot_held(t, &t->loop_slots[k]))
            pool &= ~(UINT32_C(1) << t->loop_slots[k].reg);
    uint32_t known = pool & t->cknown[cls];
    for (unsigned r = 0; known >> r; r++)
        if ((known >> r & 1) && t->ckbits[cls][r] == bits) {
            t->cpinned[cls] |= UINT32_C(1) << r;
            return r;
        }
    uint32_t open = pool & ~t->cpinned[cls], fresh = open & ~t->cknown[cls];
    uint32_t want = fresh ? fresh : open;
    if (!want)
        return TR_NOREG;
    unsigned r = t->cnext[cls] % 32;
    while (!(want >> r & 1))
        r = (r + 1) % 32;
    t->cnext[cls] = (uint8_t)(r + 1);
    tr_const(t, cls, r, bits);
    t->last_def = false; /* not a result a move could retarget */
    t->cknown[cls] |= UINT32_C(1) << r;
    t->cpinned[cls] |= UINT32_C(1) << r;
    t->ckbits[cls][r] = bits;
    return r;
}

unsigned tr_operand(tr_func *t, uint32_t d, unsigned scratch)
{
    tr_val *v = &t->stack[d];
    unsigned cls = tr_class(v->type), r;
    tr_loc loc = tr_slot_loc(t, d);
    switch (v->kind) {
    case TV_LOCAL: {
        tr_loc at = tr_local_loc(t, v->local);
        if (!TR_IS_FRAME(at))
            return (unsigned)at;
        tr_frame_load(t, cls, scratch, TR_FRAME_INDEX(at));
        return scratch;
    }
    case TV_CONST:
        if ((r = tr_hoisted_const(t, cls, v->bits)) != TR_NOREG)
            return r;
        if ((r = pooled_const(t, cls, v->bits)) != TR_NOREG)
            return r;
        if (TR_IS_FRAME(loc)) {
            tr_const(t, cls, scratch, v->bits);
            return scratch;
        }
        tr_const(t, cls, (unsigned)loc, v->bits);
        v->kind = TV_REG;
        return (unsigned)loc;
    default:
        if (!TR_IS_FRAME(loc))
            return (unsigned)loc;
        tr_frame_load(t, cls, scratch, TR_FRAME_INDEX(loc));
        return scratch;
    }
}

unsigned tr_dest(const tr_func *t, uint32_t d)
{
    tr_loc loc = tr_slot_loc(t, d);
    return TR_IS_FRAME(loc) ? TR_SCRATCH1 : (unsigned)loc;
}

void tr_dest_done(tr_func *t, uint32_t d, unsigned cls)
{
    tr_loc loc = tr_slot_loc(t, d);
    if (TR_IS_FRAME(loc))
        tr_frame_store(t, cls, TR_FRAME_INDEX(loc), TR_SCRATCH1);
}

void tr_materialize(tr_func *t, uint32_t d)
{
    tr_val *v = &t->stack[d];
    if (v->kind == TV_REG)
        return;
    tr_move mv = tr_move_of(t, d, tr_slot_loc(t, d));
    tr_parallel_move(t, &mv, 1);
    v->kind = TV_REG;
}

void tr_materialize_local(tr_func *t, uint32_t i, uint32_t below)
{
    /* Locals (webs) may share a home register (translate_plan.c): an
     * entry reading any of them is read before that register changes. */
    for (uint32_t d = 0; d < below; d++)
        if (t->stack[d].kind == TV_LOCAL &&
            (i == TR_NONE || t->home[t->stack[d].local] == t->home[i]))
            tr_materialize(t, d);
}

/* ---- parallel moves -------------------------------------------------------- */

tr_move tr_move_of(tr_func *t, uint32_t d, tr_loc dst)
{
    tr_val v = t->stack[d];
    tr_move mv = {.cls = (uint8_t)tr_class(v.type), .dst = dst, .src = v};
    if (v.kind == TV_REG)
        mv.src_loc = tr_slot_loc(t, d);
    else if (v.kind == TV_LOCAL)
        mv.src_loc = tr_local_loc(t, v.local);
    return mv;
}

static bool reads_loc(const tr_move *mv, unsigned cls, tr_loc loc)
{
    return mv->cls == cls && mv->src.kind != TV_CONST && mv->src_loc == loc;
}

/* Emit one move whose destination no pending move reads. */
static void emit_move(tr_func *t, const tr_move *mv)
{
    unsigned cls = mv->cls;
    if (mv->src.kind == TV_CONST) {
        if (TR_IS_FRAME(mv->dst)) {
            tr_const(t, cls, TR_SCRATCH1, mv->src.bits);
            tr_frame_store(t, cls, TR_FRAME_INDEX(mv->dst), TR_SCRATCH1);
        } else {
            tr_const(t, cls, (unsigned)mv->dst, mv->src.bits);
        }
        return;
    }
    if (mv->src_loc == mv->dst)
        return;
    if (!TR_IS_FRAME(mv->dst) && !TR_IS_FRAME(mv->src_loc)) {
        /* A slot's value may have just been computed into its register
         * (a local's home or a parked value must keep it). */
        bool temp = mv->src.kind == TV_REG && mv->src_loc != TR_SCRATCH2;
        if (!temp || !tr_retarget(t, cls, (unsigned)mv->src_loc, (unsigned)mv->dst))
            tr_mov(t, cls, (unsigned)mv->dst, (unsigned)mv->src_loc);
        return;
    }
    unsigned r = (unsigned)mv->src_loc;
    if (TR_IS_FRAME(mv->src_loc)) {
        r = TR_IS_FRAME(mv->dst) ? TR_SCRATCH1 : (unsigned)mv->dst;
        tr_frame_load(t, cls, r, TR_FRAME_INDEX(mv->src_loc));
    }
    if (TR_IS_FRAME(mv->dst))
        tr_frame_store(t, cls, TR_FRAME_INDEX(mv->dst), r);
}

void tr_parallel_move(tr_func *t, tr_move *moves, uint32_t n)
{
    /* Drop moves that move nothing. */
    uint32_t live = 0;
    for (uint32_t i = 0; i < n; i++)
        if (moves[i].src.kind == TV_CONST || moves[i].src_loc != moves[i].dst)
            moves[live++] = moves[i];
    while (live > 0) {
        bool progress = false;
        for (uint32_t i = 0; i < live; i++) {
            bool blocked = false;
            for (uint32_t j = 0; j < live && !blocked; j++)
                blocked = j != i && reads_loc(&moves[j], moves[i].cls, moves[i].dst);
            if (blocked)
                continue;
            emit_move(t, &moves[i]);
            moves[i] = moves[--live];
            progress = true;
            break;
        }
        if (progress)
            continue;
        /* Every destination is read by another move: a cycle.  Park the
         * first move's destination value in scratch 2 and redirect its
         * readers there. */
        tr_move *mv = &moves[0];
        unsigned cls = mv->cls;
        tr_loc parked = mv->dst;
        if (TR_IS_FRAME(parked))
            tr_frame_load(t, cls, TR_SCRATCH2, TR_FRAME_INDEX(parked));
        else
            tr_mov(t, cls, TR_SCRATCH2, (unsigned)parked);
        for (uint32_t j = 0; j < live; j++)
            if (reads_loc(&moves[j], cls, parked))
                moves[j].src_loc = TR_SCRATCH2;
    }
}
