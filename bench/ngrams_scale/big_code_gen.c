/*
 * big_code_gen.c - synthetic translator-shaped bytecode (see big_code_gen.h).
 *
 * Register conventions follow the Wasm translator: x31 holds the heap
 * base, x30 the address of the access in progress, x29 the frame of
 * spilled values, x16..x28 the locals (callee-saved: pushed and popped),
 * x0..x15 temporaries and call arguments/results.  Branches are emitted
 * to labels and patched when the function is complete.
 */
#include "big_code_gen.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "bench_util.h"
#include "insn.h"
#include "isa.h"
#include "verify.h"

enum {
    HEAP_BASE = 31, ADDR = 30, FRAME = 29, LOCAL0 = 16, MAX_LOCALS = 13,
    MAX_DEPTH = 3,  /* nesting of control structures */
    MAX_CASES = 16, /* br_table entries */
    NIMPORTS = 7,
};

typedef struct fixup {
    uint32_t field; /* where the 32-bit offset goes */
    uint32_t insn;  /* start of the branching instruction */
    uint32_t label;
} fixup;

typedef struct gen {
    bench_rng rng;
    pvm_buf code;     /* the function being generated */
    uint32_t *labels; /* label -> offset (UINT32_MAX until bound) */
    size_t nlabels, labels_cap;
    fixup *fix;
    size_t nfix, fix_cap;
    uint32_t *offs;   /* this function's instructions */
    double *freqs;
    size_t n, cap;
    double freq;      /* executions per call of the code being emitted */
    uint32_t self;    /* index of the function */
    unsigned nlocals;
    int frame;        /* has a spill frame in x29 */
    uint32_t ret_label;
    char err[256];
} gen;

static int fail(gen *g, const char *fmt, ...)
{
    if (!g->err[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(g->err, sizeof g->err, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static uint32_t below(gen *g, uint32_t n) { return bench_rng_below(&g->rng, n); }
static double unit(gen *g) { return bench_rng_unit(&g->rng); }
static unsigned tmp(gen *g) { return below(g, 16); }
static unsigned local(gen *g) { return LOCAL0 + below(g, g->nlocals); }
static unsigned any_reg(gen *g) { return below(g, 2) ? tmp(g) : local(g); }

/* Index into w[0..n) drawn in proportion to the weights. */
static unsigned pick(gen *g, const unsigned *w, unsigned n)
{
    unsigned total = 0;
    for (unsigned i = 0; i < n; i++)
        total += w[i];
    unsigned r = below(g, total);
    for (unsigned i = 0; i < n; i++) {
        if (r < w[i])
            return i;
        r -= w[i];
    }
    return n - 1;
}
#define PICK(g, table) (table)[pick((g), table##_w, sizeof table##_w / sizeof table##_w[0])]

/* ---- emitting ------------------------------------------------------------ */

static void note_insn(gen *g)
{
    size_t offs_cap = g->cap; /* g->cap grows with freqs, once offs did */
    if (BASE_GROW(g->offs, offs_cap, g->n + 1, 256) != 0 ||
        BASE_GROW(g->freqs, g->cap, g->n + 1, 256) != 0) {
        fail(g, "out of memory");
        return;
    }
    g->offs[g->n] = (uint32_t)g->code.len;
    g->freqs[g->n++] = g->freq;
}

static void encode(gen *g, const pvm_insn *in)
{
    if (g->err[0])
        return;
    note_insn(g);
    if (pvm_encode(&g->code, in) == 0)
        fail(g, "cannot encode a %s", pvm_ops[in->op].name);
    if (g->code.failed)
        fail(g, "out of memory");
}

static void emit(gen *g, unsigned op, unsigned a, unsigned b, unsigned c, unsigned d, int64_t imm)
{
    pvm_insn in = {.op = (uint16_t)op, .reg = {(uint8_t)a, (uint8_t)b, (uint8_t)c, (uint8_t)d},
                   .imm = imm};
    encode(g, &in);
}

static uint32_t new_label(gen *g)
{
    if (BASE_GROW(g->labels, g->labels_cap, g->nlabels + 1, 64) != 0) {
        fail(g, "out of memory");
        return 0; /* never bound or patched: generation stops */
    }
    g->labels[g->nlabels] = UINT32_MAX;
    return (uint32_t)g->nlabels++;
}

static void bind(gen *g, uint32_t label)
{
    if (!g->err[0])
        g->labels[label] = (uint32_t)g->code.len;
}

static void add_fixup(gen *g, uint32_t field, uint32_t insn, uint32_t label)
{
    if (g->err[0])
        return;
    if (BASE_GROW(g->fix, g->fix_cap, g->nfix + 1, 64) != 0) {
        fail(g, "out of memory");
        return;
    }
    g->fix[g->nfix++] = (fixup){field, insn, label};
}

/* jump, br_if, br_if_not: the 32-bit offset is the instruction's last field. */
static void branch(gen *g, unsigned op, unsigned reg, uint32_t label)
{
    uint32_t at = (uint32_t)g->code.len;
    emit(g, op, reg, 0, 0, 0, 0);
    add_fixup(g, (uint32_t)g->code.len - 4, at, label);
}

static void br_table(gen *g, unsigned reg, const uint32_t *labels, uint32_t n)
{
    static const uint8_t zeros[4 * MAX_CASES];
    uint32_t at = (uint32_t)g->code.len;
    pvm_insn in = {.op = PVM_OP_br_table, .reg = {(uint8_t)reg}, .imm = n, .table = zeros};
    encode(g, &in);
    for (uint32_t i = 0; i < n; i++)
        add_fixup(g, (uint32_t)g->code.len - 4 * (n - i), at, labels[i]);
}

static void patch(gen *g)
{
    for (size_t i = 0; i < g->nfix && !g->err[0]; i++) {
        uint32_t target = g->labels[g->fix[i].label];
        if (target == UINT32_MAX)
            fail(g, "unbound label");
        else
            pvm_wr32(g->code.data + g->fix[i].field, target - g->fix[i].insn);
    }
}

/* ---- straight-line statements ----------------------------------------- */

static const unsigned loads[] = {PVM_OP_xload32_u, PVM_OP_xload64, PVM_OP_xload8_u,
                                 PVM_OP_xload16_u, PVM_OP_xload8_s32, PVM_OP_xload32_s64};
static const unsigned loads_w[] = {50, 22, 15, 5, 5, 3};
static const unsigned load_size[] = {4, 8, 1, 2, 1, 4};
static const unsigned stores[] = {PVM_OP_xstore32, PVM_OP_xstore64, PVM_OP_xstore8,
                                  PVM_OP_xstore16};
static const unsigned stores_w[] = {50, 30, 15, 5};
static const unsigned store_size[] = {4, 8, 1, 2};
static const unsigned ariths[] = {PVM_OP_xadd32, PVM_OP_xadd64, PVM_OP_xsub32, PVM_OP_xband32,
                                  PVM_OP_xbor32, PVM_OP_xbxor32, PVM_OP_xshl32, PVM_OP_xshr32_u,
                                  PVM_OP_xmul32, PVM_OP_xmul64, PVM_OP_xrotl32, PVM_OP_xshr64_u,
                                  PVM_OP_xbxor64, PVM_OP_xshr32_s, PVM_OP_xdiv32_u};
static const unsigned ariths_w[] = {30, 6, 8, 10, 6, 5, 6, 6, 3, 2, 2, 2, 2, 1, 1};
static const unsigned compares[] = {PVM_OP_xlt32_s, PVM_OP_xlt32_u, PVM_OP_xeq32, PVM_OP_xne32,
                                    PVM_OP_xle32_s, PVM_OP_xle32_u, PVM_OP_xlt64_s};
static const unsigned compares_w[] = {20, 25, 20, 20, 8, 8, 3};
static const unsigned fops[] = {PVM_OP_fadd64, PVM_OP_fmul64, PVM_OP_fsub64, PVM_OP_fdiv64};
static const unsigned fops_w[] = {40, 40, 15, 5};

/* A small constant the way compiled code has them: mostly tiny. */
static int64_t small_const(gen *g)
{
    static const int64_t common[] = {0, 1, 2, 4, 8, 16, -1, 3, 24, 32, 12, 64};
    return below(g, 4) ? common[below(g, 12)] : (int64_t)below(g, 256) - 128;
}

/* A constant into register r, in the narrowest form the translator uses. */
static void constant(gen *g, unsigned r)
{
    unsigned k = below(g, 100);
    if (k < 70)
        emit(g, PVM_OP_xconst8, r, 0, 0, 0, small_const(g));
    else if (k < 90)
        emit(g, PVM_OP_xconst16, r, 0, 0, 0, 128 + below(g, 4000));
    else if (k < 97)
        emit(g, PVM_OP_xconst32, r, 0, 0, 0, 40000 + below(g, 1u << 30));
    else
        emit(g, PVM_OP_xconst64, r, 0, 0, 0, 4294967295);
}

/* bcheck32 a, off+size; xadd64 x30, x31, a: the address of a heap access. */
static uint32_t heap_address(gen *g, unsigned size)
{
    uint32_t off = below(g, 3) ? 4 * below(g, 64) : 0;
    unsigned a = any_reg(g);
    emit(g, PVM_OP_bcheck32, a, 0, 0, 0, off + size);
    emit(g, PVM_OP_xadd64, ADDR, HEAP_BASE, a, 0, 0);
    return off;
}

static void heap_load(gen *g)
{
    unsigned i = pick(g, loads_w, sizeof loads_w / sizeof loads_w[0]);
    uint32_t off = heap_address(g, load_size[i]);
    emit(g, loads[i], any_reg(g), ADDR, 0, 0, off);
}

static void heap_store(gen *g)
{
    unsigned i = pick(g, stores_w, sizeof stores_w / sizeof stores_w[0]);
    if (below(g, 3) == 0)
        constant(g, tmp(g));
    uint32_t off = heap_address(g, store_size[i]);
    emit(g, stores[i], ADDR, any_reg(g), 0, 0, off);
}

static void const_arith(gen *g)
{
    unsigned t = tmp(g);
    constant(g, t);
    unsigned op = PICK(g, ariths), d = any_reg(g), a = any_reg(g);
    emit(g, op, d, a, t, 0, 0);
}

static void arith(gen *g)
{
    unsigned op = PICK(g, ariths), d = any_reg(g), a = any_reg(g), b = any_reg(g);
    emit(g, op, d, a, b, 0, 0);
}

static void move(gen *g)
{
    unsigned d = any_reg(g), s = any_reg(g);
    emit(g, PVM_OP_xmov, d, s, 0, 0, 0);
}

static void spill(gen *g)
{
    if (!g->frame) {
        unsigned d = local(g), s = tmp(g);
        emit(g, PVM_OP_xmov, d, s, 0, 0, 0);
        return;
    }
    int64_t off = 8 * below(g, 16);
    if (below(g, 2))
        emit(g, PVM_OP_xload64, ADDR, FRAME, 0, 0, off);
    else
        emit(g, PVM_OP_xstore64, FRAME, any_reg(g), 0, 0, off);
}

static void float_op(gen *g)
{
    uint32_t off = heap_address(g, 8);
    unsigned f = below(g, 8);
    emit(g, PVM_OP_fload64, f, ADDR, 0, 0, off);
    for (uint32_t k = 1 + below(g, 3); k-- > 0;) {
        unsigned op = PICK(g, fops), d = below(g, 8), b = below(g, 8);
        emit(g, op, d, f, b, 0, 0);
    }
    if (below(g, 2))
        emit(g, PVM_OP_fstore64, ADDR, f, 0, 0, off);
}

static void select_op(gen *g)
{
    unsigned t = tmp(g);
    unsigned op = PICK(g, compares), a = any_reg(g), b = any_reg(g);
    emit(g, op, t, a, b, 0, 0);
    unsigned d = any_reg(g), x = any_reg(g), y = any_reg(g);
    emit(g, PVM_OP_xselect, d, t, x, y, 0);
}

/* Shadow stack frame: sp in global #0 moved by a constant. */
static void shadow_stack(gen *g)
{
    unsigned l = local(g);
    emit(g, PVM_OP_xglobal_get, 0, 0, 0, 0, 0);
    emit(g, PVM_OP_xconst16, 1, 0, 0, 0, 16 * (1 + below(g, 32)));
    emit(g, PVM_OP_xsub32, l, 0, 1, 0, 0);
    emit(g, PVM_OP_xglobal_set, l, 0, 0, 0, 0);
}

/* Arguments into x0.., each a constant, a local or an address in the frame. */
static void call_args(gen *g)
{
    for (unsigned r = 0, n = below(g, 4); r < n; r++) {
        unsigned k = below(g, 3);
        if (k == 0) {
            emit(g, PVM_OP_xconst8, r, 0, 0, 0, small_const(g));
        } else if (k == 1) {
            emit(g, PVM_OP_xmov, r, local(g), 0, 0, 0);
        } else {
            emit(g, PVM_OP_xconst16, r + 1, 0, 0, 0, 16 * below(g, 64));
            emit(g, PVM_OP_xadd32, r, local(g), r + 1, 0, 0);
        }
    }
}

static void call(gen *g)
{
    if (g->self == 0) {
        const_arith(g);
        return;
    }
    call_args(g);
    /* Skewed towards the first functions: a few callees are popular. */
    double u = unit(g);
    emit(g, PVM_OP_call, 0, 0, 0, 0, (int64_t)(g->self * u * u * u));
    if (below(g, 2))
        emit(g, PVM_OP_xmov, local(g), 0, 0, 0, 0);
}

static void call_host(gen *g)
{
    call_args(g);
    emit(g, PVM_OP_call_host, 0, 0, 0, 0, below(g, NIMPORTS));
}

/* The translator's call_indirect: bounds check on table #0, load the
 * reference, check its signature, call. */
static void call_indirect(gen *g)
{
    uint32_t ok = new_label(g);
    emit(g, PVM_OP_table_size, 15, 0, 0, 0, 0);
    emit(g, PVM_OP_xlt32_u, 15, 3, 15, 0, 0);
    branch(g, PVM_OP_br_if, 15, ok);
    emit(g, PVM_OP_trap, 0, 0, 0, 0, PVM_TRAP_UNDEFINED_ELEMENT);
    bind(g, ok);
    emit(g, PVM_OP_table_get, 3, 3, 0, 0, 0);
    emit(g, PVM_OP_sigcheck, 3, 0, 0, 0, 0);
    call_args(g);
    emit(g, PVM_OP_call_indirect, 3, 0, 0, 0, 0);
}

static void simple_statement(gen *g)
{
    static const unsigned w[] = {24, 12, 16, 18, 8, 7, 6, 1, 4, 1, 1};
    switch (pick(g, w, sizeof w / sizeof w[0])) {
    case 0: heap_load(g); break;
    case 1: heap_store(g); break;
    case 2: const_arith(g); break;
    case 3: arith(g); break;
    case 4: move(g); break;
    case 5: spill(g); break;
    case 6: call(g); break;
    case 7: call_host(g); break;
    case 8: float_op(g); break;
    case 9: select_op(g); break;
    default: shadow_stack(g); break;
    }
}

/* ---- control structures ------------------------------------------------ */

static void statements(gen *g, int depth, unsigned n);

/* A condition into a temporary: compare (after a constant, sometimes). */
static unsigned condition(gen *g)
{
    unsigned t = tmp(g), b = any_reg(g);
    if (below(g, 3) == 0)
        constant(g, b = tmp(g));
    unsigned op = PICK(g, compares), a = any_reg(g);
    emit(g, op, t, a, b, 0, 0);
    return t;
}

static void if_else(gen *g, int depth)
{
    double freq = g->freq, p = 0.1 + 0.8 * unit(g);
    uint32_t skip = new_label(g);
    unsigned op = below(g, 2) ? PVM_OP_br_if_not : PVM_OP_br_if;
    branch(g, op, condition(g), skip);
    g->freq = freq * p;
    statements(g, depth + 1, 1 + below(g, 5));
    if (below(g, 5) < 2) {
        uint32_t end = new_label(g);
        branch(g, PVM_OP_jump, 0, end);
        bind(g, skip);
        g->freq = freq * (1 - p);
        statements(g, depth + 1, 1 + below(g, 4));
        bind(g, end);
    } else {
        bind(g, skip);
    }
    g->freq = freq;
}

/* Counted (test at the bottom) or while (test at the top, jump back). */
static void loop(gen *g, int depth)
{
    double freq = g->freq, trips = 1 + exp(unit(g) * log(64.0));
    uint32_t head = new_label(g);
    g->freq = freq * trips;
    bind(g, head);
    if (below(g, 5) < 3) {
        unsigned i = local(g), t = tmp(g);
        statements(g, depth + 1, 1 + below(g, 6));
        unsigned step = below(g, 2) ? local(g) : tmp(g);
        emit(g, PVM_OP_xadd32, i, i, step, 0, 0);
        emit(g, PVM_OP_xne32, t, i, any_reg(g), 0, 0);
        branch(g, PVM_OP_br_if, t, head);
    } else {
        uint32_t exit_label = new_label(g);
        branch(g, PVM_OP_br_if, condition(g), exit_label);
        statements(g, depth + 1, 1 + below(g, 6));
        branch(g, PVM_OP_jump, 0, head);
        bind(g, exit_label);
    }
    g->freq = freq;
}

static void switch_cases(gen *g, int depth)
{
    uint32_t n = 3 + below(g, MAX_CASES - 3), cases[MAX_CASES];
    uint32_t end = new_label(g);
    double freq = g->freq;
    for (uint32_t i = 0; i < n; i++)
        cases[i] = new_label(g);
    unsigned sel = any_reg(g);
    br_table(g, sel, cases, n);
    for (uint32_t i = 0; i < n; i++) {
        bind(g, cases[i]);
        g->freq = freq / n;
        statements(g, depth + 1, 1 + below(g, 3));
        if (i + 1 < n)
            branch(g, PVM_OP_jump, 0, end);
    }
    bind(g, end);
    g->freq = freq;
}

static void statement(gen *g, int depth)
{
    if (depth >= MAX_DEPTH || unit(g) >= 0.18) {
        simple_statement(g);
        return;
    }
    static const unsigned w[] = {50, 30, 5, 10, 5};
    switch (pick(g, w, sizeof w / sizeof w[0])) {
    case 0: if_else(g, depth); break;
    case 1: loop(g, depth); break;
    case 2: switch_cases(g, depth); break;
    case 3: branch(g, PVM_OP_br_if, condition(g), g->ret_label); break;
    default: call_indirect(g); break;
    }
}

static void statements(gen *g, int depth, unsigned n)
{
    while (n-- > 0 && !g->err[0])
        statement(g, depth);
}

/* ---- functions ------------------------------------------------------------ */

/* Bytes of a function: log-normal, median about 370, mean about 700. */
static size_t function_size(gen *g)
{
    double u1 = unit(g), u2 = unit(g);
    double z = sqrt(-2 * log(1 - u1)) * cos(2 * 3.141592653589793 * u2);
    double s = exp(5.9 + 1.1 * z);
    return s < 24 ? 24 : s > 60000 ? 60000 : (size_t)s;
}

static void function_body(gen *g, size_t size)
{
    g->code.len = 0;
    g->n = g->nlabels = g->nfix = 0;
    g->freq = 1;
    g->nlocals = 1 + below(g, MAX_LOCALS);
    g->frame = below(g, 10) < 3;
    uint32_t stack = 8 * (2 + below(g, 30));
    if (g->frame)
        emit(g, PVM_OP_push_frame, 0, 0, 0, 0, 0);
    for (unsigned r = 0; r < g->nlocals; r++)
        emit(g, PVM_OP_xpush, LOCAL0 + r, 0, 0, 0, 0);
    if (g->frame) {
        emit(g, PVM_OP_xpush, FRAME, 0, 0, 0, 0);
        emit(g, PVM_OP_stack_alloc, 0, 0, 0, 0, stack);
        emit(g, PVM_OP_xget_sp, FRAME, 0, 0, 0, 0);
    }
    for (unsigned r = 0, n = below(g, 4); r < n && r < g->nlocals; r++)
        emit(g, PVM_OP_xmov, LOCAL0 + r, r, 0, 0, 0);
    g->ret_label = new_label(g);
    while (g->code.len < size && !g->err[0])
        statement(g, 0);
    bind(g, g->ret_label);
    g->freq = 1;
    if (g->frame) {
        emit(g, PVM_OP_stack_free, 0, 0, 0, 0, stack);
        emit(g, PVM_OP_xpop, FRAME, 0, 0, 0, 0);
    }
    for (unsigned r = g->nlocals; r-- > 0;)
        emit(g, PVM_OP_xpop, LOCAL0 + r, 0, 0, 0, 0);
    if (g->frame)
        emit(g, PVM_OP_pop_frame, 0, 0, 0, 0, 0);
    emit(g, PVM_OP_ret, 0, 0, 0, 0, 0);
    patch(g);
}

/* Append g's instructions (function f) to c's arrays. */
static int keep_insns(big_code *c, gen *g, uint32_t base)
{
    size_t n = c->ninsns + g->n;
    uint32_t *o = realloc(c->insn_off, n * sizeof *o);
    if (o)
        c->insn_off = o;
    double *f = o ? realloc(c->insn_freq, n * sizeof *f) : NULL;
    if (!f)
        return -1;
    c->insn_freq = f;
    for (size_t i = 0; i < g->n; i++) {
        c->insn_off[c->ninsns + i] = base + g->offs[i];
        c->insn_freq[c->ninsns + i] = g->freqs[i];
    }
    c->ninsns = n;
    return 0;
}

static int module_tables(pvm_module *m, pvm_error *e)
{
    static const char *const imports[NIMPORTS] = {"fd_write", "fd_read", "fd_close", "fd_seek",
                                                  "fd_fdstat_get", "args_get", "proc_exit"};
    for (int i = 0; i < NIMPORTS; i++)
        if (pvm_module_add_import(m, imports[i], e) < 0)
            return -1;
    m->nglobals = 1; /* the shadow stack pointer */
    m->ntables = 1;  /* call_indirect's table */
    return pvm_module_add_type(m, "ii", "i", e) < 0 ? -1 : 0;
}

int big_code_generate(big_code *c, size_t bytes, uint64_t seed, char *err, size_t errcap)
{
    memset(c, 0, sizeof *c);
    gen g = {.rng = bench_rng_seed(seed)};
    pvm_error e = {{0}};
    int rc = -1;
    size_t first_cap = 0;
    if (!(c->module = pvm_module_new()) || module_tables(c->module, &e) != 0) {
        snprintf(err, errcap, "%s", c->module ? e.msg : "out of memory");
        goto done;
    }
    while (c->module->code_size < bytes || c->module->nfuncs == 0) {
        g.self = c->module->nfuncs;
        function_body(&g, function_size(&g));
        if (g.err[0]) {
            snprintf(err, errcap, "function %u: %s", (unsigned)g.self, g.err);
            goto done;
        }
        char name[32];
        snprintf(name, sizeof name, "fn%05u", (unsigned)g.self);
        uint32_t base = (uint32_t)c->module->code_size;
        if (pvm_module_add_function(c->module, name, "", "", g.code.data, g.code.len, &e) < 0) {
            snprintf(err, errcap, "%s", e.msg);
            goto done;
        }
        if (BASE_GROW(c->first, first_cap, (size_t)g.self + 2, 0) != 0)
            goto oom;
        c->first[g.self] = (uint32_t)c->ninsns;
        if (keep_insns(c, &g, base) != 0)
            goto oom;
        c->first[g.self + 1] = (uint32_t)c->ninsns;
    }
    if (pvm_verify_module(c->module, &e) != 0) {
        snprintf(err, errcap, "the generated code does not verify: %s", e.msg);
        goto done;
    }
    rc = 0;
    goto done;
oom:
    snprintf(err, errcap, "out of memory generating code");
done:
    pvm_buf_free(&g.code);
    free(g.labels);
    free(g.fix);
    free(g.offs);
    free(g.freqs);
    if (rc != 0)
        big_code_free(c);
    return rc;
}

void big_code_free(big_code *c)
{
    pvm_module_free(c->module);
    free(c->insn_off);
    free(c->insn_freq);
    free(c->first);
    memset(c, 0, sizeof *c);
}
