/*
 * translate_plan.c - the register plan of a function, from a first pass
 * over its body: does it call (a leaf keeps its parameters where they
 * arrive and may use the free caller-saved registers), how hot is each
 * local and each constant (uses weighted by 8 per enclosing loop), and
 * which locals are written before anything reads them (no zeroing).
 * Locals and constants then get registers hottest first; the locals left
 * over live in frame slots, the constants left over are materialised
 * where they are used.
 */
#include <stdlib.h>

#include "translate_internal.h"
#include "wasm_reader.h"

enum {
    MAX_CONSTS = 64, /* distinct constants considered for a register */
    /* A hoisted constant costs its load per call, and in a callee-saved
     * register a push and a pop too: it must be used in a loop, or that
     * much more. */
    MIN_CONST_WEIGHT = 8,
    MIN_SAVED_CONST_WEIGHT = 24,
};

static bool is_call(unsigned op)
{
    switch (op) {
    case PVM_WASM_OP_CALL:
    case PVM_WASM_OP_CALL_INDIRECT:
    case PVM_WASM_OP_MEMORY_INIT:
    case PVM_WASM_OP_DATA_DROP:
    case PVM_WASM_OP_MEMORY_COPY:
    case PVM_WASM_OP_MEMORY_FILL:
    case PVM_WASM_OP_TABLE_INIT:
    case PVM_WASM_OP_ELEM_DROP:
    case PVM_WASM_OP_TABLE_COPY:
    case PVM_WASM_OP_TABLE_FILL: return true;
    default: return false;
    }
}

/* The constant entry for (cls, bits), added if new and there is room. */
static tr_creg *const_entry(tr_func *t, unsigned cls, uint64_t bits)
{
    for (uint32_t i = 0; i < t->nconsts; i++)
        if (t->consts[i].cls == cls && t->consts[i].bits == bits)
            return &t->consts[i];
    if (t->nconsts == MAX_CONSTS)
        return NULL;
    t->consts[t->nconsts] = (tr_creg){.bits = bits, .cls = (uint8_t)cls, .reg = TR_NOREG};
    return &t->consts[t->nconsts++];
}

/* Weights of locals (weight[]) and constants, calls, zeroing. */
static int first_pass(tr_func *t, uint64_t *weight)
{
    const pvm_wasm_func *f = t->func;
    pvm_error err;
    pvm_wasm_reader r = pvm_wasm_reader_at(t->wm->bytes, t->wm->size, f->body_pos,
                                           f->body_end, &err);
    bool *is_loop = calloc((size_t)f->max_depth + 1, sizeof *is_loop);
    bool *seen = calloc((size_t)t->nlocals + 1, sizeof *seen);
    if (!is_loop || !seen) {
        free(is_loop);
        free(seen);
        return tr_fail(t, "out of memory");
    }
    uint32_t depth = 1, loops = 0;
    tr_creg *last_const = NULL; /* the previous instruction's constant */
    t->leaf = true;
    while (r.pos < r.end) {
        pvm_wasm_insn in;
        if (pvm_wasm_insn_read(&r, &in) != 0)
            break; /* cannot happen: the body is valid */
        uint64_t w = UINT64_C(1) << (loops < 10 ? 3 * loops : 30);
        tr_creg *c = NULL;
        switch (in.op) {
        case PVM_WASM_OP_LOOP: loops++; /* fall through */
        case PVM_WASM_OP_BLOCK:
        case PVM_WASM_OP_IF:
            is_loop[depth++] = in.op == PVM_WASM_OP_LOOP;
            break;
        case PVM_WASM_OP_END:
            depth--;
            loops -= depth > 0 && is_loop[depth];
            break;
        case PVM_WASM_OP_I32_CONST:
        case PVM_WASM_OP_I64_CONST:
        case PVM_WASM_OP_F32_CONST:
        case PVM_WASM_OP_F64_CONST:
            c = const_entry(t, tr_class(pvm_wasm_ops[in.op].push), in.value);
            if (c)
                c->weight += w;
            break;
        case PVM_WASM_OP_LOCAL_SET:
        case PVM_WASM_OP_LOCAL_TEE:
            if (last_const) /* written straight into the local's home */
                last_const->weight -= w;
            /* fall through */
        case PVM_WASM_OP_LOCAL_GET:
            weight[in.idx] += w;
            if (!seen[in.idx]) {
                seen[in.idx] = true;
                if (in.op != PVM_WASM_OP_LOCAL_GET && depth == 1)
                    t->zero_init[in.idx] = false;
            }
            break;
        default:
            if (is_call(in.op))
                t->leaf = false;
        }
        last_const = c;
    }
    free(is_loop);
    free(seen);
    return 0;
}

/* A local or a constant wanting a register. */
typedef struct candidate {
    uint64_t weight;
    uint32_t index;
    bool is_const;
} candidate;

static int hottest_first(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    if (x->weight != y->weight)
        return x->weight > y->weight ? -1 : 1;
    if (x->is_const != y->is_const)
        return x->is_const ? 1 : -1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Registers of class cls free for homes: in a leaf, the caller-saved ones
 * above the operand stack and the parameters' registers (so that moving
 * parameters home is never a cycle); then the callee-saved ones. */
static uint32_t home_pool(const tr_func *t, bool frame, uint8_t *regs)
{
    uint32_t n = 0;
    if (t->leaf) {
        uint64_t first = (uint64_t)t->sbase + t->func->max_stack;
        if (first < t->type->nparams)
            first = t->type->nparams;
        for (uint64_t r = first; r < TR_NSLOTREGS; r++)
            regs[n++] = (uint8_t)r;
    }
    for (unsigned r = TR_SAVED_FIRST; r <= TR_SAVED_LAST; r++)
        if (!(frame && r == TR_FRAME_BASE))
            regs[n++] = (uint8_t)r;
    return n;
}

/* Registers to candidates, hottest first; locals left over go to frame
 * slots.  Returns the number of locals in the frame. */
static uint32_t assign_once(tr_func *t, const candidate *cands, uint32_t n, bool frame)
{
    uint8_t pool[2][32];
    uint32_t npool[2] = {home_pool(t, frame, pool[TR_X]), home_pool(t, false, pool[TR_F])};
    uint32_t used[2] = {0, 0};
    t->nframe = 0;
    t->saved[TR_X] = t->saved[TR_F] = 0;
    for (uint32_t k = 0; k < n; k++) {
        const candidate *c = &cands[k];
        tr_creg *cr = c->is_const ? &t->consts[c->index] : NULL;
        unsigned cls = cr ? cr->cls : tr_class(t->ltype[c->index]);
        bool worth = !cr || used[cls] >= npool[cls] || pool[cls][used[cls]] < TR_SAVED_FIRST ||
                     cr->weight >= MIN_SAVED_CONST_WEIGHT;
        if (used[cls] < npool[cls] && worth) {
            unsigned r = pool[cls][used[cls]++];
            if (r >= TR_SAVED_FIRST)
                t->saved[cls] |= UINT32_C(1) << r;
            if (cr)
                cr->reg = (uint8_t)r;
            else
                t->home[c->index] = (tr_loc)r;
        } else if (cr) {
            cr->reg = TR_NOREG;
        } else {
            t->home[c->index] = TR_FRAME(t->nframe++);
        }
    }
    return t->nframe;
}

static int assign(tr_func *t, candidate *cands, uint32_t n)
{
    qsort(cands, n, sizeof *cands, hottest_first);
    uint64_t stack_top = (uint64_t)t->sbase + t->func->max_stack;
    bool frame = stack_top > TR_NSLOTREGS;
    if (assign_once(t, cands, n, frame) > 0 && !frame) /* x29 is needed as frame base */
        assign_once(t, cands, n, true);
    t->slot_frame0 = t->nframe;
    if (stack_top > TR_NSLOTREGS)
        t->nframe += (uint32_t)(stack_top - TR_NSLOTREGS);
    if (t->nframe > 0)
        t->saved[TR_X] |= UINT32_C(1) << TR_FRAME_BASE;
    if ((uint64_t)t->nframe * 8 > UINT32_MAX / 2)
        return tr_fail(t, "frame of %u slots is too large", t->nframe);
    return 0;
}

int tr_plan(tr_func *t)
{
    uint64_t *weight = calloc((size_t)t->nlocals + 1, sizeof *weight);
    candidate *cands = malloc(((size_t)t->nlocals + MAX_CONSTS + 1) * sizeof *cands);
    t->consts = malloc(MAX_CONSTS * sizeof *t->consts);
    int rc = -1;
    if (!weight || !cands || !t->consts)
        tr_fail(t, "out of memory");
    else if (first_pass(t, weight) == 0) {
        uint32_t np = t->type->nparams, n = 0;
        t->sbase = t->leaf && np <= 8 ? np : 0;
        for (uint32_t i = 0; i < t->nlocals; i++) {
            if (i < t->sbase)
                t->home[i] = (tr_loc)i; /* stays where it arrives */
            else
                cands[n++] = (candidate){weight[i], i, false};
        }
        for (uint32_t i = 0; i < t->nconsts; i++)
            if (t->consts[i].weight >= MIN_CONST_WEIGHT)
                cands[n++] = (candidate){t->consts[i].weight, i, true};
        rc = assign(t, cands, n);
        t->has_frame = !t->leaf;
    }
    free(weight);
    free(cands);
    return rc;
}
