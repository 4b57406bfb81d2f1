/*
 * translate_call.c - calls: direct (call, or call_host for an import),
 * indirect through a table (bounds check, table_get, sigcheck,
 * call_indirect), and the host calls of the bulk operations.
 *
 * Arguments go to registers by position (x[k] / f[k]); positions 16 and
 * above to the stack at sp + 8 * (k - 16), where the callee also leaves
 * results of those positions.  Operand-stack values below the arguments
 * that live in caller-saved registers are pushed around the call, and so
 * are the caller-saved registers homing locals whose live spans hold it
 * (translate_plan.c); the other locals live across calls in callee-saved
 * registers or the frame.
 */

#include "translate_internal.h"

/* Does the call being translated lie in s's stretch? */
static bool around_here(const tr_func *t, const tr_saved_local *s)
{
    return s->lo <= t->pos && t->pos <= s->hi;
}

/* Is local i's home saved around the call being translated? */
static bool saved_around(const tr_func *t, uint32_t i)
{
    for (uint32_t k = 0; k < t->naround; k++)
        if (t->around[k].reg == t->home[i] && t->around[k].cls == tr_class(t->ltype[i]) &&
            around_here(t, &t->around[k]))
            return true;
    return false;
}

static void push(tr_func *t, unsigned cls, unsigned r)
{
    tr_emit(t, cls == TR_X ? PVM_OP_xpush : PVM_OP_fpush, r, 0, 0, 0);
}

static void pop(tr_func *t, unsigned cls, unsigned r)
{
    tr_emit(t, cls == TR_X ? PVM_OP_xpop : PVM_OP_fpop, r, 0, 0, 0);
}

void tr_save_live(tr_func *t, uint32_t base)
{
    /* A local homed in a caller-saved register is dead across the call
     * unless saved around it (translate_plan.c), but an entry may still
     * read it after this one. */
    for (uint32_t d = 0; d < base; d++) {
        uint32_t i = t->stack[d].local;
        if (t->stack[d].kind == TV_LOCAL && tr_caller_saved_home(t, i) && !saved_around(t, i))
            tr_materialize(t, d);
    }
    for (uint32_t d = 0; d < base; d++) {
        tr_loc loc = tr_slot_loc(t, d);
        if (t->stack[d].kind == TV_REG && !TR_IS_FRAME(loc))
            push(t, tr_class(t->stack[d].type), (unsigned)loc);
    }
    for (uint32_t k = 0; k < t->naround; k++)
        if (around_here(t, &t->around[k]))
            push(t, t->around[k].cls, t->around[k].reg);
}

void tr_restore_live(tr_func *t, uint32_t base)
{
    for (uint32_t k = t->naround; k-- > 0;)
        if (around_here(t, &t->around[k]))
            pop(t, t->around[k].cls, t->around[k].reg);
    for (uint32_t d = base; d-- > 0;) {
        tr_loc loc = tr_slot_loc(t, d);
        if (t->stack[d].kind == TV_REG && !TR_IS_FRAME(loc))
            pop(t, tr_class(t->stack[d].type), (unsigned)loc);
    }
}

/* Bytes of the stack area for arguments and results past position 15. */
static uint32_t stack_area(uint32_t nparams, uint32_t nresults)
{
    uint32_t n = nparams > nresults ? nparams : nresults;
    return n > TR_NARGREGS ? 8 * (n - TR_NARGREGS) : 0;
}

/* Put the top np entries (from slot base) into argument positions. */
static void pass_arguments(tr_func *t, uint32_t base, uint32_t np, uint32_t area)
{
    if (area > 0) {
        tr_emit(t, PVM_OP_stack_alloc, 0, 0, 0, area);
        tr_emit(t, PVM_OP_xget_sp, TR_SCRATCH1, 0, 0, 0);
        for (uint32_t k = TR_NARGREGS; k < np; k++) {
            unsigned cls = tr_class(t->stack[base + k].type);
            unsigned r = tr_operand(t, base + k, TR_SCRATCH2);
            tr_emit(t, cls == TR_X ? PVM_OP_xstore64 : PVM_OP_fstore64, TR_SCRATCH1, r, 0,
                    8 * (int64_t)(k - TR_NARGREGS));
        }
    }
    tr_move moves[TR_NARGREGS];
    uint32_t n = np < TR_NARGREGS ? np : TR_NARGREGS;
    for (uint32_t k = 0; k < n; k++)
        moves[k] = tr_move_of(t, base + k, (tr_loc)k);
    tr_parallel_move(t, moves, n);
}

/* After the call: results from their positions into the slots from base;
 * those in registers first (moving them needs no scratch register), then
 * those on the stack. */
static void take_results(tr_func *t, uint32_t base, const pvm_wasm_functype *ft,
                         uint32_t area)
{
    uint32_t nr = ft->nresults;
    t->height = base;
    for (uint32_t k = 0; k < nr; k++)
        tr_push_reg(t, ft->results[k]);
    tr_move moves[TR_NARGREGS];
    uint32_t n = nr < TR_NARGREGS ? nr : TR_NARGREGS;
    for (uint32_t k = 0; k < n; k++)
        moves[k] = (tr_move){.cls = (uint8_t)tr_class(ft->results[k]),
                             .dst = tr_slot_loc(t, base + k),
                             .src = {.kind = TV_REG, .type = ft->results[k]},
                             .src_loc = (tr_loc)k};
    tr_parallel_move(t, moves, n);
    if (area == 0)
        return;
    tr_emit(t, PVM_OP_xget_sp, TR_SCRATCH1, 0, 0, 0);
    for (uint32_t k = TR_NARGREGS; k < nr; k++) {
        unsigned cls = tr_class(ft->results[k]);
        tr_loc loc = tr_slot_loc(t, base + k);
        unsigned r = TR_IS_FRAME(loc) ? TR_SCRATCH2 : (unsigned)loc;
        tr_emit(t, cls == TR_X ? PVM_OP_xload64 : PVM_OP_fload64, r, TR_SCRATCH1, 0,
                8 * (int64_t)(k - TR_NARGREGS));
        if (TR_IS_FRAME(loc))
            tr_frame_store(t, cls, TR_FRAME_INDEX(loc), r);
    }
    tr_emit(t, PVM_OP_stack_free, 0, 0, 0, area);
}

/* A function without a frame of its own (a light one, translate_paths.c)
 * keeps its return address in a frame pushed around each call that
 * writes lr (call and call_indirect; a host call leaves it). */
static void frame_for_call(tr_func *t, bool push)
{
    if (!t->has_frame)
        tr_emit(t, push ? PVM_OP_push_frame : PVM_OP_pop_frame, 0, 0, 0, 0);
}

static int call_direct(tr_func *t, uint32_t f)
{
    const pvm_wasm_functype *ft = pvm_wasm_func_type(t->wm, f);
    uint32_t base = t->height - ft->nparams, area = stack_area(ft->nparams, ft->nresults);
    bool host = t->wm->funcs[f].import != PVM_WASM_NONE;
    tr_save_live(t, base);
    if (!host)
        frame_for_call(t, true);
    pass_arguments(t, base, ft->nparams, area);
    if (host)
        tr_emit(t, PVM_OP_call_host, 0, 0, 0, t->mod->host_of[f]);
    else
        tr_emit(t, PVM_OP_call, 0, 0, 0, f);
    take_results(t, base, ft, area);
    if (!host)
        frame_for_call(t, false);
    tr_restore_live(t, base);
    return 0;
}

/* call_indirect: the table entry must exist (else "undefined element"),
 * be non-null and have the type; the reference waits in the index's slot
 * (above the arguments, so no argument move touches it). */
static int call_indirect(tr_func *t, uint32_t type, uint32_t table)
{
    const pvm_wasm_functype *ft = &t->wm->types[type];
    uint32_t d = t->height - 1;
    unsigned index = tr_operand(t, d, TR_SCRATCH1);
    tr_loc slot = tr_slot_loc(t, d);
    unsigned ref = TR_IS_FRAME(slot) ? TR_SCRATCH1 : (unsigned)slot;
    tr_emit(t, PVM_OP_table_size, TR_SCRATCH2, 0, 0, table);
    tr_emit(t, PVM_OP_xlt32_u, TR_SCRATCH2, index, TR_SCRATCH2, 0);
    tr_emit(t, PVM_OP_br_if, TR_SCRATCH2, 0, 0,
            pvm_ops[PVM_OP_br_if].length + pvm_ops[PVM_OP_trap].length);
    tr_emit(t, PVM_OP_trap, 0, 0, 0, PVM_TRAP_UNDEFINED_ELEMENT);
    tr_label_here(t);
    tr_emit(t, PVM_OP_table_get, ref, index, 0, table);
    tr_emit(t, PVM_OP_sigcheck, ref, 0, 0, type);
    if (TR_IS_FRAME(slot))
        tr_frame_store(t, TR_X, TR_FRAME_INDEX(slot), ref);
    t->height = d;

    uint32_t base = t->height - ft->nparams, area = stack_area(ft->nparams, ft->nresults);
    tr_save_live(t, base);
    frame_for_call(t, true);
    pass_arguments(t, base, ft->nparams, area);
    if (TR_IS_FRAME(slot))
        tr_frame_load(t, TR_X, ref, TR_FRAME_INDEX(slot));
    tr_emit(t, PVM_OP_call_indirect, ref, 0, 0, 0);
    take_results(t, base, ft, area);
    frame_for_call(t, false);
    tr_restore_live(t, base);
    return 0;
}

void tr_call_bulk(tr_func *t, tr_bulk_op op, uint32_t nargs, const uint32_t *extra,
                  uint32_t nextra)
{
    int host = tr_bulk_import(t->mod, op);
    if (host < 0) {
        t->failed = true;
        return;
    }
    uint32_t base = t->height - nargs;
    tr_save_live(t, base);
    tr_move moves[8];
    for (uint32_t k = 0; k < nargs; k++)
        moves[k] = tr_move_of(t, base + k, (tr_loc)k);
    for (uint32_t j = 0; j < nextra; j++)
        moves[nargs + j] = (tr_move){.cls = TR_X, .dst = (tr_loc)(nargs + j),
                                     .src = {.kind = TV_CONST, .type = PVM_WASM_I32,
                                             .bits = extra[j]}};
    tr_parallel_move(t, moves, nargs + nextra);
    tr_emit(t, PVM_OP_call_host, 0, 0, 0, host);
    t->height = base;
    tr_restore_live(t, base);
}

int tr_call(tr_func *t, const pvm_wasm_insn *in)
{
    switch (in->op) {
    case PVM_WASM_OP_CALL: return call_direct(t, in->idx);
    case PVM_WASM_OP_CALL_INDIRECT: return call_indirect(t, in->idx, in->idx2);
    default: return 1;
    }
}
