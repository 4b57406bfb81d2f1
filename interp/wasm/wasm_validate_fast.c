/*
 * wasm_validate_fast.c - the validator's fast path
 * (wasm_validate_internal.h): most instructions of compiled code are
 * local accesses, constants, loads, stores, arithmetic, calls, branches
 * without values and blocks; checked here in a loop that keeps the
 * operand stack's height in a register, they cost a fraction of a trip
 * through the decoder and the general checks.  Anything else, and
 * anything invalid, is left to the general path, which then words the
 * error as always.
 */
#include "wasm_validate_internal.h"

/* The fast path's row of each opcode byte: the instructions of one byte
 * typed from the table (their operand and result types all value types),
 * and a few typed by hand that are common in compiled code. */
void pvm_wasm_fast_ops(fast_op fast[256])
{
    for (unsigned b = 0; b < 256; b++) {
        fast[b] = (fast_op){FAST_NONE, 0, {0}, 0, 0};
        unsigned op1 = pvm_wasm_byte_ops[b];
        if (!op1)
            continue;
        const pvm_wasm_op_info *info = &pvm_wasm_ops[op1 - 1];
        fast_op *f = &fast[b];
        switch (op1 - 1) {
        case PVM_WASM_OP_LOCAL_GET: f->kind = FAST_LOCAL_GET; continue;
        case PVM_WASM_OP_LOCAL_SET: f->kind = FAST_LOCAL_SET; continue;
        case PVM_WASM_OP_LOCAL_TEE: f->kind = FAST_LOCAL_TEE; continue;
        case PVM_WASM_OP_GLOBAL_GET: f->kind = FAST_GLOBAL_GET; continue;
        case PVM_WASM_OP_CALL: f->kind = FAST_CALL; continue;
        case PVM_WASM_OP_DROP: f->kind = FAST_DROP; continue;
        case PVM_WASM_OP_BR: f->kind = FAST_BR; continue;
        case PVM_WASM_OP_BR_IF: f->kind = FAST_BR_IF; continue;
        case PVM_WASM_OP_BLOCK: case PVM_WASM_OP_LOOP: f->kind = FAST_BLOCK; continue;
        case PVM_WASM_OP_END: f->kind = FAST_END; continue;
        default: break;
        }
        if (info->push == PVM_WASM_T_SPEC)
            continue;
        switch ((pvm_wasm_imm)info->imm) {
        case PVM_WASM_IMM_NONE: f->kind = FAST_TYPED; break;
        case PVM_WASM_IMM_I32: case PVM_WASM_IMM_I64: f->kind = FAST_CONST; break;
        case PVM_WASM_IMM_MEM8: case PVM_WASM_IMM_MEM16: case PVM_WASM_IMM_MEM32:
        case PVM_WASM_IMM_MEM64:
            f->kind = FAST_MEMORY;
            while ((1u << f->natural) < info->mem_bytes)
                f->natural++;
            break;
        default: continue;
        }
        for (unsigned i = 0; i < 3 && info->pop[i] != PVM_WASM_T_NONE; i++)
            f->pop[f->npop++] = info->pop[i];
        f->push = info->push;
    }
}

/* An unsigned LEB at p of two to four bytes (one byte is read inline):
 * its value and length.  false for a longer one (28 bits and fewer are
 * always well formed, as a u32 and as an s32 or s64 alike).  The bytes
 * are there to read. */
static bool long_leb4(const uint8_t *p, uint32_t *value, size_t *len)
{
    uint32_t x = 0;
    for (unsigned i = 0; i < 4; i++) {
        x |= (uint32_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) {
            *value = x;
            *len = i + 1;
            return true;
        }
    }
    return false;
}

/* Read the LEB immediate at q into imm and its length into len, or go to
 * `fail`. */
#define READ_LEB(q, fail)                                                      \
    do {                                                                       \
        if (!((q)[0] & 0x80))                                                  \
            imm = (q)[0], len = 1;                                             \
        else if (!long_leb4((q), &imm, &len))                                  \
            goto fail;                                                         \
    } while (0)

/* Pop n operands of the given types (first operand first) off stack[0,
 * *h), above base: false (*h unchanged) if they are not there. */
static inline bool pop_types(const uint8_t *stack, uint32_t *h, uint32_t base,
                             const uint8_t *types, uint32_t n)
{
    if (*h - base < n)
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (stack[*h - n + i] != types[i])
            return false;
    *h -= n;
    return true;
}

void pvm_wasm_check_common(validator *v)
{
    frame *fr = &v->frames[v->depth - 1];
    if (fr->unreachable || v->r.end - v->r.pos < 6)
        return;
    const pvm_wasm_module *m = v->m;
    const uint8_t *p = v->r.bytes + v->r.pos;
    const uint8_t *stop = v->r.bytes + v->r.end - 5; /* an opcode, an alignment, a LEB */
    const uint8_t *locals = v->locals;
    uint8_t *stack = v->stack;
    uint32_t h = v->height, base = fr->height, max = v->max_height, nlocals = v->nlocals;
    uint32_t depth = v->depth;
    uint32_t room = v->cap_stack < PVM_WASM_MAX_STACK ? v->cap_stack : PVM_WASM_MAX_STACK;
    while (p < stop) {
        const fast_op *f = &v->fast[p[0]];
        uint32_t imm, g = h; /* g: the height as this instruction leaves it */
        size_t len = 0;
        uint8_t push = PVM_WASM_T_NONE;
        switch ((fast_kind)f->kind) {
        case FAST_TYPED:
            if (!pop_types(stack, &g, base, f->pop, f->npop))
                goto out;
            push = f->push;
            break;
        case FAST_CONST:
            READ_LEB(p + 1, out);
            push = f->push;
            break;
        case FAST_MEMORY:
            if (p[1] > f->natural || !m->nmemories)
                goto out;
            READ_LEB(p + 2, out);
            if (!pop_types(stack, &g, base, f->pop, f->npop))
                goto out;
            len++;
            push = f->push;
            break;
        case FAST_LOCAL_GET:
            READ_LEB(p + 1, out);
            if (imm >= nlocals)
                goto out;
            push = locals[imm];
            break;
        case FAST_LOCAL_SET:
        case FAST_LOCAL_TEE:
            READ_LEB(p + 1, out);
            if (imm >= nlocals || g == base || stack[g - 1] != locals[imm])
                goto out;
            g -= f->kind == FAST_LOCAL_SET;
            break;
        case FAST_GLOBAL_GET:
            READ_LEB(p + 1, out);
            if (imm >= m->nglobals)
                goto out;
            push = m->globals[imm].type;
            break;
        case FAST_CALL: {
            READ_LEB(p + 1, out);
            if (imm >= m->nfuncs)
                goto out;
            const pvm_wasm_functype *ft = pvm_wasm_func_type(m, imm);
            if (ft->nresults > 1 || !pop_types(stack, &g, base, ft->params, ft->nparams))
                goto out;
            push = ft->nresults ? ft->results[0] : PVM_WASM_T_NONE;
            break;
        }
        case FAST_DROP:
            if (g == base)
                goto out;
            g--;
            break;
        case FAST_BR_IF:
        case FAST_BR:
            READ_LEB(p + 1, out);
            if (imm >= depth || label_types(&v->frames[depth - 1 - imm]).n != 0)
                goto out;
            if (f->kind == FAST_BR) { /* set_unreachable: the run ends */
                h = base;
                fr->unreachable = true;
                p += 1 + len;
                goto out;
            }
            if (g == base || stack[g - 1] != PVM_WASM_I32)
                goto out;
            g--;
            break;
        case FAST_BLOCK: {
            types results = {NULL, 0};
            if (p[1] != 0x40 && !(p[1] >= PVM_WASM_F64 && p[1] <= PVM_WASM_I32))
                goto out;
            if (p[1] != 0x40)
                results = (types){p + 1, 1};
            if (depth >= v->cap_frames || v->nblocks >= v->cap_blocks)
                goto out;
            uint16_t op = (uint16_t)(pvm_wasm_byte_ops[p[0]] - 1);
            v->blocks[v->nblocks] = (pvm_wasm_block){
                .op = (uint8_t)op, .pos = (uint32_t)(p - v->r.bytes), .height = h,
                .nresults = results.n, .results = results.t};
            fr = &v->frames[depth++];
            *fr = (frame){op, false, h, {NULL, 0}, results, v->nblocks++, 0};
            base = h;
            v->max_depth = depth > v->max_depth ? depth : v->max_depth;
            len = 1;
            break;
        }
        case FAST_END: {
            if (depth < 2 || fr->op == PVM_WASM_OP_IF)
                goto out;
            types results = fr->results; /* they stay where they are, now the outer's */
            if (!pop_types(stack, &g, base, results.t, results.n) || g != base)
                goto out;
            v->blocks[fr->block].end_pos = (uint32_t)(p - v->r.bytes);
            fr = &v->frames[--depth - 1];
            base = fr->height;
            h = g + results.n;
            p++;
            if (fr->unreachable)
                goto out;
            continue;
        }
        case FAST_NONE:
            goto out;
        }
        if (push != PVM_WASM_T_NONE) {
            if (g >= room)
                goto out;
            stack[g++] = push;
            max = g > max ? g : max;
        }
        h = g;
        p += 1 + len;
    }
out:
    v->depth = depth;
    v->height = h;
    v->max_height = max;
    v->r.pos = (size_t)(p - v->r.bytes);
}
