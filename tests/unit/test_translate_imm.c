/*
 * test_translate_imm.c - an integer constant operand, which the translator
 * turns into the immediate of an `_imm` op where it can (rewriting x - c,
 * c < x, x <= c, rotr ...), computes what the same value passed in a
 * register computes: for every integer binary operator of Wasm, constants
 * and operands at the edges of each width, the constant second and first.
 * The register form is the reference; no expected value is written here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_wasm_instance_util.h"
#include "wasm_builder.h"

enum { I32 = 0x7f, I64 = 0x7e };

typedef struct binop {
    uint8_t code;    /* the Wasm opcode */
    uint8_t type;    /* of its operands */
    uint8_t result;  /* of its result */
} binop;

static const binop binops[] = {
    /* i32: add sub mul and or xor shl shr_s shr_u rotl rotr */
    {0x6a, I32, I32}, {0x6b, I32, I32}, {0x6c, I32, I32}, {0x71, I32, I32},
    {0x72, I32, I32}, {0x73, I32, I32}, {0x74, I32, I32}, {0x75, I32, I32},
    {0x76, I32, I32}, {0x77, I32, I32}, {0x78, I32, I32},
    /* i32: eq ne lt_s lt_u gt_s gt_u le_s le_u ge_s ge_u */
    {0x46, I32, I32}, {0x47, I32, I32}, {0x48, I32, I32}, {0x49, I32, I32},
    {0x4a, I32, I32}, {0x4b, I32, I32}, {0x4c, I32, I32}, {0x4d, I32, I32},
    {0x4e, I32, I32}, {0x4f, I32, I32},
    /* i64: add sub mul and or xor shl shr_s shr_u rotl rotr */
    {0x7c, I64, I64}, {0x7d, I64, I64}, {0x7e, I64, I64}, {0x83, I64, I64},
    {0x84, I64, I64}, {0x85, I64, I64}, {0x86, I64, I64}, {0x87, I64, I64},
    {0x88, I64, I64}, {0x89, I64, I64}, {0x8a, I64, I64},
    /* i64: eq ne lt_s lt_u gt_s gt_u le_s le_u ge_s ge_u */
    {0x51, I64, I32}, {0x52, I64, I32}, {0x53, I64, I32}, {0x54, I64, I32},
    {0x55, I64, I32}, {0x56, I64, I32}, {0x57, I64, I32}, {0x58, I64, I32},
    {0x59, I64, I32}, {0x5a, I64, I32},
};

/* Constants and operands: each width's edges, the edges of an s32
 * immediate, shift counts around the widths. */
static const uint64_t values[] = {
    0, 1, 2, UINT64_MAX, UINT64_MAX - 1,
    0x7fffffff, 0x80000000, 0xffffffff, 0x100000000,
    0xffffffff7fffffff, 0xffffffff80000000, 0xffffffff80000001,
    0x7fffffffffffffff, 0x8000000000000000, 0x123456789abcdef0,
    31, 32, 33, 63, 64, 65,
};

/* v as signed LEB128, as an iNN.const immediate is written. */
static size_t sleb(uint8_t *out, int64_t v)
{
    size_t n = 0;
    for (;;) {
        uint8_t byte = v & 0x7f;
        v >>= 7; /* arithmetic: the sign stays */
        if ((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40))) {
            out[n++] = byte;
            return n;
        }
        out[n++] = byte | 0x80;
    }
}

static uint64_t of_type(uint8_t type, uint64_t v)
{
    return type == I32 ? (uint32_t)v : v;
}

/* The module of one function "f": x OP y of two parameters (nconst 0),
 * or of one parameter and the constant c, second or first. */
static pvm_wasm_instance *instance(pvm_wasm_store *s, const binop *op, int where, uint64_t c)
{
    char type[8] = {0x60, where ? 1 : 2, (char)op->type, (char)op->type, 1, (char)op->result};
    if (where) { /* one parameter */
        type[3] = 1;
        type[4] = (char)op->result;
    }
    char code[32];
    size_t n = 0;
    code[n++] = 0; /* no locals */
    uint8_t konst[12];
    konst[0] = op->type == I32 ? 0x41 : 0x42;
    size_t nk = 1 + sleb(konst + 1, op->type == I32 ? (int64_t)(int32_t)c : (int64_t)c);
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
        fail_msg("opcode %#x: %s", op->code, err.msg);
    return inst;
}

static pvm_wasm_value arg(uint8_t type, uint64_t v)
{
    return type == I32 ? wt_i32((uint32_t)v) : wt_i64(v);
}

static void a_constant_operand_computes_what_a_register_operand_does(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t o = 0; o < sizeof binops / sizeof binops[0]; o++) {
        const binop *op = &binops[o];
        pvm_wasm_store *s = pvm_wasm_store_new(0);
        pvm_wasm_instance *ref = instance(s, op, 0, 0);
        for (size_t k = 0; k < sizeof values / sizeof values[0]; k++) {
            uint64_t c = of_type(op->type, values[k]);
            for (int where = 1; where <= 2; where++) {
                pvm_wasm_instance *inst = instance(s, op, where, c);
                for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
                    uint64_t x = of_type(op->type, values[i]);
                    uint64_t a = where == 1 ? x : c, b = where == 1 ? c : x;
                    uint64_t want = wt_value(ref, "f", WT_ARGS(arg(op->type, a), arg(op->type, b)));
                    uint64_t got = wt_value(inst, "f", WT_ARGS(arg(op->type, x)));
                    if (got != want) {
                        print_error("opcode %#x, %s %#llx: x = %#llx gives %#llx, expected %#llx\n",
                                    op->code, where == 1 ? "second" : "first",
                                    (unsigned long long)c, (unsigned long long)x,
                                    (unsigned long long)got, (unsigned long long)want);
                        failures++;
                    }
                }
            }
        }
        pvm_wasm_store_free(s);
    }
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_constant_operand_computes_what_a_register_operand_does),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
