/*
 * translate_loop_slots.c - the frame slots worth a register through a
 * loop, for the register plan (translate_plan.c).  A web left in a frame
 * slot costs a load at each read; in a loop that makes no call, one load
 * where the loop is entered serves every read of every iteration, from a
 * register that nothing else holds through the loop and that every write
 * of the slot in the loop writes too (translate_ops.c): the slot holds
 * the value on every path that leaves the loop, as before.
 */
#include <stdlib.h>

#include "base/grow.h"
#include "translate_internal.h"

/* Add to *out the frame slots that the loop at positions [start, end]
 * reads (through webs of one class).  open: room for the constructs open in it. */
static int slots_of_loop(const tr_func *t, uint32_t start, uint32_t end, bool *open,
                         tr_loop_slot **out, size_t *cap, uint32_t *n)
{
    const pvm_wasm_insn *body = t->mod->body;
    uint32_t first = *n, nopen = 0, depth = 1; /* depth: loops around, from this one in */
    uint32_t room = t->func->max_depth + 2;
    for (uint32_t pos = start + 1; pos <= end && pos <= t->ninsns; pos++) {
        const pvm_wasm_insn *in = &body[pos - 1];
        switch (in->op) {
        case PVM_WASM_OP_BLOCK:
        case PVM_WASM_OP_IF:
        case PVM_WASM_OP_LOOP:
            if (nopen < room) {
                open[nopen++] = in->op == PVM_WASM_OP_LOOP;
                depth += in->op == PVM_WASM_OP_LOOP;
            }
            continue;
        case PVM_WASM_OP_END:
            if (nopen > 0)
                depth -= open[--nopen];
            continue;
        case PVM_WASM_OP_LOCAL_GET:
        case PVM_WASM_OP_LOCAL_SET:
        case PVM_WASM_OP_LOCAL_TEE: break;
        default: continue;
        }
        if (in->idx >= t->nlocals) /* never: the plan renamed it to its web */
            continue;
        tr_loc home = t->home[in->idx];
        if (!TR_IS_FRAME(home))
            continue;
        uint32_t slot = TR_FRAME_INDEX(home), e = first;
        while (e < *n && (*out)[e].slot != slot)
            e++;
        if (e == *n) {
            if (base_grow((void **)out, cap, (size_t)*n + 1, sizeof **out, 8) != 0)
                return -1;
            (*out)[(*n)++] = (tr_loop_slot){0, slot, start, end,
                                            (uint8_t)tr_class(t->ltype[in->idx]), TR_NOREG};
        }
        tr_loop_slot *s = &(*out)[e];
        if (s->cls != tr_class(t->ltype[in->idx]))
            s->weight = UINT64_MAX; /* webs of both classes: not held */
        else if (in->op == PVM_WASM_OP_LOCAL_GET && s->weight != UINT64_MAX)
            s->weight += UINT64_C(1) << (depth < 10 ? 3 * depth : 30);
    }
    uint32_t kept = first;
    for (uint32_t e = first; e < *n; e++)
        if ((*out)[e].weight != UINT64_MAX && (*out)[e].weight != 0)
            (*out)[kept++] = (*out)[e];
    *n = kept;
    return 0;
}

int tr_find_loop_slots(const tr_func *t, const uint32_t *spans, uint32_t nspans,
                       tr_loop_slot **out, uint32_t *n)
{
    *out = NULL;
    *n = 0;
    if (nspans == 0)
        return 0;
    size_t cap = 0;
    bool *open = malloc(((size_t)t->func->max_depth + 2) * sizeof *open);
    int rc = open ? 0 : -1;
    for (uint32_t k = 0; k < nspans && rc == 0; k++)
        rc = slots_of_loop(t, spans[2 * k], spans[2 * k + 1], open, out, &cap, n);
    free(open);
    if (rc != 0) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}
