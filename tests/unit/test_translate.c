/*
 * test_translate.c - what the Wasm-to-bytecode translator emits: locals
 * read in place and written by the instruction that computes them, saved
 * around a call or by the prologue, and saved and zeroed only where their
 * values live (webs; a function too large for them keeps one per local),
 * hot ones left over by the callee-saved registers saved around calls;
 * leaf functions without frames, frames only around the calls of a
 * function that makes few on a path, loops free of moves and constants
 * (loaded where a loop is entered when the function calls), a constant
 * loaded once per block, memory accesses as one Wasm heap access each,
 * branches on i32.eqz inverted, i32.wrap_i64 free where nothing reads the
 * upper half; imports as trampolines, one host import
 * per module and name, so that the translation saves as .pbc and
 * re-assembles; names from the name section, made unique; and every test
 * module passing the verifier.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "asm.h"
#include "disasm.h"
#include "insn.h"
#include "test_wasm_instance_util.h"
#include "translate.h"
#include "wasm_builder.h"

/* ---- helpers ------------------------------------------------------------- */

static pvm_module *translate(const char *name)
{
    pvm_wasm_module *wm = wt_decode(name);
    pvm_error err;
    pvm_module *m = pvm_wasm_translate(wm, NULL, &err);
    if (!m)
        fail_msg("%s: %s", name, err.msg);
    pvm_wasm_module_free(wm);
    return m;
}

/* The instructions of function `func` (at most cap). */
static size_t insns(const pvm_module *m, const char *func, pvm_insn *out, size_t cap)
{
    int f = pvm_module_find_function(m, func);
    assert_true(f >= 0);
    size_t n = 0;
    for (size_t off = m->funcs[f].offset; off < m->funcs[f].offset + m->funcs[f].size;) {
        assert_true(n < cap);
        assert_null(pvm_decode(m->code, m->code_size, off, &out[n]));
        off += out[n++].length;
    }
    return n;
}

static int count(const pvm_insn *in, size_t n, unsigned op)
{
    int k = 0;
    for (size_t i = 0; i < n; i++)
        k += in[i].op == op;
    return k;
}

/* ---- quality --------------------------------------------------------------- */

/* (param i32 i32) local.get 0 local.get 1 i32.add: one add on the argument
 * registers, straight into the result register. */
static void leaf_function_computes_in_argument_registers(void **state)
{
    (void)state;
    pvm_module *m = translate("quality");
    pvm_insn in[64];
    size_t n = insns(m, "add", in, 64);
    assert_int_equal(n, 2);
    assert_int_equal(in[0].op, PVM_OP_xadd32);
    assert_int_equal(in[0].reg[0], 0);
    assert_int_equal(in[0].reg[1], 0);
    assert_int_equal(in[0].reg[2], 1);
    assert_int_equal(in[1].op, PVM_OP_ret);
    pvm_module_free(m);
}

/* local.get a; local.get b; i32.add; local.set c: exactly one xadd32.
 * a and b live across the function's only call: their homes are
 * caller-saved registers, pushed before the call and popped after it, and
 * the prologue saves no register and pushes no frame: the frame is pushed
 * around the call.  c, which no call lies across, is in a caller-saved
 * register too. */
static void add_of_locals_is_one_instruction(void **state)
{
    (void)state;
    pvm_module *m = translate("quality");
    pvm_insn in[64];
    size_t n = insns(m, "locals", in, 64), call = n;
    assert_int_equal(count(in, n, PVM_OP_xadd32), 1);
    for (size_t i = 0; i < n; i++)
        if (in[i].op == PVM_OP_call)
            call = i;
    assert_true(call >= 3 && call + 3 < n);
    assert_int_equal(in[call - 1].op, PVM_OP_push_frame);
    assert_int_equal(in[call + 1].op, PVM_OP_pop_frame);
    assert_int_equal(count(in, n, PVM_OP_push_frame), 1);
    assert_int_equal(count(in, n, PVM_OP_pop_frame), 1);
    for (size_t i = 0; i < n; i++) {
        if (in[i].op == PVM_OP_xpush || in[i].op == PVM_OP_xpop)
            assert_true(in[i].reg[0] < 15);
        if (in[i].op != PVM_OP_xadd32)
            continue;
        for (int k = 0; k < 3; k++)
            assert_true(in[i].reg[k] >= 1 && in[i].reg[k] < 15);
        /* a and b pushed right before the call, popped right after */
        unsigned a = in[i].reg[1], b = in[i].reg[2];
        assert_int_equal(in[call - 3].op, PVM_OP_xpush);
        assert_int_equal(in[call - 2].op, PVM_OP_xpush);
        assert_int_equal(in[call + 2].op, PVM_OP_xpop);
        assert_int_equal(in[call + 3].op, PVM_OP_xpop);
        assert_true((in[call - 3].reg[0] == a && in[call - 2].reg[0] == b) ||
                    (in[call - 3].reg[0] == b && in[call - 2].reg[0] == a));
        assert_int_equal(in[call + 2].reg[0], in[call - 2].reg[0]);
        assert_int_equal(in[call + 3].reg[0], in[call - 3].reg[0]);
    }
    pvm_module_free(m);
    pvm_wasm_store *s = pvm_wasm_store_new(0);
    pvm_wasm_instance *inst = wt_instance(s, "quality");
    assert_int_equal(wt_value(inst, "locals", WT_ARGS(wt_i32(4))), 7);
    pvm_wasm_store_free(s);
}

/* Locals across two calls that always run are in callee-saved registers,
 * saved once by the prologue with the frame, not around each call. */
static void locals_across_two_calls_are_callee_saved(void **state)
{
    (void)state;
    pvm_module *m = translate("quality");
    pvm_insn in[64];
    size_t n = insns(m, "two_calls", in, 64);
    assert_int_equal(in[0].op, PVM_OP_push_frame);
    assert_int_equal(count(in, n, PVM_OP_push_frame), 1);
    assert_int_equal(count(in, n, PVM_OP_call), 2);
    assert_int_equal(count(in, n, PVM_OP_xpush), 2);
    for (size_t i = 0; i < n; i++)
        if (in[i].op == PVM_OP_xpush)
            assert_true(in[i].reg[0] >= 16 && in[i].reg[0] < 30);
    pvm_module_free(m);
    pvm_wasm_store *s = pvm_wasm_store_new(0);
    pvm_wasm_instance *inst = wt_instance(s, "quality");
    assert_int_equal(wt_value(inst, "two_calls", WT_ARGS(wt_i32(5))), 20);
    pvm_wasm_store_free(s);
}

/* A function that makes at most one call on any path, none in a loop,
 * pushes no frame on entry: a frame around each call, the parameter,
 * which the call's path reads after it, saved around it in its own
 * register.  So does one whose two calls are off a path without any
 * (two calls on every path keep the frame on entry: two_calls, above);
 * a call in a loop keeps it too. */
static void frames_are_where_the_calls_are(void **state)
{
    (void)state;
    pvm_module *m = translate("quality");
    pvm_insn in[64];
    size_t n = insns(m, "one_call_a_path", in, 64);
    assert_int_equal(count(in, n, PVM_OP_call), 2);
    assert_int_equal(count(in, n, PVM_OP_push_frame), 2);
    assert_int_equal(count(in, n, PVM_OP_pop_frame), 2);
    for (size_t i = 0; i < n; i++) {
        if (in[i].op == PVM_OP_call) {
            assert_true(i >= 2 && i + 2 < n);
            assert_int_equal(in[i - 1].op, PVM_OP_push_frame);
            assert_int_equal(in[i + 1].op, PVM_OP_pop_frame);
            assert_int_equal(in[i - 2].op, PVM_OP_xpush);
            assert_int_equal(in[i - 2].reg[0], 0);
            assert_int_equal(in[i + 2].op, PVM_OP_xpop);
            assert_int_equal(in[i + 2].reg[0], 0);
        }
    }
    n = insns(m, "calls_off_a_fast_path", in, 64);
    assert_true(in[0].op != PVM_OP_push_frame);
    assert_int_equal(count(in, n, PVM_OP_call), 2);
    assert_int_equal(count(in, n, PVM_OP_push_frame), 2);
    n = insns(m, "call_in_loop", in, 64);
    assert_int_equal(in[0].op, PVM_OP_push_frame);
    assert_int_equal(count(in, n, PVM_OP_push_frame), 1);
    pvm_module_free(m);
    pvm_wasm_store *s = pvm_wasm_store_new(0);
    pvm_wasm_instance *inst = wt_instance(s, "quality");
    assert_int_equal(wt_value(inst, "one_call_a_path", WT_ARGS(wt_i32(11))), 12);
    assert_int_equal(wt_value(inst, "one_call_a_path", WT_ARGS(wt_i32(5))), 6);
    assert_int_equal(wt_value(inst, "one_call_a_path", WT_ARGS(wt_i32(-3))), 0xfffffffe); /* -2 */
    assert_int_equal(wt_value(inst, "call_in_loop", WT_ARGS(wt_i32(4))), 0);
    assert_int_equal(wt_value(inst, "calls_off_a_fast_path", WT_ARGS(wt_i32(11))), 12);
    assert_int_equal(wt_value(inst, "calls_off_a_fast_path", WT_ARGS(wt_i32(1))), 2);
    pvm_wasm_store_free(s);
}

/* Locals are homed by the values they hold (webs), live only where a
 * later read may see them: t holds two values, neither of which lives
 * across the call between them, so only the one register holding n's
 * value after its write is saved around the call (the prologue saves
 * none); and x, written on every path before it is read, is never zeroed
 * (its only constants are the two written). */
static void a_local_is_saved_and_zeroed_only_where_its_value_lives(void **state)
{
    (void)state;
    pvm_module *m = translate("quality");
    pvm_insn in[64];
    size_t n = insns(m, "two_values", in, 64);
    assert_int_equal(count(in, n, PVM_OP_call), 1);
    assert_int_equal(count(in, n, PVM_OP_xpush), 1);
    assert_int_equal(count(in, n, PVM_OP_xpop), 1);
    n = insns(m, "both_arms", in, 64);
    assert_int_equal(count(in, n, PVM_OP_xconst8), 2);
    for (size_t i = 0; i < n; i++)
        if (in[i].op == PVM_OP_xconst8)
            assert_int_not_equal(in[i].imm, 0);
    pvm_module_free(m);
    pvm_wasm_store *s = pvm_wasm_store_new(0);
    pvm_wasm_instance *inst = wt_instance(s, "quality");
    assert_int_equal(wt_value(inst, "two_values", WT_ARGS(wt_i32(2))), 41); /* (2*3+2)*5+1 */
    assert_int_equal(wt_value(inst, "both_arms", WT_ARGS(wt_i32(1))), 5);
    assert_int_equal(wt_value(inst, "both_arms", WT_ARGS(wt_i32(0))), 7);
    pvm_wasm_store_free(s);
}

/* A function whose liveness would need too much memory (4201 locals in
 * 1000 nested blocks: more than MAX_CELLS entries of join tables) keeps
 * one web per local, live through the whole body, and computes what it
 * says: its parameter plus one, plus a local read before any write (0). */
static void a_function_too_large_for_webs_keeps_one_per_local(void **state)
{
    (void)state;
    enum { DEPTH = 1000 };
    static char code[4 * DEPTH + 64];
    size_t n = 0;
    memcpy(code + n, "\x01\xe8\x20\x7f", 4); /* 4200 locals of i32 */
    n += 4;
    memcpy(code + n, "\x20\x00\x21\xe8\x20", 5); /* local.set 4200 (local.get 0) */
    n += 5;
    for (int k = 0; k < DEPTH; k++) {
        memcpy(code + n, "\x02\x40", 2); /* block */
        n += 2;
    }
    /* local.set 4200 (i32.add (local.get 4200) (i32.const 1)) */
    memcpy(code + n, "\x20\xe8\x20\x41\x01\x6a\x21\xe8\x20", 9);
    n += 9;
    memset(code + n, 0x0b, DEPTH); /* end */
    n += DEPTH;
    memcpy(code + n, "\x20\xe8\x20\x20\x11\x6a\x0b", 7); /* + local 17; end */
    n += 7;
    static wb w;
    wb_func_module(&w, WB_EXPORT, T("\x60\x01\x7f\x01\x7f"), code, n);
    pvm_wasm_store *s = pvm_wasm_store_new(0);
    pvm_wasm_status status;
    pvm_error err;
    pvm_wasm_instance *inst = pvm_wasm_instantiate(s, w.b, w.n, &status, &err);
    if (!inst)
        fail_msg("%s", err.msg);
    assert_int_equal(wt_value(inst, "f", WT_ARGS(wt_i32(5))), 6);
    pvm_wasm_store_free(s);
}

/* The loop of in[0..n): *head, the first instruction of its body, and
 * *back, the backward jump that ends it. */
static void loop_bounds(const pvm_insn *in, size_t n, size_t *head, size_t *back)
{
    size_t at[64], pos = 0;
    assert_true(n <= 64);
    for (size_t i = 0; i < n; i++) {
        at[i] = pos;
        pos += in[i].length;
    }
    *head = *back = 0;
    for (size_t i = 0; i < n; i++)
        if (in[i].op == PVM_OP_jump && in[i].imm < 0) {
            *back = i;
            for (*head = 0; at[*head] != at[i] + (size_t)in[i].imm; ++*head)
                ;
        }
    assert_true(*back > *head);
}

/* The counting loop's body (from its head to the backward jump) has no
 * moves and no constants: i += 1 adds an immediate. */
static void loop_body_has_no_moves_or_constants(void **state)
{
    (void)state;
    pvm_module *m = translate("quality");
    pvm_insn in[64];
    size_t n = insns(m, "sum", in, 64), head, back;
    loop_bounds(in, n, &head, &back);
    for (size_t i = head; i <= back; i++) {
        assert_int_not_equal(in[i].op, PVM_OP_xmov);
        assert_int_not_equal(in[i].op, PVM_OP_xconst8);
    }
    assert_int_equal(back - head + 1, 5); /* compare, exit, add, add, jump */
    pvm_module_free(m);
}

/* In a function that calls, a loop that does not keeps its constants (too
 * wide for an immediate) in caller-saved registers, loaded once before its
 * head, after the call: none is loaded in the loop, none is saved around
 * the call. */
static void a_loop_without_calls_keeps_its_constants_in_registers(void **state)
{
    (void)state;
    const int64_t seven = INT64_C(7) << 32, one = INT64_C(1) << 32;
    pvm_module *m = translate("quality");
    pvm_insn in[64];
    size_t n = insns(m, "loop_after_call", in, 64), head, back;
    loop_bounds(in, n, &head, &back);
    int before[2] = {0, 0}; /* loads of the two constants before the head */
    for (size_t i = 0; i < n; i++) {
        if (in[i].op != PVM_OP_xconst64)
            continue;
        assert_true(i < head);
        if (in[i].imm == seven || in[i].imm == one) {
            before[in[i].imm == one]++;
            assert_true(in[i].reg[0] < 15); /* caller-saved, not scratch */
        }
    }
    assert_int_equal(before[0], 1);
    assert_int_equal(before[1], 1);
    size_t first_const = n;
    for (size_t i = n; i-- > 0;)
        if (in[i].op == PVM_OP_xconst64 && (in[i].imm == seven || in[i].imm == one))
            first_const = i;
    for (size_t i = first_const; i < n; i++)
        assert_true(in[i].op != PVM_OP_xpush && in[i].op != PVM_OP_xpop);
    pvm_module_free(m);
    pvm_wasm_store *s = pvm_wasm_store_new(0);
    pvm_wasm_instance *inst = wt_instance(s, "quality");
    assert_int_equal(wt_value(inst, "loop_after_call", WT_ARGS(wt_i64(5 * (uint64_t)one))),
                     5 * (uint64_t)seven);
    assert_int_equal(wt_value(inst, "loop_after_call", WT_ARGS(wt_i64(0))), 0);
    pvm_wasm_store_free(s);
}

/* A constant used twice in one block is materialised once, into a free
 * register it stays in; each of the two blocks after it loads it again
 * (a label forgets what registers hold).  And the result is right. */
static void a_constant_is_loaded_once_per_block(void **state)
{
    (void)state;
    pvm_module *m = translate("quality");
    pvm_insn in[64];
    size_t n = insns(m, "same_const", in, 64);
    assert_int_equal(count(in, n, PVM_OP_xconst16), 3);
    pvm_module_free(m);
    pvm_wasm_store *s = pvm_wasm_store_new(0);
    pvm_wasm_instance *inst = wt_instance(s, "quality");
    /* r = 400 + 300; then 1000 - 700 = 300 if c; the result 1000 - r */
    assert_int_equal(wt_value(inst, "same_const", WT_ARGS(wt_i32(600), wt_i32(700), wt_i32(1))), 700);
    assert_int_equal(wt_value(inst, "same_const", WT_ARGS(wt_i32(600), wt_i32(700), wt_i32(0))), 300);
    pvm_wasm_store_free(s);
}

/* An integer constant operand is the immediate of one instruction, as the
 * second operand or, of a commutative or mirrored operator, the first; a
 * subtraction adds the negated constant and x <= c is x < c + 1.  None is
 * materialised, and the results are right. */
static void integer_constants_are_immediates(void **state)
{
    (void)state;
    pvm_module *m = translate("quality");
    pvm_insn in[64];
    size_t n = insns(m, "imm_ops", in, 64);
    for (size_t i = 0; i < n; i++) /* no constant load of any width */
        assert_int_not_equal(pvm_op_wide(in[i].op), PVM_OP_xconst64);
    int adds = 0, gt = 0, lt = 0;
    for (size_t i = 0; i < n; i++) {
        if (in[i].op == PVM_OP_xadd32_imm) {
            assert_true(in[i].imm == 5 || in[i].imm == -3);
            adds++;
        }
        gt += in[i].op == PVM_OP_xgt32_s_imm && in[i].imm == 10;
        lt += in[i].op == PVM_OP_xlt32_u_imm && in[i].imm == 8;
    }
    assert_int_equal(adds, 2);
    assert_int_equal(gt, 1);
    assert_int_equal(lt, 1);
    pvm_module_free(m);
    pvm_wasm_store *s = pvm_wasm_store_new(0);
    pvm_wasm_instance *inst = wt_instance(s, "quality");
    /* 2x + 2 + (x > 10) + (x <= 7) */
    assert_int_equal(wt_value(inst, "imm_ops", WT_ARGS(wt_i32(3))), 9);
    assert_int_equal(wt_value(inst, "imm_ops", WT_ARGS(wt_i32(8))), 18);
    assert_int_equal(wt_value(inst, "imm_ops", WT_ARGS(wt_i32(11))), 25);
    pvm_wasm_store_free(s);
}

/* A constant no immediate can stand for keeps its register: a 64-bit one
 * wider than an s32, and c of x <= c (x >= c) at the largest (smallest)
 * value, where c + 1 (c - 1) would wrap. */
static void constants_without_an_immediate_form_use_a_register(void **state)
{
    (void)state;
    pvm_module *m = translate("quality");
    pvm_insn in[64];
    size_t n = insns(m, "imm_edges", in, 64);
    assert_int_equal(count(in, n, PVM_OP_xadd64_imm), 0);
    int wide = 0;
    for (size_t i = 0; i < n; i++)
        wide += in[i].op == PVM_OP_xconst64 && in[i].imm == INT64_C(1) << 32;
    assert_int_equal(wide, 1);
    assert_int_equal(count(in, n, PVM_OP_xle32_u), 1);
    assert_int_equal(count(in, n, PVM_OP_xle32_s), 1);
    pvm_module_free(m);
    pvm_wasm_store *s = pvm_wasm_store_new(0);
    pvm_wasm_instance *inst = wt_instance(s, "quality");
    /* x + 2^32 + (u32(x) <= 0xffffffff) + (s32(x) >= INT32_MIN) */
    assert_int_equal(wt_value(inst, "imm_edges", WT_ARGS(wt_i64(5))), (UINT64_C(1) << 32) + 7);
    assert_int_equal(wt_value(inst, "imm_edges", WT_ARGS(wt_i64(UINT64_MAX))),
                     (UINT64_C(1) << 32) + 1);
    pvm_wasm_store_free(s);
}

/* i32.wrap_i64 is an xzext32 only where the upper half could be read:
 * none for the high half of a shift right by 32, none before i32 adds
 * (which read the low halves), one before a return and one before
 * i32.eqz. */
static void wrap_zero_extends_only_where_the_upper_half_is_read(void **state)
{
    (void)state;
    pvm_module *m = translate("quality");
    pvm_insn in[64];
    static const struct {
        const char *func;
        int zext;
    } want[] = {{"wrap_high", 0}, {"wrap_add", 0}, {"wrap", 1}, {"wrap_eqz", 1}};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        size_t n = insns(m, want[k].func, in, 64);
        assert_int_equal(count(in, n, PVM_OP_xzext32), want[k].zext);
    }
    pvm_module_free(m);
    pvm_wasm_store *s = pvm_wasm_store_new(0);
    pvm_wasm_instance *inst = wt_instance(s, "quality");
    uint64_t v = UINT64_C(0x8765432100000010), w = UINT64_C(0xffffffff00000003);
    assert_int_equal(wt_value(inst, "wrap_high", WT_ARGS(wt_i64(v))), 0x87654321);
    assert_int_equal(wt_value(inst, "wrap_add", WT_ARGS(wt_i64(v), wt_i64(w))), 15);
    assert_int_equal(wt_value(inst, "wrap_add", WT_ARGS(wt_i64(1), wt_i64(2))), 0xffffffff);
    assert_int_equal(wt_value(inst, "wrap", WT_ARGS(wt_i64(v))), 0x10);
    assert_int_equal(wt_value(inst, "wrap_eqz", WT_ARGS(wt_i64(UINT64_C(1) << 32))), 1);
    assert_int_equal(wt_value(inst, "wrap_eqz", WT_ARGS(wt_i64(v))), 0);
    pvm_wasm_store_free(s);
}

/* Eighteen locals read and written in a loop that makes a call: the
 * callee-saved registers hold fourteen, and the others take caller-saved
 * registers pushed around the call rather than frame slots; only n, read
 * once an iteration, lives in the frame (stored once, loaded once an
 * iteration). */
static void hot_locals_left_over_are_saved_around_calls(void **state)
{
    (void)state;
    pvm_module *m = translate("quality");
    pvm_insn in[256];
    size_t n = insns(m, "hot_across_call", in, 256), call = n;
    for (size_t i = 0; i < n; i++)
        if (in[i].op == PVM_OP_call)
            call = i;
    assert_true(call < n);
    int around = 0;
    for (size_t i = call; i-- > 0 && in[i].op == PVM_OP_xpush && in[i].reg[0] < 15;)
        around++;
    assert_true(around >= 4);
    assert_int_equal(count(in, n, PVM_OP_xload64) + count(in, n, PVM_OP_xstore64), 2);
    pvm_module_free(m);
    pvm_wasm_store *s = pvm_wasm_store_new(0);
    pvm_wasm_instance *inst = wt_instance(s, "quality");
    assert_int_equal(wt_value(inst, "hot_across_call", WT_ARGS(wt_i32(10))), 18 * 45);
    pvm_wasm_store_free(s);
}

static bool is_frame_load(const pvm_insn *in)
{
    return in->op == PVM_OP_xload64 && in->reg[1] == 29;
}

/* A loop without calls loads the frame slots it reads once, where it is
 * entered, and holds them in registers; a write goes to both. */
static void a_loop_without_calls_holds_its_frame_slots_in_registers(void **state)
{
    (void)state;
    pvm_module *m = translate("quality");
    pvm_insn in[512];
    size_t n = insns(m, "loop_reads_frame", in, 512);
    /* The last backward branch closes the loop $sum; its target opens it. */
    size_t back = n, head = n;
    int64_t at = 0, head_at = 0;
    for (size_t i = 0; i < n; at += in[i++].length)
        if (in[i].op == PVM_OP_br_if && in[i].imm < 0) {
            back = i;
            head_at = at + in[i].imm;
        }
    assert_true(back < n);
    at = 0;
    for (size_t i = 0; i < n && head == n; at += in[i++].length)
        if (at == head_at)
            head = i;
    assert_true(head < back);
    int loaded_at_entry = 0;
    for (size_t i = head; i-- > 0 && is_frame_load(&in[i]);)
        loaded_at_entry++;
    assert_true(loaded_at_entry >= 2); /* the plan left several in the frame */
    int loads_inside = 0, stores_inside = 0;
    for (size_t i = head; i < back; i++) {
        loads_inside += is_frame_load(&in[i]);
        stores_inside += in[i].op == PVM_OP_xstore64 && in[i].reg[0] == 29;
    }
    assert_int_equal(loads_inside, 0);
    assert_true(stores_inside <= 1); /* $v0, if it lives in the frame */
    pvm_module_free(m);
    pvm_wasm_store *s = pvm_wasm_store_new(0);
    pvm_wasm_instance *inst = wt_instance(s, "quality");
    for (int32_t k = 1; k <= 40; k += 13)
        assert_int_equal(wt_value(inst, "loop_reads_frame", WT_ARGS(wt_i32(k))),
                         k * (16 * k + 120) + k * (k - 1) / 2 + k + 15);
    pvm_wasm_store_free(s);
}

/* A leaf's parameters' registers home other locals once the parameters
 * are dead: nothing is saved. */
static void a_leaf_homes_locals_where_its_parameters_were(void **state)
{
    (void)state;
    pvm_module *m = translate("quality");
    pvm_insn in[128];
    size_t n = insns(m, "leaf_reuses_params", in, 128);
    assert_int_equal(count(in, n, PVM_OP_xpush), 0);
    assert_int_equal(count(in, n, PVM_OP_push_frame), 0);
    pvm_module_free(m);
    pvm_wasm_store *s = pvm_wasm_store_new(0);
    pvm_wasm_instance *inst = wt_instance(s, "quality");
    /* a = 3, b = 7, c = 11, d = 15, e = 21: 21 + 3 + 7 + 11 + 15 */
    assert_int_equal(wt_value(inst, "leaf_reuses_params",
                              WT_ARGS(wt_i32(1), wt_i32(2), wt_i32(3), wt_i32(4), wt_i32(5),
                                      wt_i32(6), wt_i32(7), wt_i32(8))),
                     57);
    pvm_wasm_store_free(s);
}

/* i64.and with 0xffffffff, on either side, is one xzext32. */
static void and_with_the_low_half_mask_is_a_zero_extension(void **state)
{
    (void)state;
    pvm_module *m = translate("quality");
    pvm_insn in[64];
    size_t n = insns(m, "low_half", in, 64);
    assert_int_equal(n, 2);
    assert_int_equal(in[0].op, PVM_OP_xzext32);
    pvm_module_free(m);
    pvm_wasm_store *s = pvm_wasm_store_new(0);
    pvm_wasm_instance *inst = wt_instance(s, "quality");
    assert_int_equal(wt_value(inst, "low_half", WT_ARGS(wt_i64(UINT64_C(0x8765432112345678)))),
                     0x12345678);
    pvm_wasm_store_free(s);
}

static void branch_on_eqz_is_inverted(void **state)
{
    (void)state;
    pvm_module *m = translate("quality");
    pvm_insn in[64];
    size_t n = insns(m, "eqz", in, 64);
    assert_int_equal(count(in, n, PVM_OP_xeqz32), 0);
    assert_int_equal(count(in, n, PVM_OP_br_if_not), 1);
    pvm_module_free(m);
}

/* i32.load offset=4: one Wasm heap access with the address register and
 * the offset (its check against the heap is the bounds check: no bcheck32,
 * no add of the heap base). */
static void memory_access_is_one_heap_load(void **state)
{
    (void)state;
    pvm_module *m = translate("quality");
    pvm_insn in[64];
    size_t n = insns(m, "load", in, 64);
    assert_int_equal(n, 2);
    assert_int_equal(in[0].op, PVM_OP_xload32_u_g32);
    assert_int_equal(in[0].reg[1], 0);
    assert_int_equal(in[0].imm, 4);
    assert_int_equal(in[1].op, PVM_OP_ret);
    pvm_module_free(m);
}

/* ---- the module ---------------------------------------------------------------- */

static void every_test_module_translates_and_verifies(void **state)
{
    (void)state;
    const char *names[] = {"quality", "features", "traps", "link_provider", "link_user",
                           "link_twice"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        pvm_module *m = translate(names[i]);
        assert_true(m->verified);
        pvm_module_free(m);
    }
}

/* Function 0 of features.wasm imports host.add3: a trampoline calling host
 * import 0, named "host.add3"; the bulk operations follow the imports. */
static void imports_are_trampolines(void **state)
{
    (void)state;
    pvm_module *m = translate("features");
    assert_string_equal(m->imports[0], "host.add3");
    pvm_insn in[4];
    size_t n = insns(m, m->funcs[0].name, in, 4);
    assert_int_equal(n, 2);
    assert_int_equal(in[0].op, PVM_OP_call_host);
    assert_int_equal(in[0].imm, 0);
    assert_int_equal(in[1].op, PVM_OP_ret);
    assert_true(pvm_module_find_import(m, PVM_WASM_BULK_PREFIX "memory.copy") > 0);
    pvm_module_free(m);
}

/* The host imports that function `func` calls, in order, as digits. */
static void hosts_called(const pvm_module *m, const char *func, char *out, size_t cap)
{
    pvm_insn in[64];
    size_t n = insns(m, func, in, 64), k = 0;
    for (size_t i = 0; i < n; i++)
        if (in[i].op == PVM_OP_call_host) {
            assert_true(k + 1 < cap && in[i].imm < 10);
            out[k++] = (char)('0' + in[i].imm);
        }
    out[k] = '\0';
}

/* link_twice.wasm imports host.add, host.sub, host.add: host imports
 * host.add, host.sub, then the bulk memory.fill; the trampolines of both
 * host.add imports and the direct calls to them call host import 0. */
static void an_import_named_twice_has_one_host_import(void **state)
{
    (void)state;
    pvm_module *m = translate("link_twice");
    assert_int_equal(m->nimports, 3);
    assert_string_equal(m->imports[0], "host.add");
    assert_string_equal(m->imports[1], "host.sub");
    assert_string_equal(m->imports[2], PVM_WASM_BULK_PREFIX "memory.fill");
    static const char *const calls[][2] = {
        {"add", "0"}, {"sub", "1"}, {"add_again", "0"}, {"direct", "010"}, {"fill", "2"},
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        char got[8];
        hosts_called(m, calls[i][0], got, sizeof got);
        assert_string_equal(got, calls[i][1]);
    }
    pvm_module_free(m);
}

/* Such a translation writes as .pbc and reads back, and its .pasm
 * re-assembles to the same bytes. */
static void an_import_named_twice_saves_and_reassembles(void **state)
{
    (void)state;
    pvm_module *m = translate("link_twice");
    pvm_error err;
    pvm_buf pbc = {0}, again_pbc = {0};
    if (pvm_module_write(m, &pbc, &err) < 0)
        fail_msg("pvm_module_write: %s", err.msg);
    pvm_module *read = pvm_module_read(pbc.data, pbc.len, &err);
    if (!read)
        fail_msg("pvm_module_read: %s", err.msg);
    assert_int_equal(read->nimports, 3);
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    assert_non_null(f);
    assert_int_equal(pvm_disassemble_module(f, m, NULL, &err), 0);
    assert_int_equal(fclose(f), 0);
    pvm_module *again = pvm_assemble("link_twice.pasm", text, size, &err);
    if (!again)
        fail_msg("the .pasm does not assemble: %s\n%s", err.msg, text);
    if (pvm_module_write(again, &again_pbc, &err) < 0)
        fail_msg("pvm_module_write: %s", err.msg);
    assert_int_equal(again_pbc.len, pbc.len);
    assert_memory_equal(again_pbc.data, pbc.data, pbc.len);
    pvm_buf_free(&pbc);
    pvm_buf_free(&again_pbc);
    free(text);
    pvm_module_free(again);
    pvm_module_free(read);
    pvm_module_free(m);
}

/* Two functions both named "f" by the name section, a third unnamed. */
static void names_come_from_the_name_section_and_are_unique(void **state)
{
    (void)state;
    static const uint8_t bytes[] = {
        0, 'a', 's', 'm', 1, 0, 0, 0,
        1, 4, 1, 0x60, 0, 0,                  /* type () -> () */
        3, 4, 3, 0, 0, 0,                     /* three functions */
        10, 10, 3, 2, 0, 0x0b, 2, 0, 0x0b, 2, 0, 0x0b,
        0, 14, 4, 'n', 'a', 'm', 'e',         /* custom "name" */
        1, 7, 2, 0, 1, 'f', 1, 1, 'f',        /* function names: 0 f, 1 f */
    };
    pvm_wasm_module *wm = wb_expect_ok(bytes, sizeof bytes);
    pvm_error err;
    pvm_module *m = pvm_wasm_translate(wm, NULL, &err);
    assert_non_null(m);
    assert_string_equal(m->funcs[0].name, "f");
    assert_string_equal(m->funcs[1].name, "f#1");
    assert_string_equal(m->funcs[2].name, "func[2]");
    pvm_module_free(m);
    pvm_wasm_module_free(wm);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(leaf_function_computes_in_argument_registers),
        cmocka_unit_test(add_of_locals_is_one_instruction),
        cmocka_unit_test(locals_across_two_calls_are_callee_saved),
        cmocka_unit_test(frames_are_where_the_calls_are),
        cmocka_unit_test(a_local_is_saved_and_zeroed_only_where_its_value_lives),
        cmocka_unit_test(a_function_too_large_for_webs_keeps_one_per_local),
        cmocka_unit_test(loop_body_has_no_moves_or_constants),
        cmocka_unit_test(a_loop_without_calls_keeps_its_constants_in_registers),
        cmocka_unit_test(a_constant_is_loaded_once_per_block),
        cmocka_unit_test(integer_constants_are_immediates),
        cmocka_unit_test(constants_without_an_immediate_form_use_a_register),
        cmocka_unit_test(wrap_zero_extends_only_where_the_upper_half_is_read),
        cmocka_unit_test(and_with_the_low_half_mask_is_a_zero_extension),
        cmocka_unit_test(hot_locals_left_over_are_saved_around_calls),
        cmocka_unit_test(a_loop_without_calls_holds_its_frame_slots_in_registers),
        cmocka_unit_test(a_leaf_homes_locals_where_its_parameters_were),
        cmocka_unit_test(branch_on_eqz_is_inverted),
        cmocka_unit_test(memory_access_is_one_heap_load),
        cmocka_unit_test(every_test_module_translates_and_verifies),
        cmocka_unit_test(imports_are_trampolines),
        cmocka_unit_test(an_import_named_twice_has_one_host_import),
        cmocka_unit_test(an_import_named_twice_saves_and_reassembles),
        cmocka_unit_test(names_come_from_the_name_section_and_are_unique),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
