/*
 * test_macro_ops.c - every macro op of the build against its parts: the
 * same registers, memory, stack, globals, table, heap size and trap as the
 * parts run one after the other (a float may be another quiet NaN where
 * the parts' is one, as Wasm allows), from random register states, immediates,
 * register choices (often the same register for several operands) and
 * memory.  One cmocka test per macro op of the table, so the test covers
 * whatever set the build was made with (registered in macro builds only);
 * and the fusion pass on code made of the parts writes that macro op.
 *
 * Each trial runs two programs: "M; trap exit" and the same with M's parts
 * in its place, both followed by two branch targets that branching parts
 * aim at (traps of other kinds), with a callee (function 1), host import
 * 0, and functions that trap where a random reference may lead.  The
 * program itself (function MAIN) is out of reach of small references and
 * never returns through a saved address, so no trial can loop.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fuse.h"
#include "insn.h"
#include "module.h"
#include "verify.h"
#include "vm.h"

enum { STACK = 4096, HEAP = 65536, TRIALS = 1500, NREGS_USED = 6, MAIN = 8 };

static uint64_t rng;

static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A register value that is often an interesting one: small, an address in
 * or near the heap or the stack, an extreme. */
static uint64_t random_value(void)
{
    switch (next_random() % 8) {
    case 0: return next_random() % 8;
    case 1: case 2: return STACK + next_random() % (HEAP + 16); /* the heap, and past it */
    case 3: return next_random() % STACK;                       /* the stack */
    case 4: return (uint64_t)-(int64_t)(next_random() % 4);
    case 5: return next_random() % 2 ? INT64_MIN : (uint64_t)INT32_MIN;
    default: return next_random();
    }
}

static uint64_t random_float_bits(void)
{
    static const uint64_t special[] = {0, 0x8000000000000000u, 0x7FF8000000000000u,
                                       0x3FF0000000000000u, 0x7F800000u, 0x3F800000u};
    if (next_random() % 4 == 0)
        return special[next_random() % (sizeof special / sizeof *special)];
    if (next_random() % 2)
        return (uint32_t)next_random(); /* an f32 */
    return next_random();
}

/* An immediate of kind k that the verifier accepts in the test module. */
static int64_t random_imm(pvm_imm_kind k)
{
    int64_t small = (int64_t)(next_random() % 33) - 16;
    switch (k) {
    case PVM_IMM_S8: return next_random() % 2 ? small : (int8_t)next_random();
    case PVM_IMM_S16: return next_random() % 2 ? small : (int16_t)next_random();
    case PVM_IMM_S32:
    case PVM_IMM_OFF32: return next_random() % 2 ? small : (int32_t)next_random();
    case PVM_IMM_I64: return next_random() % 2 ? small : (int64_t)next_random();
    case PVM_IMM_U32: return next_random() % 4 ? (int64_t)(next_random() % 40) : (uint32_t)next_random();
    case PVM_IMM_F32: return (int64_t)(uint32_t)random_float_bits();
    case PVM_IMM_F64: return (int64_t)random_float_bits();
    case PVM_IMM_FUNC: return 1;
    case PVM_IMM_TRAP: return 1 + (int64_t)(next_random() % (PVM_TRAP_COUNT - 1));
    case PVM_IMM_GLOBAL: return (int64_t)(next_random() % 2);
    case PVM_IMM_TABLE: return 1 + (int64_t)(next_random() % 3);
    default: return 0; /* HOST, TABLEIDX, TYPE: the module has one of each */
    }
}

/* The host import: deterministic work on registers. */
static pvm_trap_kind host_fn(pvm_vm *vm, void *ctx)
{
    (void)ctx;
    vm->x[0] = vm->x[0] * 3 + vm->x[1];
    return vm->x[2] % 5 == 0 ? PVM_TRAP_HOST_ERROR : PVM_TRAP_NONE;
}

/* The instructions of one trial: the macro op's parts with their operands. */
typedef struct trial {
    unsigned macro_op;
    pvm_insn parts[PVM_MAX_PARTS];
    unsigned nparts;
    int branch_to[3]; /* per target of the last part: 0 the return, 1 the trap */
    uint8_t table_entries[3];
} trial;

/* op, or at random one of its narrow forms (WIDE rows: the same operation
 * with a narrower immediate) that holds v: the fusion pass matches those
 * as op and must carry v into op's wider field. */
static unsigned some_form_of(unsigned op, int64_t v)
{
    unsigned forms[8], n = 0;
    forms[n++] = op;
    for (unsigned o = 0; o < PVM_OP_END && n < 8; o++)
        if (o != op && pvm_ops[o].name && pvm_op_wide(o) == op &&
            pvm_imm_fits((pvm_imm_kind)pvm_formats[pvm_ops[o].format].imm[0], v))
            forms[n++] = o;
    return forms[next_random() % n];
}

/* Random operands: each macro register a register of 0 .. NREGS_USED - 1
 * (so that several are often the same), each immediate random; a part
 * with narrow forms is often written as one of them. */
static void make_trial(unsigned op, trial *t)
{
    const pvm_macro_info *info = pvm_ops[op].macro;
    const pvm_format_info *fmt = &pvm_formats[pvm_ops[op].format];
    uint8_t reg[PVM_MAX_REGS];
    int64_t imm[PVM_MAX_IMMS];
    for (unsigned r = 0; r < fmt->nregs; r++)
        reg[r] = (uint8_t)(next_random() % NREGS_USED);
    for (unsigned i = 0; i < fmt->nimms; i++)
        imm[i] = random_imm((pvm_imm_kind)fmt->imm[i]);
    memset(t, 0, sizeof *t);
    t->macro_op = op;
    t->nparts = info->nparts;
    for (unsigned k = 0; k < info->nparts; k++) {
        pvm_insn *p = &t->parts[k];
        const pvm_format_info *pf = &pvm_formats[pvm_ops[info->part[k].op].format];
        p->op = info->part[k].op;
        for (unsigned r = 0; r < pf->nregs; r++)
            p->reg[r] = reg[info->part[k].reg[r]];
        for (unsigned i = 0; i < pf->nimms; i++)
            p->imms[i] = imm[info->part[k].imm[i]];
        if (pf->nimms == 1)
            p->op = (uint16_t)some_form_of(p->op, p->imms[0]);
    }
    for (int e = 0; e < 3; e++)
        t->branch_to[e] = (int)(next_random() % 2);
}

/* Offsets of the body and of the code after it: the fall-through exit,
 * the two branch targets. */
typedef struct layout {
    uint32_t body, after, target[2];
} layout;

/* Encode `body; trap exit; target0: trap interrupted; target1: trap
 * unreachable` with the body's branches aimed at the targets; the body is
 * the macro instruction (fused) or the parts. */
static void encode_function(const trial *t, int fused, pvm_buf *out, layout *lay)
{
    pvm_insn insns[PVM_MAX_PARTS];
    unsigned n = fused ? 1 : t->nparts;
    if (fused) {
        /* What the fusion pass writes: the macro op with its parts' operands. */
        const pvm_macro_info *info = pvm_ops[t->macro_op].macro;
        memset(&insns[0], 0, sizeof insns[0]);
        insns[0].op = (uint16_t)t->macro_op;
        for (unsigned k = 0; k < info->nparts; k++) {
            const pvm_format_info *pf = &pvm_formats[pvm_ops[t->parts[k].op].format];
            for (unsigned r = 0; r < pf->nregs; r++)
                insns[0].reg[info->part[k].reg[r]] = t->parts[k].reg[r];
            for (unsigned i = 0; i < pf->nimms; i++)
                insns[0].imms[info->part[k].imm[i]] = t->parts[k].imms[i];
        }
    } else {
        memcpy(insns, t->parts, n * sizeof *insns);
    }
    /* Sizes first (branch offsets have fixed widths), then the bytes. */
    uint32_t at[PVM_MAX_PARTS + 1];
    at[0] = 0;
    for (unsigned i = 0; i < n; i++) {
        const pvm_format_info *fmt = pvm_insn_format(&insns[i]);
        uint32_t len = pvm_ops[insns[i].op].length;
        for (unsigned k = 0; k < fmt->nimms; k++)
            if (fmt->imm[k] == PVM_IMM_TABLE)
                len += 4 * (uint32_t)insns[i].imms[k];
        at[i + 1] = at[i] + len;
    }
    uint32_t trap_len = pvm_ops[PVM_OP_trap].length;
    lay->body = 0;
    lay->after = at[n];
    lay->target[0] = lay->after + trap_len;
    lay->target[1] = lay->target[0] + trap_len;
    uint8_t entries[4 * 3];
    for (unsigned i = 0; i < n; i++) {
        pvm_insn in = insns[i];
        const pvm_format_info *fmt = pvm_insn_format(&in);
        for (unsigned k = 0; k < fmt->nimms; k++) {
            if (fmt->imm[k] == PVM_IMM_REL32)
                in.imms[k] = (int64_t)lay->target[t->branch_to[0]] - (int64_t)at[i];
            if (fmt->imm[k] == PVM_IMM_TABLE) {
                for (int64_t e = 0; e < in.imms[k]; e++)
                    pvm_wr32(entries + 4 * e,
                             (uint32_t)((int64_t)lay->target[t->branch_to[e]] - (int64_t)at[i]));
                in.table = entries;
            }
        }
        if (pvm_encode(out, &in) == 0)
            fail_msg("%s does not encode", pvm_ops[in.op].name);
    }
    pvm_encode(out, &(pvm_insn){.op = PVM_OP_trap, .imm = PVM_TRAP_EXIT});
    pvm_encode(out, &(pvm_insn){.op = PVM_OP_trap, .imm = PVM_TRAP_INTERRUPTED});
    pvm_encode(out, &(pvm_insn){.op = PVM_OP_trap, .imm = PVM_TRAP_UNREACHABLE});
    assert_false(out->failed);
}

static pvm_module *make_module(const trial *t, int fused, layout *lay)
{
    pvm_module *m = pvm_module_new();
    assert_non_null(m);
    m->heap_min = HEAP;
    m->heap_max = 2 * HEAP;
    m->nglobals = 2;
    m->ntables = 1;
    pvm_error err;
    assert_int_equal(pvm_module_add_type(m, "", "", &err), 0);
    assert_int_equal(pvm_module_add_import(m, "host", &err), 0);
    /* Functions 0 .. MAIN - 1: the callee (1), traps (where a small
     * reference leads); then the program. */
    const uint8_t callee[] = {PVM_OP_ret}, stub[] = {PVM_OP_trap, PVM_TRAP_BAD_CALL};
    for (unsigned f = 0; f < MAIN; f++)
        assert_int_equal(pvm_module_add_function(m, f == 1 ? "callee" : "stub", "", "",
                                                 f == 1 ? callee : stub,
                                                 f == 1 ? sizeof callee : sizeof stub, &err),
                         (int)f);
    pvm_buf code = {0};
    encode_function(t, fused, &code, lay);
    assert_int_equal(pvm_module_add_function(m, "main", "", "", code.data, code.len, &err), MAIN);
    pvm_buf_free(&code);
    if (pvm_verify_module(m, &err) != 0)
        fail_msg("%s (%s): %s", pvm_ops[t->macro_op].name, fused ? "fused" : "parts", err.msg);
    return m;
}

/* The state both programs start from. */
typedef struct start_state {
    uint64_t x[PVM_NUM_XREGS], f[PVM_NUM_FREGS], globals[2], table[4];
    uint8_t heap[HEAP];
} start_state;

static void random_state(start_state *s)
{
    for (unsigned r = 0; r < PVM_NUM_XREGS; r++)
        s->x[r] = random_value();
    for (unsigned r = 0; r < PVM_NUM_FREGS; r++)
        s->f[r] = random_float_bits();
    for (unsigned g = 0; g < 2; g++)
        s->globals[g] = random_value();
    for (unsigned e = 0; e < 4; e++)
        s->table[e] = next_random() % 3 == 0 ? 0 : next_random() % 2 ? PVM_REF_FUNC(1) : random_value();
    for (size_t i = 0; i < HEAP; i += 8) {
        uint64_t v = next_random();
        memcpy(s->heap + i, &v, 8);
    }
}

static pvm_vm *start(const pvm_module *m, const start_state *s)
{
    pvm_error err;
    pvm_vm *vm = pvm_vm_new(m, &(pvm_vm_config){.stack_size = STACK}, &err);
    if (!vm)
        fail_msg("pvm_vm_new: %s", err.msg);
    pvm_vm_bind_host(vm, "host", host_fn, NULL);
    memcpy(vm->x, s->x, sizeof s->x);
    for (unsigned r = 0; r < PVM_NUM_FREGS; r++)
        vm->f[r].bits = s->f[r];
    for (unsigned g = 0; g < 2; g++)
        vm->globals[g]->value = s->globals[g];
    pvm_table *table = pvm_table_new(4, 8, 0, &err); /* may grow: table_grow */
    assert_non_null(table);
    memcpy(table->elems, s->table, sizeof s->table);
    assert_int_equal(pvm_vm_bind_table(vm, 0, table), 0);
    pvm_table_release(table);
    memcpy(vm->memory->bytes, s->heap, HEAP);
    return vm;
}

/* Wasm lets an arithmetic op whose input is a NaN return any quiet NaN,
 * and C compilers use that: a + b may be compiled as b + a, and x86 then
 * propagates the other operand's payload and sign.  A composed handler may
 * be compiled so where its part's own handler is not, so a value may differ
 * from its parts' where both are quiet NaNs of one width - and nowhere
 * else.  Registers hold an f32 in their low half with the high half
 * equal. */
static bool is_quiet_nan32(uint32_t v) { return (v & 0x7fc00000u) == 0x7fc00000u; }
static bool is_quiet_nan64(uint64_t v)
{
    return (v & UINT64_C(0x7ff8000000000000)) == UINT64_C(0x7ff8000000000000);
}

static bool same_but_nans(uint64_t a, uint64_t b)
{
    if (a == b || (is_quiet_nan64(a) && is_quiet_nan64(b)))
        return true;
    return a >> 32 == b >> 32 && is_quiet_nan32((uint32_t)a) && is_quiet_nan32((uint32_t)b);
}

static uint64_t load_le(const uint8_t *p, unsigned width)
{
    uint64_t v = 0;
    for (unsigned i = width; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

/* Memory: every byte equal but inside a 4- or 8-byte span that holds a
 * quiet NaN of that width in both (a stored float). */
static bool memory_same_but_nans(const uint8_t *a, const uint8_t *b, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (a[i] == b[i]) {
            i++;
            continue;
        }
        size_t end = 0; /* the furthest end of a NaN span over byte i */
        for (unsigned width = 4; width <= 8; width += 4)
            for (size_t s = i >= width - 1 ? i - (width - 1) : 0; s <= i && s + width <= n; s++) {
                uint64_t va = load_le(a + s, width), vb = load_le(b + s, width);
                bool nans = width == 4 ? is_quiet_nan32((uint32_t)va) && is_quiet_nan32((uint32_t)vb)
                                       : is_quiet_nan64(va) && is_quiet_nan64(vb);
                if (nans && s + width > end)
                    end = s + width;
            }
        if (end == 0)
            return false;
        i = end;
    }
    return true;
}

/* The two VMs after their runs: every piece of state equal (floats up to
 * the NaN Wasm lets arithmetic choose). */
static void compare(const trial *t, const pvm_vm *a, pvm_trap_kind ka, const pvm_vm *b,
                    pvm_trap_kind kb, const layout *la, const layout *lb)
{
    const char *name = pvm_ops[t->macro_op].name;
    if (ka != kb)
        fail_msg("%s: trap %s, its parts %s", name, pvm_trap_name(ka), pvm_trap_name(kb));
    /* A trap inside the macro op is reported at the macro instruction; one
     * elsewhere at the same instruction of the code around it. */
    if (ka != PVM_TRAP_NONE && a->trap_func == b->trap_func && a->trap_func == MAIN) {
        uint32_t at = b->trap_offset, want = at;
        if (at >= lb->body && at < lb->after)
            want = la->body;
        else if (at >= lb->after)
            want = at - lb->after + la->after;
        if (a->trap_offset != want)
            fail_msg("%s: trap %s reported at offset %u, not %u", name, pvm_trap_name(ka),
                     a->trap_offset, want);
    } else if (ka != PVM_TRAP_NONE && a->trap_func != b->trap_func) {
        fail_msg("%s: trap %s in function %u, its parts in %u", name, pvm_trap_name(ka),
                 a->trap_func, b->trap_func);
    }
    for (unsigned r = 0; r < PVM_NUM_XREGS; r++)
        if (!same_but_nans(a->x[r], b->x[r]))
            fail_msg("%s: x%u = 0x%" PRIx64 ", its parts 0x%" PRIx64, name, r, a->x[r], b->x[r]);
    for (unsigned r = 0; r < PVM_NUM_FREGS; r++)
        if (!same_but_nans(a->f[r].bits, b->f[r].bits))
            fail_msg("%s: f%u = 0x%" PRIx64 ", its parts 0x%" PRIx64, name, r, a->f[r].bits,
                     b->f[r].bits);
    if (a->sp != b->sp || a->fp != b->fp)
        fail_msg("%s: sp, fp differ", name);
    if (a->memory->size != b->memory->size ||
        !memory_same_but_nans(a->memory->bytes, b->memory->bytes, a->memory->size))
        fail_msg("%s: the heap differs", name);
    if (!memory_same_but_nans(a->stack, b->stack, STACK))
        fail_msg("%s: the stack differs", name);
    for (unsigned g = 0; g < 2; g++)
        if (!same_but_nans(a->globals[g]->value, b->globals[g]->value))
            fail_msg("%s: global %u differs", name, g);
    if (a->tables[0]->size != b->tables[0]->size ||
        memcmp(a->tables[0]->elems, b->tables[0]->elems, a->tables[0]->size * 8) != 0)
        fail_msg("%s: the table differs", name);
}

static void macro_op_does_its_parts_work(void **state)
{
    unsigned op = (unsigned)(uintptr_t)*state;
    rng = 0x9E3779B97F4A7C15u ^ op;
    static start_state s;
    for (int n = 0; n < TRIALS; n++) {
        trial t;
        layout la, lb;
        make_trial(op, &t);
        pvm_module *ma = make_module(&t, 1, &la), *mb = make_module(&t, 0, &lb);
        random_state(&s);
        pvm_vm *a = start(ma, &s), *b = start(mb, &s);
        pvm_trap_kind ka = pvm_vm_call(a, MAIN), kb = pvm_vm_call(b, MAIN);
        compare(&t, a, ka, b, kb, &la, &lb);
        /* The fusion pass turns the parts into this macro op (or one that
         * covers them as well); where it is this one, its bytes are those
         * of the macro instruction run above. */
        pvm_error err;
        pvm_fuse_stats st;
        assert_int_equal(pvm_fuse_module(mb, &st, &err), 0);
        assert_true(st.insns_after < st.insns_before);
        const pvm_function *fa = &ma->funcs[MAIN], *fb = &mb->funcs[MAIN];
        pvm_insn first;
        if (!pvm_decode(mb->code, mb->code_size, fb->offset, &first) &&
            first.op == t.macro_op &&
            (fa->size != fb->size || memcmp(ma->code + fa->offset, mb->code + fb->offset, fa->size)))
            fail_msg("%s: the fusion pass wrote other bytes than the macro instruction's",
                     pvm_ops[op].name);
        pvm_vm_free(a);
        pvm_vm_free(b);
        pvm_module_free(ma);
        pvm_module_free(mb);
    }
}

/* The comparison forgives a NaN's payload and sign, nothing else. */
static void only_quiet_nans_of_one_width_may_differ(void **state)
{
    (void)state;
    assert_true(same_but_nans(0x7fc00000u, 0xffe8d8eeu));          /* two quiet f32 NaNs */
    assert_true(same_but_nans(UINT64_C(0x7ff8000000000001), UINT64_C(0xfff8000000000000)));
    assert_false(same_but_nans(0x7fc00000u, 0x7f800000u));         /* a NaN, infinity */
    assert_false(same_but_nans(0x7fa00000u, 0x7fc00000u));         /* a signalling NaN */
    assert_false(same_but_nans(UINT64_C(0x17fc00000), 0x7fc00000u)); /* high halves differ */
    assert_false(same_but_nans(0x3f800000u, 0x40000000u));
    uint8_t a[12] = {1, 0, 0, 0xc0, 0x7f, 9, 9, 9, 9, 9, 9, 9}, b[12];
    memcpy(b, a, sizeof b);
    b[1] = 0x12, b[4] = 0xff; /* another quiet NaN at a + 1 */
    assert_true(memory_same_but_nans(a, b, sizeof a));
    b[5] = 8; /* and a byte beside it */
    assert_false(memory_same_but_nans(a, b, sizeof a));
    memcpy(b, a, sizeof b);
    b[1] = 0x12, b[4] = 0xff;
    b[11] = 0; /* a byte at the end, in no NaN */
    assert_false(memory_same_but_nans(a, b, sizeof a));
}

int main(void)
{
    struct CMUnitTest tests[PVM_OP_END + 1];
    size_t n = 0;
    tests[n++] = (struct CMUnitTest){"only_quiet_nans_of_one_width_may_differ",
                                     only_quiet_nans_of_one_width_may_differ, NULL, NULL, NULL};
    for (unsigned op = 0; op < PVM_OP_END; op++)
        if (pvm_ops[op].name && pvm_ops[op].macro)
            tests[n++] = (struct CMUnitTest){pvm_ops[op].name, macro_op_does_its_parts_work, NULL,
                                             NULL, (void *)(uintptr_t)op};
    if (n == 1) {
        fprintf(stderr, "test_macro_ops: this build has no macro ops\n");
        return 1;
    }
    return _cmocka_run_group_tests("macro_ops", tests, n, NULL, NULL);
}
