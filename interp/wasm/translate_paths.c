/*
 * translate_paths.c - the fewest and the most calls that the paths through
 * a function's body make, followed instruction by instruction during the
 * first pass (translate_plan.c).  A light function, whose calls are few on
 * every path and in no loop, pays for a call only where one is made: its
 * locals are saved around the call rather than on entry, and it pushes a
 * frame only around the call (TRANSLATION.md, "Frames where the calls
 * are").
 *
 * Structured control flow makes this one pass: the fewest and the most
 * calls on the paths that reach the current instruction, and for each
 * open block and if, on the paths that branch to its end.  A branch to a
 * loop goes back to the loop's start; the count leaves such paths out,
 * which is exact where no call is in a loop (a path around the loop makes
 * no call) and the only case where the count decides anything.
 */
#include <stdlib.h>

#include "translate_internal.h"

enum { MOST_COUNTED = 1000 }; /* counts stop growing here */

static const tr_calls no_path = {.fewest = MOST_COUNTED, .most = -1};

/* The paths of a and of b. */
static tr_calls either(tr_calls a, tr_calls b)
{
    return (tr_calls){.fewest = a.fewest < b.fewest ? a.fewest : b.fewest,
                      .most = a.most > b.most ? a.most : b.most};
}

int tr_paths_init(tr_paths *p, uint32_t max_depth)
{
    *p = (tr_paths){.labels = malloc(((size_t)max_depth + 1) * sizeof *p->labels),
                    .out = no_path};
    if (!p->labels)
        return -1;
    p->labels[p->n++] = (tr_path_label){.to_end = no_path, .kind = TR_PATH_BLOCK}; /* the body */
    return 0;
}

void tr_paths_free(tr_paths *p)
{
    free(p->labels);
    p->labels = NULL;
}

/* A branch from here to the label `depth` labels out. */
static void branch(tr_paths *p, uint32_t depth)
{
    if (depth >= p->n)
        return; /* cannot happen: the body was validated */
    tr_path_label *l = &p->labels[p->n - 1 - depth];
    if (l->kind != TR_PATH_LOOP)
        l->to_end = either(l->to_end, p->here);
}

void tr_paths_step(tr_paths *p, const pvm_wasm_insn *in, bool is_call)
{
    tr_path_label *top = &p->labels[p->n - 1];
    switch (in->op) {
    case PVM_WASM_OP_BLOCK:
    case PVM_WASM_OP_LOOP:
    case PVM_WASM_OP_IF:
        p->labels[p->n++] = (tr_path_label){
            .to_end = no_path, .at_entry = p->here, .then_end = no_path,
            .kind = in->op == PVM_WASM_OP_LOOP ? TR_PATH_LOOP
                    : in->op == PVM_WASM_OP_IF ? TR_PATH_IF : TR_PATH_BLOCK};
        break;
    case PVM_WASM_OP_ELSE: /* the else-arm starts where the if did */
        top->then_end = p->here;
        top->kind = TR_PATH_ELSE;
        p->here = top->at_entry;
        break;
    case PVM_WASM_OP_END:
        if (top->kind == TR_PATH_IF) /* no else: the path may skip the arm */
            p->here = either(p->here, top->at_entry);
        else if (top->kind == TR_PATH_ELSE)
            p->here = either(p->here, top->then_end);
        p->here = either(p->here, top->to_end);
        if (p->n > 1)
            p->n--;
        else /* the function's own end */
            p->out = either(p->out, p->here);
        break;
    case PVM_WASM_OP_BR:
        branch(p, in->idx);
        p->here = no_path;
        break;
    case PVM_WASM_OP_BR_IF:
        branch(p, in->idx);
        break;
    case PVM_WASM_OP_BR_TABLE: /* to some of the labels: count all of them */
        for (uint32_t d = 0; d < p->n; d++)
            branch(p, d);
        p->here = no_path;
        break;
    case PVM_WASM_OP_RETURN:
        p->out = either(p->out, p->here);
        p->here = no_path;
        break;
    case PVM_WASM_OP_UNREACHABLE:
        p->here = no_path;
        break;
    default:
        if (is_call && p->here.most >= 0 && p->here.most < MOST_COUNTED) {
            p->here.most++;
            p->here.fewest++;
        }
    }
}
