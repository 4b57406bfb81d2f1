/*
 * test_wasm_hostile.c - hostile input: random bytes, every truncation and
 * many mutations of a valid module, random instruction streams, hostile
 * counts and sizes, and the implementation limits.  Nothing may crash (the
 * sanitizer build checks for more), nothing may allocate from an unchecked
 * count, and every rejection names an offset inside the input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "wasm_builder.h"
#include "wasm_insn.h"
#include "wasm_module.h"
#include "wasm_sample.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

/* Decode; a rejection must say "at byte N" with N within the input.
 * Returns whether the input was accepted. */
static bool decode_cleanly(const uint8_t *bytes, size_t n)
{
    pvm_error err = {{0}};
    pvm_wasm_module *m = pvm_wasm_decode(bytes, n, &err);
    if (m) {
        pvm_wasm_module_free(m);
        return true;
    }
    unsigned long at;
    if (sscanf(err.msg, "at byte %lu ", &at) != 1 || at > n)
        fail_msg("bad error report for %zu bytes: \"%s\"", n, err.msg);
    return false;
}

static void random_bytes_are_rejected_cleanly(void **state)
{
    (void)state;
    uint8_t buf[512];
    for (int i = 0; i < 20000; i++) {
        size_t n = rng() % sizeof buf;
        for (size_t k = 0; k < n; k++)
            buf[k] = (uint8_t)rng();
        if (n >= 8 && (i & 1))
            memcpy(buf, "\0asm\1\0\0\0", 8);
        decode_cleanly(buf, n);
    }
}

static void every_truncation_is_handled(void **state)
{
    (void)state;
    for (size_t n = 0; n < sizeof wasm_sample; n++)
        decode_cleanly(wasm_sample, n);
    assert_true(decode_cleanly(wasm_sample, sizeof wasm_sample));
}

static void every_byte_mutation_is_handled(void **state)
{
    (void)state;
    uint8_t buf[sizeof wasm_sample];
    for (size_t i = 0; i < sizeof buf; i++) {
        uint8_t b = wasm_sample[i];
        const uint8_t values[] = {0x00, 0x01, 0x40, 0x7f, 0x80, 0xff,
                                  (uint8_t)(b ^ 0x01), (uint8_t)(b ^ 0x40), (uint8_t)(b ^ 0x80),
                                  (uint8_t)(b + 1), (uint8_t)(b - 1)};
        for (size_t v = 0; v < sizeof values; v++) {
            memcpy(buf, wasm_sample, sizeof buf);
            buf[i] = values[v];
            decode_cleanly(buf, sizeof buf);
        }
    }
}

/* Random bodies made of the table's opcodes with small immediates, in a
 * module with a memory, a table, a data count section and a function type
 * with parameters: mostly invalid, but they reach deep into the validator. */
static void random_instruction_streams_are_handled(void **state)
{
    (void)state;
    unsigned accepted = 0;
    for (int i = 0; i < 20000; i++) {
        char code[256];
        size_t n = 0;
        code[n++] = 1; /* one run of locals: 2 x i64 */
        code[n++] = 2;
        code[n++] = 0x7e;
        unsigned ninsns = 1 + rng() % 12;
        for (unsigned k = 0; k < ninsns && n < sizeof code - 24; k++) {
            const pvm_wasm_op_info *info = &pvm_wasm_ops[rng() % PVM_WASM_OP_COUNT];
            if (info->prefix)
                code[n++] = (char)info->prefix;
            code[n++] = (char)info->code;
            unsigned nimm = (info->imm != PVM_WASM_IMM_NONE) + (rng() % 3 == 0);
            if (info->imm == PVM_WASM_IMM_F64)
                nimm = 8;
            else if (info->imm == PVM_WASM_IMM_F32)
                nimm = 4;
            static const uint8_t imms[] = {0x00, 0x01, 0x02, 0x40, 0x7f, 0x7e, 0x70, 0x6f};
            for (unsigned j = 0; j < nimm; j++)
                code[n++] = (char)imms[rng() % sizeof imms];
        }
        while (n < sizeof code && rng() % 4)
            code[n++] = 0x0b; /* end */
        wb w;
        wb_func_module(&w, WB_MEMORY | WB_TABLE | WB_DATACOUNT | WB_EXPORT,
                       T("\x60\x02\x7f\x7d\x01\x7f"), code, n);
        accepted += decode_cleanly(w.b, w.n);
    }
    print_message("%u of 20000 random bodies were valid\n", accepted);
    assert_true(accepted > 0);
}

/* A valid body of random table-typed instructions: each is chosen so that
 * the operands it pops are on the (tracked) stack.  Returns its length. */
static size_t typed_stream(char *code, size_t cap)
{
    uint8_t stack[64];
    unsigned h = 0;
    size_t n = 0;
    code[n++] = 0; /* no locals */
    for (int tries = 0; tries < 400 && n + 16 + h < cap; tries++) {
        const pvm_wasm_op_info *info = &pvm_wasm_ops[rng() % PVM_WASM_OP_COUNT];
        unsigned imm = info->imm, npops = 0;
        if (info->push == PVM_WASM_T_SPEC || imm == PVM_WASM_IMM_DATA_MEM0 ||
            imm == PVM_WASM_IMM_DATA || imm == PVM_WASM_IMM_ELEM ||
            imm == PVM_WASM_IMM_ELEM_TABLE || imm == PVM_WASM_IMM_TABLE ||
            imm == PVM_WASM_IMM_TABLE_TABLE)
            continue;
        while (npops < 3 && info->pop[npops] != PVM_WASM_T_NONE)
            npops++;
        bool fits = h >= npops && h < sizeof stack;
        for (unsigned k = 0; fits && k < npops; k++)
            fits = stack[h - npops + k] == info->pop[k];
        if (!fits)
            continue;
        if (info->prefix)
            code[n++] = (char)info->prefix;
        code[n++] = (char)info->code;
        size_t zeros = imm == PVM_WASM_IMM_F32 ? 4 : imm == PVM_WASM_IMM_F64 ? 8
                     : imm >= PVM_WASM_IMM_MEM8 && imm <= PVM_WASM_IMM_MEM64 ? 2
                     : imm == PVM_WASM_IMM_MEM0_MEM0 ? 2 : imm != PVM_WASM_IMM_NONE;
        memset(code + n, 0, zeros);
        n += zeros;
        h -= npops;
        if (info->push != PVM_WASM_T_NONE)
            stack[h++] = info->push;
    }
    while (h--)
        code[n++] = 0x1a; /* drop */
    code[n++] = 0x0b;
    return n;
}

static void typed_random_streams_validate_and_mutants_are_handled(void **state)
{
    (void)state;
    for (int i = 0; i < 3000; i++) {
        char code[512];
        size_t n = typed_stream(code, sizeof code);
        wb w;
        wb_func_module(&w, WB_MEMORY | WB_DATACOUNT, T("\x60\x00\x00"), code, n);
        pvm_wasm_module_free(wb_expect_ok(w.b, w.n));
        for (int k = 0; k < 8; k++) {
            size_t at = w.body + rng() % n;
            uint8_t old = w.b[at];
            w.b[at] = (uint8_t)rng();
            decode_cleanly(w.b, w.n);
            w.b[at] = old;
        }
    }
}

/* A module whose one function ([] -> []) has the given code entry. */
static uint8_t *module_with_code(const uint8_t *code, size_t ncode, size_t *size)
{
    uint8_t *b = malloc(ncode + 64);
    assert_non_null(b);
    size_t n = 0;
    memcpy(b, "\0asm\1\0\0\0" "\x01\x04\x01\x60\x00\x00" "\x03\x02\x01\x00", 18);
    n = 18;
    uint8_t entry[8];
    size_t nentry = wb_leb(entry, (uint32_t)ncode);
    b[n++] = 10;
    n += wb_leb(b + n, (uint32_t)(1 + nentry + ncode));
    b[n++] = 1;
    memcpy(b + n, entry, nentry);
    n += nentry;
    memcpy(b + n, code, ncode);
    *size = n + ncode;
    return b;
}

static void deep_nesting_is_fine(void **state)
{
    (void)state;
    const size_t depth = 100000;
    uint8_t *code = malloc(3 * depth + 2);
    assert_non_null(code);
    size_t n = 0;
    code[n++] = 0;
    for (size_t i = 0; i < depth; i++) {
        code[n++] = 0x02;
        code[n++] = 0x40;
    }
    for (size_t i = 0; i <= depth; i++)
        code[n++] = 0x0b;
    size_t size;
    uint8_t *b = module_with_code(code, n, &size);
    pvm_wasm_module *m = wb_expect_ok(b, size);
    assert_int_equal(m->funcs[0].max_depth, depth + 1);
    assert_int_equal(m->funcs[0].nblocks, depth);
    pvm_wasm_module_free(m);
    free(b);
    free(code);
}

static void the_operand_stack_has_a_limit(void **state)
{
    (void)state;
    const size_t pushes = PVM_WASM_MAX_STACK + 1;
    uint8_t *code = malloc(2 * pushes + 2);
    assert_non_null(code);
    size_t n = 0;
    code[n++] = 0;
    for (size_t i = 0; i < pushes; i++) {
        code[n++] = 0x41;
        code[n++] = 0x00;
    }
    code[n++] = 0x0b;
    size_t size;
    uint8_t *b = module_with_code(code, n, &size);
    pvm_error err = {{0}};
    assert_null(pvm_wasm_decode(b, size, &err));
    assert_non_null(strstr(err.msg, "implementation limit"));
    free(b);
    free(code);
}

static void hostile_counts_and_sizes_are_refused(void **state)
{
    (void)state;
    static const uint8_t huge[] = {0xff, 0xff, 0xff, 0xff, 0x0f};
    wb w;
    /* params, br_table targets, select types, locals, all 2^32-1 */
    wb_header(&w);
    wb_section(&w, 1, T("\x01\x60\xff\xff\xff\xff\x0f"));
    EXPECT_ERROR(&w, 12, "unexpected end of section or function");
    wb_func_module(&w, 0, T("\x60\x00\x00"), T("\x00\x41\x00\x0e\xff\xff\xff\xff\x0f\x0b"));
    EXPECT_ERROR(&w, w.body + 4, "unexpected end of section or function");
    wb_func_module(&w, 0, T("\x60\x00\x00"), T("\x00\x1c\xff\xff\xff\xff\x0f\x0b"));
    EXPECT_ERROR(&w, w.body + 2, "unexpected end of section or function");
    wb_func_module(&w, 0, T("\x60\x00\x00"), T("\x01\xff\xff\xff\xff\x0f\x7f\x0b"));
    EXPECT_ERROR(&w, w.body - 1, "too many locals");
    /* an element segment's items, a data segment's size, a name's length */
    wb_header(&w);
    wb_section(&w, 9, T("\x01\x01\x00\xff\xff\xff\xff\x0f"));
    EXPECT_ERROR(&w, 13, "unexpected end of section or function");
    wb_header(&w);
    wb_section(&w, 11, T("\x01\x01\xff\xff\xff\xff\x0f"));
    EXPECT_ERROR(&w, 12, "unexpected end of section or function");
    wb_header(&w);
    wb_section(&w, 0, huge, sizeof huge);
    EXPECT_ERROR(&w, 15, "length out of bounds");
    /* more parameters than the implementation allows */
    uint8_t type[1200];
    size_t n = 0;
    type[n++] = 1;
    type[n++] = 0x60;
    n += wb_leb(type + n, PVM_WASM_MAX_PARAMS + 1);
    memset(type + n, 0x7f, PVM_WASM_MAX_PARAMS + 1);
    n += PVM_WASM_MAX_PARAMS + 1;
    type[n++] = 0;
    wb_header(&w);
    wb_section(&w, 1, type, n); /* its size takes two bytes */
    EXPECT_ERROR(&w, 13, "too many parameters");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_bytes_are_rejected_cleanly),
        cmocka_unit_test(every_truncation_is_handled),
        cmocka_unit_test(every_byte_mutation_is_handled),
        cmocka_unit_test(random_instruction_streams_are_handled),
        cmocka_unit_test(typed_random_streams_validate_and_mutants_are_handled),
        cmocka_unit_test(deep_nesting_is_fine),
        cmocka_unit_test(the_operand_stack_has_a_limit),
        cmocka_unit_test(hostile_counts_and_sizes_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
