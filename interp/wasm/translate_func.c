/*
 * translate_func.c - translating one function: after the register plan
 * (translate_plan.c), the prologue (frame, saved registers, parameters to
 * their homes, locals zeroed, hoisted constants), the epilogues, and the
 * walk over the instructions that hands each to its translator.
 */
#include <stdlib.h>
#include <string.h>

#include "translate_internal.h"

/* ---- prologue and epilogues ------------------------------------------------ */

static uint32_t nsaved(const tr_func *t)
{
    return (uint32_t)__builtin_popcount(t->saved[TR_X]) +
           (uint32_t)__builtin_popcount(t->saved[TR_F]);
}

/* Bytes between the current sp (after the prologue) and the sp at entry. */
static uint32_t frame_bytes(const tr_func *t)
{
    return 8 * t->nframe + 8 * nsaved(t) + (t->has_frame ? 16 : 0);
}

/* Do the frame's slots start at zero (stack_alloc_zero), rather than
 * one store per local that must?  Yes when two or more must, or one in a
 * frame of at most 8 slots: clearing a few cache lines costs less than two
 * stores, each a dispatch. */
static bool zero_the_frame(const tr_func *t)
{
    uint32_t n = 0;
    for (uint32_t i = t->type->nparams; i < t->nlocals; i++)
        n += t->live_in[i] && TR_IS_FRAME(t->home[i]);
    return n >= 2 || (n == 1 && t->nframe <= 8);
}

static void prologue(tr_func *t)
{
    uint32_t np = t->type->nparams;
    if (np > TR_NARGREGS)
        tr_emit(t, PVM_OP_xget_sp, TR_SCRATCH1, 0, 0, 0); /* the entry sp */
    if (t->has_frame)
        tr_emit(t, PVM_OP_push_frame, 0, 0, 0, 0);
    for (unsigned r = TR_SAVED_FIRST; r <= TR_SAVED_LAST; r++) {
        if (t->saved[TR_X] >> r & 1)
            tr_emit(t, PVM_OP_xpush, r, 0, 0, 0);
        if (t->saved[TR_F] >> r & 1)
            tr_emit(t, PVM_OP_fpush, r, 0, 0, 0);
    }
    bool zeroed = zero_the_frame(t);
    if (t->nframe > 0) {
        tr_emit(t, zeroed ? PVM_OP_stack_alloc_zero : PVM_OP_stack_alloc, 0, 0, 0,
                8 * (int64_t)t->nframe);
        tr_emit(t, PVM_OP_xget_sp, TR_FRAME_BASE, 0, 0, 0);
    }
    /* Parameters in registers, then (x15 free again) those in memory, to
     * their homes; the homes are no parameter's register. */
    tr_move moves[TR_NARGREGS];
    uint32_t nmoves = 0;
    for (uint32_t k = t->sbase; k < np && k < TR_NARGREGS; k++)
        if (t->live_in[k])
            moves[nmoves++] = (tr_move){.cls = (uint8_t)tr_class(t->ltype[k]), .dst = t->home[k],
                                        .src = {.kind = TV_REG, .type = t->ltype[k]},
                                        .src_loc = (tr_loc)k};
    tr_parallel_move(t, moves, nmoves);
    for (uint32_t k = TR_NARGREGS; k < np; k++) {
        if (!t->live_in[k])
            continue;
        unsigned cls = tr_class(t->ltype[k]);
        tr_loc home = t->home[k];
        unsigned r = TR_IS_FRAME(home) ? TR_SCRATCH2 : (unsigned)home;
        tr_emit(t, cls == TR_X ? PVM_OP_xload64 : PVM_OP_fload64, r, TR_SCRATCH1, 0,
                8 * (int64_t)(k - TR_NARGREGS));
        if (TR_IS_FRAME(home))
            tr_frame_store(t, cls, TR_FRAME_INDEX(home), r);
    }
    bool zero_ready = false;
    for (uint32_t i = np; i < t->nlocals; i++) {
        if (!t->live_in[i])
            continue;
        unsigned cls = tr_class(t->ltype[i]);
        if (!TR_IS_FRAME(t->home[i])) {
            tr_const(t, cls, (unsigned)t->home[i], 0);
            continue;
        }
        if (zeroed)
            continue;
        if (!zero_ready)
            tr_const(t, TR_X, TR_SCRATCH2, 0);
        zero_ready = true;
        tr_frame_store(t, TR_X, TR_FRAME_INDEX(t->home[i]), TR_SCRATCH2);
    }
    tr_load_hoisted_consts(t, 0);
}

void tr_return(tr_func *t)
{
    uint32_t nr = t->type->nresults, first = t->height - nr;
    /* Results in memory go to the caller's area at the entry sp. */
    if (nr > TR_NARGREGS) {
        unsigned base = TR_FRAME_BASE; /* the sp after the prologue */
        if (t->nframe == 0) {
            tr_emit(t, PVM_OP_xget_sp, TR_SCRATCH1, 0, 0, 0);
            base = TR_SCRATCH1;
        }
        int64_t adjust = frame_bytes(t);
        for (uint32_t k = TR_NARGREGS; k < nr; k++) {
            unsigned cls = tr_class(t->stack[first + k].type);
            unsigned r = tr_operand(t, first + k, TR_SCRATCH2);
            tr_emit(t, cls == TR_X ? PVM_OP_xstore64 : PVM_OP_fstore64, base, r, 0,
                    adjust + 8 * (int64_t)(k - TR_NARGREGS));
        }
    }
    tr_move moves[TR_NARGREGS];
    uint32_t n = nr < TR_NARGREGS ? nr : TR_NARGREGS;
    for (uint32_t k = 0; k < n; k++)
        moves[k] = tr_move_of(t, first + k, (tr_loc)k);
    tr_parallel_move(t, moves, n);
    if (t->nframe > 0)
        tr_emit(t, PVM_OP_stack_free, 0, 0, 0, 8 * (int64_t)t->nframe);
    for (unsigned r = TR_SAVED_LAST; r >= TR_SAVED_FIRST; r--) {
        if (t->saved[TR_F] >> r & 1)
            tr_emit(t, PVM_OP_fpop, r, 0, 0, 0);
        if (t->saved[TR_X] >> r & 1)
            tr_emit(t, PVM_OP_xpop, r, 0, 0, 0);
    }
    if (t->has_frame)
        tr_emit(t, PVM_OP_pop_frame, 0, 0, 0, 0);
    tr_emit(t, PVM_OP_ret, 0, 0, 0, 0);
}

/* ---- the body --------------------------------------------------------------- */

static int translate_insn(tr_func *t, const pvm_wasm_insn *in)
{
    int rc = tr_control(t, in);
    if (rc == 1)
        rc = tr_variable(t, in);
    if (rc == 1)
        rc = tr_memory(t, in);
    if (rc == 1)
        rc = tr_call(t, in);
    if (rc == 1)
        rc = tr_table(t, in);
    if (rc == 1)
        rc = tr_numeric(t, in);
    if (rc == 1)
        rc = tr_fail(t, "no translation for %s", pvm_wasm_ops[in->op].text);
    return rc;
}

static int setup(tr_func *t)
{
    const pvm_wasm_func *f = t->func;
    t->nlocals = t->type->nparams + f->nlocals;
    t->ltype = malloc((size_t)t->nlocals + 1); /* home, live_in: per web, by the plan */
    t->stack_cap = f->max_stack + 1;
    t->stack = malloc(t->stack_cap * sizeof *t->stack);
    t->blocks_cap = f->max_depth + 1;
    t->blocks = calloc(t->blocks_cap, sizeof *t->blocks);
    if (!t->ltype || !t->stack || !t->blocks)
        return tr_fail(t, "out of memory");
    uint32_t i = 0;
    for (; i < t->type->nparams; i++)
        t->ltype[i] = t->type->params[i];
    for (uint32_t run = 0; run < f->nruns; run++)
        for (uint32_t k = 0; k < f->runs[run].count; k++, i++)
            t->ltype[i] = f->runs[run].type;
    return 0;
}

int tr_function(tr_module *mod, uint32_t index, pvm_buf *out)
{
    const pvm_wasm_module *wm = mod->wm;
    tr_func t = {.mod = mod, .wm = wm, .func = &wm->funcs[index],
                 .type = pvm_wasm_func_type(wm, index), .index = index};
    int rc = setup(&t);
    if (rc == 0)
        rc = tr_plan(&t);
    if (rc == 0) {
        tr_const_pool_init(&t);
        prologue(&t);
        t.blocks[0] = (tr_block){.fixups = TR_NONE, .else_fixup = TR_NONE};
        t.depth = 1;
        for (uint32_t i = 0; i < t.ninsns && !t.failed; i++) { /* as the plan decoded it */
            const pvm_wasm_insn *in = &mod->body[i];
            t.pos++;
            if (t.dead && tr_dead_code(&t, in))
                continue;
            tr_const_pool_unpin(&t);
            translate_insn(&t, in);
        }
        if (t.code.failed)
            tr_fail(&t, "out of memory");
        rc = t.failed ? -1 : 0;
    }
    if (rc == 0) {
        pvm_buf_free(out);
        *out = t.code;
        t.code = (pvm_buf){0};
    }
    pvm_buf_free(&t.code);
    free(t.consts);
    free(t.loop_slots);
    free(t.ltype);
    free(t.home);
    free(t.live_in);
    free(t.around);
    free(t.stack);
    free(t.blocks);
    free(t.fixups);
    return rc;
}
