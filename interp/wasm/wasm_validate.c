/*
 * wasm_validate.c - validation of function bodies: the algorithm of the
 * spec's appendix (an operand stack of value types with "unknown" for the
 * polymorphic stack after unreachable code, and a stack of control frames).
 *
 * Instructions are decoded with wasm_insn.c; those whose row in
 * wasm_opcodes.def gives their operand and result types are typed from the
 * table, the others (R = SPEC) by the switch in check_special().  Along the
 * way it records, for the translator, each block's else/end offsets and
 * entry height, and the function's maximum stack height and nesting.
 * Runs of common, valid instructions go through the fast path first
 * (wasm_validate_fast.c); what it leaves, it leaves to this file.
 */
#include "wasm_validate_internal.h"

#include <stdlib.h>
#include <string.h>


#define FAIL(v, ...) pvm_wasm_fail(&(v)->r, (v)->at, __VA_ARGS__)

static const char *tname(uint8_t t) { return t == UNKNOWN ? "unknown" : pvm_wasm_valtype_name(t); }
static bool is_num(uint8_t t) { return t == UNKNOWN || (t >= PVM_WASM_F64 && t <= PVM_WASM_I32); }
static bool is_ref(uint8_t t) { return t == UNKNOWN || t == PVM_WASM_FUNCREF || t == PVM_WASM_EXTERNREF; }

/* ---- the operand and control stacks ------------------------------------- */

static int push(validator *v, uint8_t t)
{
    if (v->height >= PVM_WASM_MAX_STACK)
        return FAIL(v, "operand stack deeper than %u values (implementation limit)",
                    PVM_WASM_MAX_STACK);
    if (pvm_wasm_reserve((void **)&v->stack, &v->cap_stack, v->height + 1, 1))
        return FAIL(v, "out of memory");
    v->stack[v->height++] = t;
    if (v->height > v->max_height)
        v->max_height = v->height;
    return 0;
}

static int push_all(validator *v, types ts)
{
    for (uint32_t i = 0; i < ts.n; i++)
        if (push(v, ts.t[i]))
            return -1;
    return 0;
}

/* Pop a value of type `expect` (UNKNOWN: any type); *out gets the actual
 * type, which is UNKNOWN when the stack is polymorphic. */
/* pop's errors, out of its way. */
__attribute__((noinline, cold)) static int pop_failed(validator *v, uint8_t expect,
                                                      uint8_t actual, bool empty)
{
    if (empty && expect == UNKNOWN)
        return FAIL(v, "type mismatch: %s expects an operand, the stack is empty", v->opname);
    if (empty)
        return FAIL(v, "type mismatch: %s expects %s, the stack is empty", v->opname,
                    tname(expect));
    return FAIL(v, "type mismatch: %s expects %s, found %s", v->opname, tname(expect),
                tname(actual));
}

/* Pop an operand of type expect (UNKNOWN: any) into *out (if not NULL;
 * written also on failure, so that callers never read it unset). */
static inline int pop(validator *v, uint8_t expect, uint8_t *out)
{
    const frame *fr = &v->frames[v->depth - 1];
    uint8_t actual = UNKNOWN;
    bool empty = v->height == fr->height;
    if (!empty)
        actual = v->stack[--v->height];
    if (out)
        *out = actual;
    if (empty && !fr->unreachable)
        return pop_failed(v, expect, actual, true);
    if (actual != expect && actual != UNKNOWN && expect != UNKNOWN)
        return pop_failed(v, expect, actual, false);
    return 0;
}

static int pop_all(validator *v, types ts)
{
    for (uint32_t i = ts.n; i-- > 0;)
        if (pop(v, ts.t[i], NULL))
            return -1;
    return 0;
}

static int push_frame(validator *v, uint16_t op, types params, types results, uint32_t block)
{
    if (pvm_wasm_reserve((void **)&v->frames, &v->cap_frames, v->depth + 1, sizeof *v->frames))
        return FAIL(v, "out of memory");
    v->frames[v->depth++] = (frame){op, false, v->height, params, results, block, 0};
    if (v->depth > v->max_depth)
        v->max_depth = v->depth;
    return push_all(v, params);
}

/* Pop the innermost frame's results and check nothing else is left. */
static int pop_frame_results(validator *v)
{
    frame *fr = &v->frames[v->depth - 1];
    if (pop_all(v, fr->results))
        return -1;
    if (v->height != fr->height)
        return FAIL(v, "type mismatch: %u values left on the stack at the end of a block "
                    "of %u results", v->height - fr->height + fr->results.n, fr->results.n);
    return 0;
}

static void set_unreachable(validator *v)
{
    frame *fr = &v->frames[v->depth - 1];
    v->height = fr->height;
    fr->unreachable = true;
}

/* ---- immediates against the module -------------------------------------- */

static int label(validator *v, uint32_t l, types *out)
{
    if (l >= v->depth)
        return FAIL(v, "unknown label %u (%u blocks enclosing)", l, v->depth);
    *out = label_types(&v->frames[v->depth - 1 - l]);
    return 0;
}

static int block_type(validator *v, const pvm_wasm_insn *in, types *params, types *results)
{
    *params = (types){NULL, 0};
    *results = (types){NULL, 0};
    if (in->bt == PVM_WASM_BT_VALUE)
        *results = (types){v->r.bytes + in->pos + 1, 1}; /* the valtype byte itself */
    if (in->bt == PVM_WASM_BT_TYPE) {
        if (in->idx >= v->m->ntypes)
            return FAIL(v, "unknown type %u", in->idx);
        const pvm_wasm_functype *ft = &v->m->types[in->idx];
        *params = (types){ft->params, ft->nparams};
        *results = (types){ft->results, ft->nresults};
    }
    return 0;
}

static int check_table(validator *v, uint32_t t)
{
    return t < v->m->ntables ? 0 : FAIL(v, "unknown table %u", t);
}

static int check_memory(validator *v)
{
    return v->m->nmemories ? 0 : FAIL(v, "unknown memory 0");
}

static int check_data(validator *v, uint32_t d)
{
    if (!v->m->has_data_count && v->m->ndatas == 0)
        return FAIL(v, "unknown data segment %u (the module has none)", d);
    if (!v->m->has_data_count)
        return FAIL(v, "data count section required by %s", v->opname);
    return d < v->m->ndatas ? 0 : FAIL(v, "unknown data segment %u", d);
}

static int check_elem(validator *v, uint32_t e)
{
    return e < v->m->nelems ? 0 : FAIL(v, "unknown elem segment %u", e);
}

/* Checks every instruction's immediates need, whatever its stack effect. */
static int check_immediates(validator *v, const pvm_wasm_insn *in)
{
    const pvm_wasm_module *m = v->m;
    switch ((pvm_wasm_imm)pvm_wasm_ops[in->op].imm) {
    case PVM_WASM_IMM_MEM8: case PVM_WASM_IMM_MEM16: case PVM_WASM_IMM_MEM32:
    case PVM_WASM_IMM_MEM64: {
        unsigned natural = 0;
        while ((1u << natural) < pvm_wasm_ops[in->op].mem_bytes)
            natural++;
        if (check_memory(v))
            return -1;
        if (in->align > natural)
            return FAIL(v, "alignment must not be larger than natural: %s with alignment "
                        "2^%u", v->opname, in->align);
        return 0;
    }
    case PVM_WASM_IMM_MEM0: case PVM_WASM_IMM_MEM0_MEM0:
        return check_memory(v);
    case PVM_WASM_IMM_DATA_MEM0:
        return check_memory(v) || check_data(v, in->idx) ? -1 : 0;
    case PVM_WASM_IMM_DATA:
        return check_data(v, in->idx);
    case PVM_WASM_IMM_ELEM:
        return check_elem(v, in->idx);
    case PVM_WASM_IMM_TABLE:
        return check_table(v, in->idx);
    case PVM_WASM_IMM_ELEM_TABLE:
        if (check_table(v, in->idx2) || check_elem(v, in->idx))
            return -1;
        if (m->elems[in->idx].type != m->tables[in->idx2].elemtype)
            return FAIL(v, "type mismatch: table.init of %s elements into a table of %s",
                        tname(m->elems[in->idx].type), tname(m->tables[in->idx2].elemtype));
        return 0;
    case PVM_WASM_IMM_TABLE_TABLE:
        if (check_table(v, in->idx) || check_table(v, in->idx2))
            return -1;
        if (m->tables[in->idx].elemtype != m->tables[in->idx2].elemtype)
            return FAIL(v, "type mismatch: table.copy from a table of %s to one of %s",
                        tname(m->tables[in->idx2].elemtype), tname(m->tables[in->idx].elemtype));
        return 0;
    case PVM_WASM_IMM_FUNC:
        return in->idx < m->nfuncs ? 0 : FAIL(v, "unknown function %u", in->idx);
    case PVM_WASM_IMM_LOCAL:
        return in->idx < v->nlocals ? 0 : FAIL(v, "unknown local %u", in->idx);
    case PVM_WASM_IMM_GLOBAL:
        return in->idx < m->nglobals ? 0 : FAIL(v, "unknown global %u", in->idx);
    case PVM_WASM_IMM_CALL_INDIRECT:
        if (check_table(v, in->idx2))
            return -1;
        if (m->tables[in->idx2].elemtype != PVM_WASM_FUNCREF)
            return FAIL(v, "type mismatch: call_indirect through table %u of %s", in->idx2,
                        tname(m->tables[in->idx2].elemtype));
        return in->idx < m->ntypes ? 0 : FAIL(v, "unknown type %u", in->idx);
    case PVM_WASM_IMM_SELECT_T:
        return in->count == 1 ? 0 : FAIL(v, "invalid result arity: select with %u types",
                                         in->count);
    default:
        return 0;
    }
}

/* ---- instructions ------------------------------------------------------- */

static int record_block(validator *v, const pvm_wasm_insn *in, types params, types results)
{
    if (pvm_wasm_reserve((void **)&v->blocks, &v->cap_blocks, v->nblocks + 1, sizeof *v->blocks))
        return FAIL(v, "out of memory");
    v->blocks[v->nblocks] = (pvm_wasm_block){
        .op = (uint8_t)in->op, .pos = in->pos, .height = v->height,
        .nparams = params.n, .nresults = results.n,
        .params = params.t, .results = results.t,
    };
    return push_frame(v, in->op, params, results, v->nblocks++);
}

/* Pop values of types ts and push back what was found (spec: push_vals(
 * pop_vals(ts))): values from a polymorphic stack stay unknown.  Known values
 * are still in place above the height after popping; the unknown ones are
 * the deepest, and come back below them. */
static int check_and_keep(validator *v, types ts)
{
    uint32_t before = v->height;
    if (pop_all(v, ts))
        return -1;
    uint32_t after = v->height, known = before - after, unknown = ts.n - known;
    if (unknown == 0) { /* the values popped are still in place */
        v->height = before;
        return 0;
    }
    if (ts.n > PVM_WASM_MAX_STACK - after)
        return FAIL(v, "operand stack deeper than %u values (implementation limit)",
                    PVM_WASM_MAX_STACK);
    if (pvm_wasm_reserve((void **)&v->stack, &v->cap_stack, after + ts.n, 1))
        return FAIL(v, "out of memory");
    memmove(v->stack + after + unknown, v->stack + after, known);
    memset(v->stack + after, UNKNOWN, unknown);
    v->height = after + ts.n;
    if (v->height > v->max_height)
        v->max_height = v->height;
    return 0;
}

static int check_br_table(validator *v, const pvm_wasm_insn *in)
{
    types deflt = {0}, target = {0};
    if (pop(v, PVM_WASM_I32, NULL) || label(v, in->idx, &deflt))
        return -1;
    pvm_wasm_reader tr = v->r;
    tr.pos = in->vec;
    for (uint32_t i = 0; i < in->count; i++) {
        uint32_t l;
        if (pvm_wasm_read_u32(&tr, &l) || label(v, l, &target))
            return -1;
        if (target.n != deflt.n)
            return FAIL(v, "type mismatch: br_table target %u has %u values, the default "
                        "label %u has %u", l, target.n, in->idx, deflt.n);
        /* The check leaves the stack as it was, so each label needs it once. */
        frame *fr = &v->frames[v->depth - 1 - l];
        if (fr->checked == in->pos)
            continue;
        fr->checked = in->pos;
        if (check_and_keep(v, target))
            return -1;
    }
    if (pop_all(v, deflt))
        return -1;
    set_unreachable(v);
    return 0;
}

static int check_end(validator *v, const pvm_wasm_insn *in)
{
    frame fr = v->frames[v->depth - 1];
    if (pop_frame_results(v))
        return -1;
    if (fr.op == PVM_WASM_OP_IF) { /* no else: the params must pass as results */
        if (fr.params.n != fr.results.n ||
            (fr.params.n && memcmp(fr.params.t, fr.results.t, fr.params.n)))
            return FAIL(v, "type mismatch: if without else must have equal parameter "
                        "and result types");
    }
    if (fr.block != PVM_WASM_NONE)
        v->blocks[fr.block].end_pos = in->pos;
    v->depth--;
    return v->depth ? push_all(v, fr.results) : 0;
}

static int check_special(validator *v, const pvm_wasm_insn *in)
{
    const pvm_wasm_module *m = v->m;
    types params = {0}, results = {0}, lt = {0};
    uint8_t t, t1, t2;
    switch (in->op) {
    case PVM_WASM_OP_UNREACHABLE:
        set_unreachable(v);
        return 0;
    case PVM_WASM_OP_BLOCK:
    case PVM_WASM_OP_LOOP:
        if (block_type(v, in, &params, &results) || pop_all(v, params))
            return -1;
        return record_block(v, in, params, results);
    case PVM_WASM_OP_IF:
        if (block_type(v, in, &params, &results) || pop(v, PVM_WASM_I32, NULL) ||
            pop_all(v, params))
            return -1;
        return record_block(v, in, params, results);
    case PVM_WASM_OP_ELSE: {
        frame *fr = &v->frames[v->depth - 1];
        if (fr->op != PVM_WASM_OP_IF)
            return FAIL(v, "else without a matching if");
        if (pop_frame_results(v))
            return -1;
        fr->op = PVM_WASM_OP_ELSE;
        fr->unreachable = false;
        v->blocks[fr->block].else_pos = in->pos;
        return push_all(v, fr->params);
    }
    case PVM_WASM_OP_END:
        return check_end(v, in);
    case PVM_WASM_OP_BR:
        if (label(v, in->idx, &lt) || pop_all(v, lt))
            return -1;
        set_unreachable(v);
        return 0;
    case PVM_WASM_OP_BR_IF:
        if (label(v, in->idx, &lt) || pop(v, PVM_WASM_I32, NULL) || pop_all(v, lt))
            return -1;
        return push_all(v, lt);
    case PVM_WASM_OP_BR_TABLE:
        return check_br_table(v, in);
    case PVM_WASM_OP_RETURN:
        if (pop_all(v, v->frames[0].results))
            return -1;
        set_unreachable(v);
        return 0;
    case PVM_WASM_OP_CALL:
    case PVM_WASM_OP_CALL_INDIRECT: {
        const pvm_wasm_functype *ft = in->op == PVM_WASM_OP_CALL ? pvm_wasm_func_type(m, in->idx)
                                                                  : &m->types[in->idx];
        if (in->op == PVM_WASM_OP_CALL_INDIRECT && pop(v, PVM_WASM_I32, NULL))
            return -1;
        if (pop_all(v, (types){ft->params, ft->nparams}))
            return -1;
        return push_all(v, (types){ft->results, ft->nresults});
    }
    case PVM_WASM_OP_DROP:
        return pop(v, UNKNOWN, NULL);
    case PVM_WASM_OP_SELECT:
        if (pop(v, PVM_WASM_I32, NULL) || pop(v, UNKNOWN, &t1) || pop(v, UNKNOWN, &t2))
            return -1;
        if (!is_num(t1) || !is_num(t2))
            return FAIL(v, "type mismatch: select without a type needs numeric operands, "
                        "found %s", tname(is_num(t1) ? t2 : t1));
        if (t1 != t2 && t1 != UNKNOWN && t2 != UNKNOWN)
            return FAIL(v, "type mismatch: select of %s and %s", tname(t2), tname(t1));
        return push(v, t1 == UNKNOWN ? t2 : t1);
    case PVM_WASM_OP_SELECT_T:
        if (pop(v, PVM_WASM_I32, NULL) || pop(v, in->type, NULL) || pop(v, in->type, NULL))
            return -1;
        return push(v, in->type);
    case PVM_WASM_OP_LOCAL_GET:
        return push(v, v->locals[in->idx]);
    case PVM_WASM_OP_LOCAL_SET:
        return pop(v, v->locals[in->idx], NULL);
    case PVM_WASM_OP_LOCAL_TEE:
        return pop(v, v->locals[in->idx], NULL) || push(v, v->locals[in->idx]) ? -1 : 0;
    case PVM_WASM_OP_GLOBAL_GET:
        return push(v, m->globals[in->idx].type);
    case PVM_WASM_OP_GLOBAL_SET:
        if (!m->globals[in->idx].is_mutable)
            return FAIL(v, "global is immutable: global.set of global %u", in->idx);
        return pop(v, m->globals[in->idx].type, NULL);
    case PVM_WASM_OP_TABLE_GET:
        if (pop(v, PVM_WASM_I32, NULL))
            return -1;
        return push(v, m->tables[in->idx].elemtype);
    case PVM_WASM_OP_TABLE_SET:
        return pop(v, m->tables[in->idx].elemtype, NULL) || pop(v, PVM_WASM_I32, NULL) ? -1 : 0;
    case PVM_WASM_OP_TABLE_GROW:
        if (pop(v, PVM_WASM_I32, NULL) || pop(v, m->tables[in->idx].elemtype, NULL))
            return -1;
        return push(v, PVM_WASM_I32);
    case PVM_WASM_OP_TABLE_FILL:
        return pop(v, PVM_WASM_I32, NULL) || pop(v, m->tables[in->idx].elemtype, NULL) ||
                       pop(v, PVM_WASM_I32, NULL) ? -1 : 0;
    case PVM_WASM_OP_REF_NULL:
        return push(v, in->type);
    case PVM_WASM_OP_REF_IS_NULL:
        if (pop(v, UNKNOWN, &t))
            return -1;
        if (!is_ref(t))
            return FAIL(v, "type mismatch: ref.is_null expects a reference, found %s", tname(t));
        return push(v, PVM_WASM_I32);
    case PVM_WASM_OP_REF_FUNC:
        if (!m->funcs[in->idx].referenced)
            return FAIL(v, "undeclared function reference: function %u is not in an "
                        "element segment, an export or a global initializer", in->idx);
        return push(v, PVM_WASM_FUNCREF);
    }
    return FAIL(v, "internal error: %s has no typing rule", v->opname);
}

/* Stack effect from the opcode table. */
static int check_simple(validator *v, const pvm_wasm_op_info *info)
{
    for (int i = 2; i >= 0; i--)
        if (info->pop[i] != PVM_WASM_T_NONE && pop(v, info->pop[i], NULL))
            return -1;
    return info->push != PVM_WASM_T_NONE ? push(v, info->push) : 0;
}

/* ---- functions ---------------------------------------------------------- */

static int load_locals(validator *v, const pvm_wasm_func *f)
{
    const pvm_wasm_functype *ft = &v->m->types[f->type];
    uint32_t n = ft->nparams + f->nlocals; /* <= PVM_WASM_MAX_LOCALS (decoder) */
    if (pvm_wasm_reserve((void **)&v->locals, &v->cap_locals, n, 1))
        return FAIL(v, "out of memory");
    v->nlocals = n;
    if (n == 0)
        return 0;
    memcpy(v->locals, ft->params, ft->nparams);
    uint32_t k = ft->nparams;
    for (uint32_t i = 0; i < f->nruns; i++) {
        memset(v->locals + k, f->runs[i].type, f->runs[i].count);
        k += f->runs[i].count;
    }
    return 0;
}

static int validate_func(validator *v, pvm_wasm_func *f, uint32_t index)
{
    const pvm_wasm_functype *ft = &v->m->types[f->type];
    v->r.pos = f->body_pos;
    v->r.end = f->body_end;
    v->r.func = index;
    v->r.in_section = true;
    v->at = f->body_pos;
    v->opname = "the function";
    v->height = v->depth = v->max_height = v->max_depth = v->nblocks = 0;
    if (load_locals(v, f) ||
        push_frame(v, PVM_WASM_OP_END, (types){NULL, 0}, (types){ft->results, ft->nresults},
                   PVM_WASM_NONE))
        return -1;
    while (v->depth > 0) {
        pvm_wasm_check_common(v);
        if (v->r.pos >= v->r.end)
            return pvm_wasm_fail(&v->r, v->r.pos, "END opcode expected: the body ends "
                                 "inside %u open blocks", v->depth);
        pvm_wasm_insn in;
        if (pvm_wasm_insn_read(&v->r, &in))
            return -1;
        const pvm_wasm_op_info *info = &pvm_wasm_ops[in.op];
        v->at = in.pos;
        v->opname = info->text;
        if (check_immediates(v, &in))
            return -1;
        if (info->push == PVM_WASM_T_SPEC ? check_special(v, &in) : check_simple(v, info))
            return -1;
    }
    if (v->r.pos != v->r.end)
        return pvm_wasm_fail(&v->r, v->r.pos, "section size mismatch: %zu bytes after the "
                             "end of the function body", v->r.end - v->r.pos);
    f->max_stack = v->max_height;
    f->max_depth = v->max_depth;
    f->nblocks = v->nblocks;
    if (v->nblocks) {
        if (!(f->blocks = malloc(v->nblocks * sizeof *f->blocks)))
            return FAIL(v, "out of memory");
        memcpy(f->blocks, v->blocks, v->nblocks * sizeof *f->blocks);
    }
    return 0;
}

int pvm_wasm_validate_funcs(pvm_wasm_module *m, pvm_error *err)
{
    validator v = {.m = m, .r = pvm_wasm_reader_at(m->bytes, m->size, 0, m->size, err)};
    pvm_wasm_fast_ops(v.fast);
    int rc = 0;
    for (uint32_t i = m->nfunc_imports; i < m->nfuncs && rc == 0; i++)
        rc = validate_func(&v, &m->funcs[i], i);
    free(v.locals);
    free(v.stack);
    free(v.frames);
    free(v.blocks);
    return rc;
}
