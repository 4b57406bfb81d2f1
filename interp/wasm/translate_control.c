/*
 * translate_control.c - structured control flow: blocks, loops and ifs
 * with their labels, br, br_if, br_table and return (values moved into the
 * slots the target expects, only when they are not there already),
 * unreachable, and skipping code that cannot run.
 *
 * A block's results (a loop's parameters) live in the operand-stack slots
 * starting at the block's entry height; every branch to it and its own end
 * leave them there.  A branch to the function body is a return.
 */
#include <stdlib.h>

#include "base/grow.h"
#include "translate_internal.h"
#include "wasm_reader.h"

/* ---- labels ----------------------------------------------------------------- */

static void add_fixup(tr_func *t, tr_block *b, size_t from, size_t patch)
{
    size_t cap = t->fixups_cap;
    if (BASE_GROW(t->fixups, cap, (size_t)t->nfixups + 1, 16) != 0 || cap > UINT32_MAX) {
        tr_fail(t, "out of memory");
        return;
    }
    t->fixups_cap = (uint32_t)cap;
    t->fixups[t->nfixups] = (tr_fixup){(uint32_t)from, (uint32_t)patch, b->fixups};
    b->fixups = t->nfixups++;
    b->end_reached = true;
}

static void patch(tr_func *t, uint32_t from, uint32_t at, size_t target)
{
    if (!t->code.failed)
        pvm_wr32(t->code.data + at, (uint32_t)((int64_t)target - (int64_t)from));
}

/* Bind the fixups of list `head` to the current position. */
static void bind(tr_func *t, uint32_t head)
{
    for (uint32_t i = head; i != TR_NONE; i = t->fixups[i].next)
        patch(t, t->fixups[i].from, t->fixups[i].patch, t->code.len);
    tr_label_here(t);
}

/* Emit a branch op (jump, br_if, br_if_not: immediate last) to block b. */
static void branch_to(tr_func *t, tr_block *b, unsigned op, unsigned cond)
{
    size_t at = t->code.len;
    bool loop = b->wb && b->wb->op == PVM_WASM_OP_LOOP;
    int64_t rel = loop ? (int64_t)b->head - (int64_t)at : 0;
    tr_emit(t, op, cond, 0, 0, rel);
    if (!loop)
        add_fixup(t, b, at, t->code.len - 4);
}

/* Emit a branch op to be bound later to a local label (returned). */
static uint32_t branch_forward(tr_func *t, unsigned op, unsigned cond)
{
    size_t at = t->code.len;
    tr_emit(t, op, cond, 0, 0, 0);
    return (uint32_t)(at << 1); /* at; the immediate is the last 4 bytes */
}

static void bind_forward(tr_func *t, uint32_t label, unsigned op)
{
    uint32_t at = label >> 1;
    patch(t, at, at + pvm_ops[op].length - 4, t->code.len);
    tr_label_here(t);
}

/* ---- values at block boundaries ------------------------------------------ */

static uint32_t arity(const tr_block *b)
{
    if (!b->wb)
        return 0;
    return b->wb->op == PVM_WASM_OP_LOOP ? b->wb->nparams : b->wb->nresults;
}

/* Fill moves[] with the moves putting the top n entries into the slots
 * starting at `height`; returns how many move anything. */
static uint32_t branch_moves(tr_func *t, uint32_t height, uint32_t n, tr_move *moves)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t d = t->height - n + i;
        tr_loc dst = tr_slot_loc(t, height + i);
        tr_move mv = tr_move_of(t, d, dst);
        if (mv.src.kind == TV_CONST || mv.src_loc != dst)
            moves[k++] = mv;
    }
    return k;
}

/* Move the top n entries into the slots from `height` (a block's end). */
static void settle(tr_func *t, uint32_t height, uint32_t n)
{
    tr_move *moves = malloc(((size_t)n + 1) * sizeof *moves);
    if (!moves) {
        tr_fail(t, "out of memory");
        return;
    }
    uint32_t k = branch_moves(t, height, n, moves);
    tr_parallel_move(t, moves, k);
    free(moves);
}

/* Reset the stack model to `height` plus n values of types[] in place. */
static void reset_stack(tr_func *t, uint32_t height, uint32_t n, const uint8_t *types)
{
    t->height = height;
    for (uint32_t i = 0; i < n; i++)
        tr_push_reg(t, types[i]);
}

/* Branch to block b, moving its values; cond: the branch is taken when
 * register cond is non-zero (negate: zero), or always if cond < 0. */
static void branch(tr_func *t, tr_block *b, int cond, bool negate)
{
    bool to_body = b == &t->blocks[0];
    uint32_t n = arity(b);
    tr_move *moves = malloc(((size_t)n + 1) * sizeof *moves);
    if (!moves) {
        tr_fail(t, "out of memory");
        return;
    }
    uint32_t k = to_body ? 0 : branch_moves(t, b->height, n, moves);
    if (!to_body && k == 0) {
        unsigned op = cond < 0 ? PVM_OP_jump : negate ? PVM_OP_br_if_not : PVM_OP_br_if;
        branch_to(t, b, op, cond < 0 ? 0 : (unsigned)cond);
    } else {
        /* Skip the moves unless the branch is taken. */
        unsigned skip_op = negate ? PVM_OP_br_if : PVM_OP_br_if_not;
        uint32_t skip = cond < 0 ? 0 : branch_forward(t, skip_op, (unsigned)cond);
        if (to_body) {
            uint32_t saved = t->height;
            tr_val *copy = malloc(((size_t)saved + 1) * sizeof *copy);
            if (!copy) {
                free(moves);
                tr_fail(t, "out of memory");
                return;
            }
            /* The epilogue may materialise entries: keep the model. */
            for (uint32_t i = 0; i < saved; i++)
                copy[i] = t->stack[i];
            tr_return(t);
            for (uint32_t i = 0; i < saved; i++)
                t->stack[i] = copy[i];
            free(copy);
        } else {
            tr_parallel_move(t, moves, k);
            branch_to(t, b, PVM_OP_jump, 0);
        }
        if (cond >= 0)
            bind_forward(t, skip, skip_op);
    }
    free(moves);
}

/* Pop a condition: its register, and whether it is negated (an i32.eqz
 * just computed it: branch on the eqz's operand instead). */
static unsigned pop_cond(tr_func *t, bool *negate)
{
    uint32_t d = t->height - 1;
    *negate = false;
    tr_loc loc = tr_slot_loc(t, d);
    if (t->stack[d].kind == TV_REG && !TR_IS_FRAME(loc) && t->last_def &&
        t->last.op == PVM_OP_xeqz32 && t->last.reg[0] == (unsigned)loc) {
        unsigned src = t->last.reg[1];
        t->code.len = t->last_start;
        t->last_def = false;
        t->height--;
        *negate = true;
        return src;
    }
    unsigned r = tr_operand(t, d, TR_SCRATCH1);
    t->height--;
    return r;
}

/* ---- blocks -------------------------------------------------------------------- */

static int begin_block(tr_func *t, const pvm_wasm_insn *in)
{
    const pvm_wasm_block *wb = &t->func->blocks[t->next_block++];
    bool is_if = in->op == PVM_WASM_OP_IF;
    uint32_t top = t->height - is_if; /* the condition is above the params */
    /* Nothing on the stack may read a local the block could write (nor a
     * home that a loop's constant takes from here), and the parameters sit
     * in their slots on every path. */
    tr_materialize_local(t, TR_NONE, top);
    if (in->op == PVM_WASM_OP_LOOP) { /* before anything that may read them */
        tr_load_hoisted_consts(t, t->pos);
        tr_load_loop_slots(t, t->pos);
    }
    for (uint32_t d = top - wb->nparams; d < top; d++)
        tr_materialize(t, d);
    tr_block b = {.wb = wb, .height = top - wb->nparams, .fixups = TR_NONE,
                  .else_fixup = TR_NONE};
    if (is_if) {
        bool negate;
        unsigned cond = pop_cond(t, &negate);
        b.else_fixup = branch_forward(t, negate ? PVM_OP_br_if : PVM_OP_br_if_not, cond) |
                       (negate ? 1u : 0u);
    }
    if (in->op == PVM_WASM_OP_LOOP) {
        b.head = (uint32_t)t->code.len;
        tr_label_here(t);
    }
    t->blocks[t->depth++] = b;
    return 0;
}

static void bind_else(tr_func *t, tr_block *b)
{
    uint32_t label = b->else_fixup;
    bind_forward(t, label & ~1u, label & 1 ? PVM_OP_br_if : PVM_OP_br_if_not);
    b->else_fixup = TR_NONE;
}

static int else_arm(tr_func *t)
{
    tr_block *b = &t->blocks[t->depth - 1];
    if (!t->dead) {
        settle(t, b->height, b->wb->nresults);
        branch_to(t, b, PVM_OP_jump, 0);
    }
    bind_else(t, b);
    reset_stack(t, b->height, b->wb->nparams, b->wb->params);
    t->dead = false;
    return 0;
}

static int end_block(tr_func *t)
{
    tr_block *b = &t->blocks[t->depth - 1];
    if (t->depth == 1) { /* the function body */
        if (!t->dead)
            tr_return(t);
        t->depth--;
        return 0;
    }
    const pvm_wasm_block *wb = b->wb;
    if (!t->dead)
        settle(t, b->height, wb->nresults);
    bool reached = !t->dead || b->end_reached || b->else_fixup != TR_NONE;
    if (wb->op != PVM_WASM_OP_LOOP)
        bind(t, b->fixups);
    if (b->else_fixup != TR_NONE) /* an if without else: false goes here */
        bind_else(t, b);
    tr_label_here(t);
    reset_stack(t, b->height, wb->nresults, wb->results);
    t->dead = !reached;
    t->depth--;
    return 0;
}

/* ---- branches ------------------------------------------------------------------ */

static int br_table(tr_func *t, const pvm_wasm_insn *in)
{
    uint32_t d = t->height - 1;
    unsigned index = tr_operand(t, d, TR_SCRATCH1);
    t->height--;
    uint32_t count = in->count + 1;
    uint32_t *labels = malloc((size_t)count * sizeof *labels);
    uint32_t *stub = malloc((size_t)t->depth * sizeof *stub);
    if (!labels || !stub) {
        free(labels);
        free(stub);
        return tr_fail(t, "out of memory");
    }
    pvm_error err;
    pvm_wasm_reader r = pvm_wasm_reader_at(t->wm->bytes, t->wm->size, in->vec, in->end, &err);
    for (uint32_t i = 0; i < in->count; i++)
        pvm_wasm_read_u32(&r, &labels[i]);
    labels[in->count] = in->idx;
    for (uint32_t i = 0; i < t->depth; i++)
        stub[i] = TR_NONE;

    size_t at = t->code.len;
    uint8_t *zeros = calloc(count, 4);
    if (!zeros) {
        free(labels);
        free(stub);
        return tr_fail(t, "out of memory");
    }
    pvm_insn insn = {.op = PVM_OP_br_table, .reg = {(uint8_t)index}, .imm = count,
                     .table = zeros};
    pvm_encode(&t->code, &insn); /* entries patched below */
    free(zeros);
    t->last_def = false;
    size_t entries = at + pvm_ops[PVM_OP_br_table].length;
    /* Entries to blocks whose values are in place go straight there; the
     * others go to one stub per label that moves the values first. */
    for (uint32_t i = 0; i < count && !t->failed; i++) {
        tr_block *b = &t->blocks[t->depth - 1 - labels[i]];
        uint32_t n = arity(b);
        tr_move *moves = malloc(((size_t)n + 1) * sizeof *moves);
        if (!moves) {
            tr_fail(t, "out of memory");
            break;
        }
        bool direct = b != &t->blocks[0] && branch_moves(t, b->height, n, moves) == 0;
        free(moves);
        size_t entry = entries + 4 * (size_t)i;
        if (direct && b->wb->op == PVM_WASM_OP_LOOP)
            patch(t, (uint32_t)at, (uint32_t)entry, b->head);
        else if (direct)
            add_fixup(t, b, at, entry);
        else {
            if (stub[labels[i]] == TR_NONE) {
                stub[labels[i]] = (uint32_t)t->code.len;
                tr_label_here(t);
                branch(t, b, -1, false);
            }
            patch(t, (uint32_t)at, (uint32_t)entry, stub[labels[i]]);
        }
    }
    free(labels);
    free(stub);
    t->dead = true;
    return t->failed ? -1 : 0;
}

int tr_control(tr_func *t, const pvm_wasm_insn *in)
{
    bool negate;
    switch (in->op) {
    case PVM_WASM_OP_NOP: return 0;
    case PVM_WASM_OP_UNREACHABLE:
        tr_emit(t, PVM_OP_trap, 0, 0, 0, PVM_TRAP_UNREACHABLE);
        t->dead = true;
        return 0;
    case PVM_WASM_OP_BLOCK:
    case PVM_WASM_OP_LOOP:
    case PVM_WASM_OP_IF: return begin_block(t, in);
    case PVM_WASM_OP_ELSE: return else_arm(t);
    case PVM_WASM_OP_END: return end_block(t);
    case PVM_WASM_OP_BR:
        branch(t, &t->blocks[t->depth - 1 - in->idx], -1, false);
        t->dead = true;
        return 0;
    case PVM_WASM_OP_BR_IF: {
        unsigned cond = pop_cond(t, &negate);
        branch(t, &t->blocks[t->depth - 1 - in->idx], (int)cond, negate);
        return 0;
    }
    case PVM_WASM_OP_BR_TABLE: return br_table(t, in);
    case PVM_WASM_OP_RETURN:
        tr_return(t);
        t->dead = true;
        return 0;
    case PVM_WASM_OP_DROP:
        t->height--;
        return 0;
    default: return 1;
    }
}

bool tr_dead_code(tr_func *t, const pvm_wasm_insn *in)
{
    switch (in->op) {
    case PVM_WASM_OP_BLOCK:
    case PVM_WASM_OP_LOOP:
    case PVM_WASM_OP_IF:
        t->next_block++;
        t->dead_depth++;
        return true;
    case PVM_WASM_OP_ELSE: return t->dead_depth > 0;
    case PVM_WASM_OP_END:
        if (t->dead_depth == 0)
            return false;
        t->dead_depth--;
        return true;
    default: return true;
    }
}
