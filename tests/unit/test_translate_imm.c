/*
 * test_translate_imm.c - an integer constant operand, which the translator
 * turns into the immediate of an `_imm` op where it can (rewriting x - c,
 * c < x, x <= c, rotr ...), computes what the same value passed in a
 * register computes, or traps alike: for every integer binary operator of
 * Wasm's opcode table, constants and operands at the edges of each width,
 * the constant second and first.  The register form is the reference; no
 * expected value is written here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_wasm_instance_util.h"
#include "wasm_builder.h"
#include "wasm_insn.h"

/* The integer binary operators of Wasm, from its opcode table: two
 * operands of one integer type, one integer result, no immediate. */
static bool integer_binop(const pvm_wasm_op_info *op)
{
    bool integer = op->pop[0] == PVM_WASM_I32 || op->pop[0] == PVM_WASM_I64;
    return op->prefix == 0 && op->imm == PVM_WASM_IMM_NONE && integer &&
           op->pop[1] == op->pop[0] && op->pop[2] == PVM_WASM_T_NONE &&
           (op->push == PVM_WASM_I32 || op->push == PVM_WASM_I64);
}

/* Constants and operands: each width's edges, the edges of an s32
 * immediate, shift counts around the widths. */
static const uint64_t values[] = {
    0, 1, 2, UINT64_MAX, UINT64_MAX - 1,
    0x7fffffff, 0x80000000, 0xffffffff, 0x100000000,
    0xffffffff7fffffff, 0xffffffff80000000, 0xffffffff80000001,
    0x7fffffffffffffff, 0x8000000000000000, 0x123456789abcdef0,
    31, 32, 33, 63, 64, 65,
};

static uint64_t of_type(uint8_t type, uint64_t v)
{
    return type == PVM_WASM_I32 ? (uint32_t)v : v;
}

/* The module of one function "f": x OP y of two parameters (nconst 0),
 * or of one parameter and the constant c, second or first. */
static pvm_wasm_instance *instance(pvm_wasm_store *s, const pvm_wasm_op_info *op, int where,
                                   uint64_t c)
{
    uint8_t t = op->pop[0];
    char type[8] = {0x60, where ? 1 : 2, (char)t, (char)t, 1, (char)op->push};
    if (where) { /* one parameter */
        type[3] = 1;
        type[4] = (char)op->push;
    }
    char code[32];
    size_t n = 0;
    code[n++] = 0; /* no locals */
    uint8_t konst[12];
    konst[0] = t == PVM_WASM_I32 ? 0x41 : 0x42; /* i32.const, i64.const */
    size_t nk = 1 + wb_sleb(konst + 1, t == PVM_WASM_I32 ? (int64_t)(int32_t)c : (int64_t)c);
    if (where == 2) { /* the constant first */
        memcpy(code + n, konst, nk);
        n += nk;
    }
    code[n++] = 0x20; /* local.get 0 */
    code[n++] = 0x00;
    if (where == 0) {
        code[n++] = 0x20; /* local.get 1 */
        code[n++] = 0x01;
    } else if (where == 1) {
        memcpy(code + n, konst, nk);
        n += nk;
    }
    code[n++] = (char)op->code;
    code[n++] = 0x0b;
    static wb w;
    wb_func_module(&w, WB_EXPORT, type, where ? 5 : 6, code, n);
    pvm_wasm_status status;
    pvm_error err;
    pvm_wasm_instance *inst = pvm_wasm_instantiate(s, w.b, w.n, &status, &err);
    if (!inst)
        fail_msg("%s: %s", op->text, err.msg);
    return inst;
}

static pvm_wasm_value arg(uint8_t type, uint64_t v)
{
    return type == PVM_WASM_I32 ? wt_i32((uint32_t)v) : wt_i64(v);
}

static void a_constant_operand_computes_what_a_register_operand_does(void **state)
{
    (void)state;
    int failures = 0, operators = 0;
    for (unsigned o = 0; o < PVM_WASM_OP_COUNT; o++) {
        const pvm_wasm_op_info *op = &pvm_wasm_ops[o];
        if (!integer_binop(op))
            continue;
        operators++;
        uint8_t type = op->pop[0];
        pvm_wasm_store *s = pvm_wasm_store_new(0);
        pvm_wasm_instance *ref = instance(s, op, 0, 0);
        for (size_t k = 0; k < sizeof values / sizeof values[0]; k++) {
            uint64_t c = of_type(type, values[k]);
            for (int where = 1; where <= 2; where++) {
                pvm_wasm_instance *inst = instance(s, op, where, c);
                for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
                    uint64_t x = of_type(type, values[i]);
                    uint64_t a = where == 1 ? x : c, b = where == 1 ? c : x, want = 0, got = 0;
                    /* division and remainder trap: the same trap, then */
                    int want_trap = wt_call(ref, "f", WT_ARGS(arg(type, a), arg(type, b)), &want);
                    int got_trap = wt_call(inst, "f", WT_ARGS(arg(type, x)), &got);
                    if (got_trap != want_trap || (want_trap == PVM_TRAP_NONE && got != want)) {
                        print_error("%s, %s %#llx: x = %#llx gives %#llx (trap %d), expected "
                                    "%#llx (trap %d)\n",
                                    op->text, where == 1 ? "second" : "first",
                                    (unsigned long long)c, (unsigned long long)x,
                                    (unsigned long long)got, got_trap, (unsigned long long)want,
                                    want_trap);
                        failures++;
                    }
                }
            }
        }
        pvm_wasm_store_free(s);
    }
    assert_int_equal(operators, 2 * 25); /* add ... rotr and the ten comparisons, each width */
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_constant_operand_computes_what_a_register_operand_does),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
