/*
 * test_wasm_validate.c - validation as the spec defines it: operand typing
 * (with the polymorphic stack of unreachable code), control frames, labels,
 * indices into every space, memory alignment, references, constant
 * expressions and the module-level rules.  Every rejection names the byte
 * offset of the offending instruction or declaration.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "wasm_builder.h"
#include "wasm_insn.h"
#include "wasm_module.h"

/* Function types: [] -> [], [] -> [i32], [i32] -> []. */
#define V_V "\x60\x00\x00"
#define V_I "\x60\x00\x01\x7f"
#define I_V "\x60\x01\x7f\x00"

/* A one-function module must be rejected at body + at, or be valid. */
#define BAD(flags, type, code, at, what)                                       \
    do {                                                                       \
        wb w;                                                                  \
        wb_func_module(&w, flags, T(type), T(code));                           \
        EXPECT_ERROR(&w, w.body + (at), what);                                 \
    } while (0)
#define GOOD(flags, type, code)                                                \
    do {                                                                       \
        wb w;                                                                  \
        wb_func_module(&w, flags, T(type), T(code));                           \
        EXPECT_OK(&w);                                                         \
    } while (0)

#define M "\0asm\1\0\0\0"
#define REJECT(lit, offset, what) wb_expect_error((const uint8_t *)(lit), sizeof(lit) - 1, offset, what)
#define ACCEPT(lit) pvm_wasm_module_free(wb_expect_ok((const uint8_t *)(lit), sizeof(lit) - 1))

static void operands_must_have_the_instructions_types(void **state)
{
    (void)state;
    GOOD(0, V_I, "\x00\x41\x01\x41\x02\x6a\x0b");
    BAD(0, V_V, "\x00\x42\x00\x41\x00\x6a\x1a\x0b", 5, "type mismatch: i32.add expects i32, found i64");
    BAD(0, V_V, "\x00\x6a\x0b", 1, "type mismatch: i32.add expects i32, the stack is empty");
    BAD(0, V_I, "\x00\x43\0\0\0\0\x0b", 6, "type mismatch");    /* returns f32 */
    BAD(0, V_V, "\x00\x41\x00\x0b", 3, "type mismatch");        /* leaves a value */
    BAD(0, I_V, "\x00\x42\x00\x21\x00\x0b", 3, "type mismatch"); /* local.set i32 := i64 */
    BAD(0, V_V, "\x00\x41\x00\xa7\x1a\x0b", 3, "type mismatch: i32.wrap_i64 expects i64");
    GOOD(0, V_V, "\x00\x41\x00\x0f\x0b"); /* return may leave values behind */
}

static void unreachable_code_has_a_polymorphic_stack(void **state)
{
    (void)state;
    GOOD(0, V_I, "\x00\x00\x6a\x0b");                         /* unreachable i32.add */
    GOOD(0, V_I, "\x00\x00\x1b\x0b");                         /* unreachable select */
    GOOD(0, V_V, "\x00\x02\x40\x0c\x00\x6a\x1a\x0b\x0b");     /* block br 0 i32.add drop end */
    GOOD(0, V_I, "\x00\x41\x00\x0f\x6a\x0b");                 /* return i32.add */
    BAD(0, V_I, "\x00\x00\x42\x00\x6a\x0b", 4, "type mismatch"); /* known types still count */
    BAD(0, V_V, "\x00\x00\x41\x00\x0b", 4, "type mismatch");     /* and extra values */
    /* br_table in unreachable code: labels of different types, same arity */
    GOOD(0, V_V, "\x00\x02\x7f\x02\x7d\x00\x0e\x01\x00\x01\x0b\x1a\x41\x00\x0b\x1a\x0b");
}

static void indices_must_exist(void **state)
{
    (void)state;
    BAD(0, V_V, "\x00\x20\x00\x1a\x0b", 1, "unknown local 0");
    GOOD(0, I_V, "\x00\x20\x00\x1a\x0b");
    GOOD(0, V_V, "\x01\x02\x7e\x20\x01\x1a\x0b");
    BAD(0, V_V, "\x01\x02\x7e\x20\x02\x1a\x0b", 3, "unknown local 2");
    BAD(0, V_V, "\x00\x10\x07\x0b", 1, "unknown function 7");
    GOOD(0, V_V, "\x00\x10\x00\x0b");
    BAD(0, V_V, "\x00\x23\x00\x1a\x0b", 1, "unknown global 0");
    BAD(0, V_V, "\x00\x02\x05\x0b\x0b", 1, "unknown type 5");
    BAD(0, V_V, "\x00\x41\x00\x11\x00\x00\x0b", 3, "unknown table 0");
    GOOD(WB_TABLE, V_V, "\x00\x41\x00\x11\x00\x00\x0b");
    BAD(WB_TABLE, V_V, "\x00\x41\x00\x11\x00\x01\x0b", 3, "unknown table 1");
    BAD(WB_TABLE, V_V, "\x00\xfc\x0d\x00\x0b", 1, "unknown elem segment 0");
}

static void branches_target_enclosing_labels_with_their_types(void **state)
{
    (void)state;
    GOOD(0, V_V, "\x00\x0c\x00\x0b");
    BAD(0, V_V, "\x00\x0c\x01\x0b", 1, "unknown label 1");
    BAD(0, V_I, "\x00\x02\x7f\x0c\x00\x0b\x0b", 3, "type mismatch"); /* br needs an i32 */
    /* a loop's label takes its parameters, not its results */
    GOOD(0, V_V, "\x00\x03\x7f\x41\x00\x0c\x00\x0b\x1a\x0b");
    /* br_if passes the label's values through */
    GOOD(0, V_I, "\x00\x02\x7f\x41\x01\x41\x00\x0d\x00\x0b\x0b");
    /* br_table: every target has the default's arity ... */
    BAD(0, V_V, "\x00\x02\x7f\x02\x40\x41\x00\x41\x00\x0e\x01\x00\x01\x0b\x41\x00\x0b\x1a\x0b",
        9, "type mismatch: br_table target 0 has 0 values, the default label 1 has 1");
    /* ... and the values match each target's types */
    BAD(0, V_V, "\x00\x02\x7f\x02\x7d\x43\0\0\0\0\x41\x00\x0e\x01\x00\x01\x0b\x1a\x41\x00\x0b\x1a\x0b",
        12, "type mismatch: br_table expects i32, found f32");
}

static void blocks_if_and_else_follow_their_types(void **state)
{
    (void)state;
    GOOD(0, V_I, "\x00\x41\x01\x04\x7f\x41\x02\x05\x41\x03\x0b\x0b");
    BAD(0, V_I, "\x00\x41\x01\x04\x7f\x41\x02\x0b\x0b", 7, "if without else");
    BAD(0, V_V, "\x00\x05\x0b", 1, "else without a matching if");
    BAD(0, V_V, "\x00\x04\x40\x0b\x0b", 1, "type mismatch: if expects i32"); /* no condition */

    /* multi-value: block (type 1) takes two i32 and returns their sum */
    wb w;
    wb_header(&w);
    wb_section(&w, 1, T("\x02" V_V "\x60\x02\x7f\x7f\x01\x7f"));
    wb_section(&w, 3, T("\x01\x00"));
    wb_code(&w, T("\x00\x41\x01\x41\x02\x02\x01\x6a\x0b\x1a\x0b"));
    pvm_wasm_module *m = wb_expect_ok(w.b, w.n);
    const pvm_wasm_block *b = &m->funcs[0].blocks[0];
    assert_int_equal(m->funcs[0].nblocks, 1);
    assert_int_equal(b->nparams, 2);
    assert_int_equal(b->nresults, 1);
    assert_int_equal(b->height, 0); /* its two parameters are not counted */
    assert_int_equal(b->pos, w.body + 5);
    assert_int_equal(b->end_pos, w.body + 8);
    assert_int_equal(m->funcs[0].max_stack, 2);
    pvm_wasm_module_free(m);
    wb_header(&w);
    wb_section(&w, 1, T("\x02" V_V "\x60\x02\x7f\x7f\x01\x7f"));
    wb_section(&w, 3, T("\x01\x00"));
    wb_code(&w, T("\x00\x41\x01\x02\x01\x6a\x0b\x1a\x0b"));
    EXPECT_ERROR(&w, w.body + 3, "type mismatch: block expects i32, the stack is empty");
}

static void memory_accesses_need_a_memory_and_natural_alignment(void **state)
{
    (void)state;
    GOOD(WB_MEMORY, V_V, "\x00\x41\x00\x28\x02\x00\x1a\x0b");
    BAD(WB_MEMORY, V_V, "\x00\x41\x00\x28\x03\x00\x1a\x0b", 3,
        "alignment must not be larger than natural");
    BAD(WB_MEMORY, V_V, "\x00\x41\x00\x31\x01\x00\x1a\x0b", 3,
        "alignment must not be larger than natural"); /* i64.load8_u */
    BAD(WB_MEMORY, V_V, "\x00\x41\x00\x28\x80\x80\x80\x80\x08\x00\x1a\x0b", 3,
        "alignment must not be larger than natural"); /* 2^31: no overflow */
    BAD(0, V_V, "\x00\x41\x00\x28\x02\x00\x1a\x0b", 3, "unknown memory 0");
    BAD(0, V_V, "\x00\x41\x00\x40\x00\x1a\x0b", 3, "unknown memory 0");
    BAD(WB_MEMORY, V_V, "\x00\x41\x00\x42\x00\x36\x02\x00\x0b", 5, "type mismatch"); /* i32.store of i64 */
    GOOD(WB_MEMORY, V_V, "\x00\x41\x00\x41\x00\x41\x00\xfc\x0b\x00\x0b");           /* memory.fill */
    BAD(WB_MEMORY, V_V, "\x00\xfc\x09\x00\x0b", 1, "unknown data segment");
    BAD(WB_MEMORY | WB_DATACOUNT, V_V, "\x00\xfc\x09\x00\x0b", 1, "unknown data segment 0");

    /* memory.init and data.drop need the data count section */
    wb w;
    wb_header(&w);
    wb_section(&w, 1, T("\x01" V_V));
    wb_section(&w, 3, T("\x01\x00"));
    wb_section(&w, 5, T("\x01\x00\x01"));
    wb_code(&w, T("\x00\xfc\x09\x00\x0b"));
    wb_section(&w, 11, T("\x01\x01\x01" "a"));
    EXPECT_ERROR(&w, w.body + 1, "data count section required");
}

static void references_and_tables_are_typed(void **state)
{
    (void)state;
    BAD(0, V_V, "\x00\xd0\x70\xd0\x70\x41\x01\x1b\x1a\x0b", 7,
        "type mismatch: select without a type needs numeric operands");
    GOOD(0, V_V, "\x00\xd0\x70\xd0\x70\x41\x01\x1c\x01\x70\x1a\x0b");
    BAD(0, V_V, "\x00\x41\x00\x41\x00\x41\x01\x1c\x02\x7f\x7f\x1a\x0b", 7, "invalid result arity");
    BAD(0, V_V, "\x00\x41\x00\x42\x00\x41\x01\x1b\x1a\x0b", 7, "type mismatch: select of i32 and i64");
    BAD(0, V_V, "\x00\x41\x00\xd1\x1a\x0b", 3, "type mismatch: ref.is_null expects a reference");
    GOOD(0, V_V, "\x00\xd0\x6f\xd1\x1a\x0b");
    GOOD(WB_TABLE, V_V, "\x00\x41\x00\x25\x00\x1a\x0b");
    BAD(WB_TABLE, V_V, "\x00\x41\x00\xd0\x6f\x26\x00\x0b", 5,
        "type mismatch: table.set expects funcref, found externref");
    /* ref.func only of functions declared outside function bodies */
    BAD(0, V_V, "\x00\xd2\x00\x1a\x0b", 1, "undeclared function reference");
    GOOD(WB_EXPORT, V_V, "\x00\xd2\x00\x1a\x0b");
}

static void globals_are_typed_and_set_only_if_mutable(void **state)
{
    (void)state;
    wb w;
    static const char *const globals[] = {"\x01\x7f\x00\x41\x00\x0b", "\x01\x7f\x01\x41\x00\x0b"};
    for (int mut = 0; mut < 2; mut++) {
        wb_header(&w);
        wb_section(&w, 1, T("\x01" V_V));
        wb_section(&w, 3, T("\x01\x00"));
        wb_section(&w, 6, globals[mut], 6);
        wb_code(&w, T("\x00\x41\x01\x24\x00\x0b"));
        if (mut)
            EXPECT_OK(&w);
        else
            EXPECT_ERROR(&w, w.body + 3, "global is immutable");
    }
}

static void constant_expressions_are_one_constant_instruction(void **state)
{
    (void)state;
    ACCEPT(M "\x06\x06\x01\x7f\x00\x41\x00\x0b");
    REJECT(M "\x06\x08\x01\x7f\x00\x41\x00\x41\x01\x0b", 13, "type mismatch: constant "
           "expression leaves 2 values");
    REJECT(M "\x06\x04\x01\x7f\x00\x0b", 13, "type mismatch: empty constant expression");
    REJECT(M "\x06\x06\x01\x7d\x00\x41\x00\x0b", 13, "type mismatch: expected f32, found i32");
    REJECT(M "\x06\x09\x01\x7f\x00\x41\x00\x41\x00\x6a\x0b", 17,
           "constant expression required: i32.add is not a constant instruction");
    /* global.get: only of imported immutable globals */
    REJECT(M "\x06\x0b\x02\x7f\x00\x41\x00\x0b\x7f\x00\x23\x00\x0b", 18, "unknown global 0");
    ACCEPT(M "\x02\x07\x01\x00\x01" "g" "\x03\x7f\x00" "\x06\x06\x01\x7f\x00\x23\x00\x0b");
    REJECT(M "\x02\x07\x01\x00\x01" "g" "\x03\x7f\x01" "\x06\x06\x01\x7f\x00\x23\x00\x0b", 22,
           "constant expression required: global.get of mutable global 0");
    /* an element offset is an i32 */
    REJECT(M "\x04\x04\x01\x70\x00\x01" "\x09\x06\x01\x00\x42\x00\x0b\x00", 18,
           "type mismatch: expected i32, found i64");
}

static void module_level_rules(void **state)
{
    (void)state;
    REJECT(M "\x05\x05\x02\x00\x01\x00\x01", 13, "multiple memories");
    REJECT(M "\x02\x07\x01\x00\x01" "m" "\x02\x00\x01" "\x05\x03\x01\x00\x01", 20, "multiple memories");
    ACCEPT(M "\x05\x05\x01\x00\x80\x80\x04");
    REJECT(M "\x05\x05\x01\x00\x81\x80\x04", 11, "memory size must be at most 65536 pages");
    REJECT(M "\x05\x06\x01\x01\x00\x81\x80\x04", 11, "memory size must be at most 65536 pages");
    REJECT(M "\x05\x04\x01\x01\x02\x01", 11, "size minimum must not be greater than maximum");
    REJECT(M "\x04\x05\x01\x70\x01\x02\x01", 12, "size minimum must not be greater than maximum");
    ACCEPT(M "\x04\x09\x02\x70\x00\x00\x6f\x01\x00\xff\x01"); /* two tables */
    REJECT(M "\x03\x02\x01\x00", 11, "unknown type 0");
    REJECT(M "\x07\x05\x01\x01" "f" "\x00\x00", 14, "unknown function 0");
    REJECT(M "\x07\x05\x01\x01" "f" "\x04\x00", 13, "malformed export kind");
    /* unknown table for an element segment, and a type mismatch with it */
    REJECT(M "\x09\x06\x01\x00\x41\x00\x0b\x00", 11, "unknown table 0");
    REJECT(M "\x04\x04\x01\x6f\x00\x01" "\x09\x09\x01\x04\x41\x00\x0b\x01\xd0\x70\x0b", 17,
           "type mismatch: funcref segment for a table of externref");

    wb w;
    wb_header(&w);
    wb_section(&w, 1, T("\x01" V_V));
    wb_section(&w, 3, T("\x01\x00"));
    wb_section(&w, 7, T("\x02\x01" "a" "\x00\x00" "\x01" "a" "\x00\x00"));
    size_t second_name = w.n - 3;
    wb_code(&w, T("\x00\x0b"));
    EXPECT_ERROR(&w, second_name, "duplicate export name \"a\"");

    wb_header(&w);
    wb_section(&w, 1, T("\x01" V_I));
    wb_section(&w, 3, T("\x01\x00"));
    wb_section(&w, 8, T("\x00"));
    size_t start = w.n - 1;
    wb_code(&w, T("\x00\x41\x00\x0b"));
    EXPECT_ERROR(&w, start, "start function 0 must have type [] -> []");
}

static void what_the_validator_learns(void **state)
{
    (void)state;
    wb w;
    /* i32.const x3, i32.add x2 inside a block in a loop */
    wb_func_module(&w, 0, T(V_I), T("\x00\x03\x7f\x02\x7f\x41\x01\x41\x02\x41\x03\x6a\x6a"
                                    "\x0b\x0b\x0b"));
    pvm_wasm_module *m = wb_expect_ok(w.b, w.n);
    const pvm_wasm_func *f = &m->funcs[0];
    assert_int_equal(f->max_stack, 3);
    assert_int_equal(f->max_depth, 3);
    assert_int_equal(f->nblocks, 2);
    assert_int_equal(f->blocks[0].op, PVM_WASM_OP_LOOP);
    assert_int_equal(f->blocks[1].op, PVM_WASM_OP_BLOCK);
    assert_int_equal(m->bytes[f->blocks[0].pos], 0x03);
    assert_int_equal(m->bytes[f->blocks[1].pos], 0x02);
    assert_int_equal(f->blocks[0].end_pos, w.body + 14);
    assert_int_equal(f->blocks[1].end_pos, w.body + 13);
    assert_int_equal(f->body_end, w.body + 16);
    pvm_wasm_module_free(m);
}

/* The common instructions are checked by a fast path while at least six
 * bytes of the body follow them; the cases above are mostly shorter.
 * Here each instruction under test has eight nops and the final end after
 * it: the same rules, the same errors at the same offsets. */
#define PAD "\x01\x01\x01\x01\x01\x01\x01\x01"
#define I64_LOCAL "\x01\x01\x7e"

static void the_fast_path_keeps_every_rule(void **state)
{
    (void)state;
    BAD(0, V_V, I64_LOCAL "\x41\x00\x21\x00" PAD "\x0b", 5,
        "type mismatch: local.set expects i64, found i32");
    BAD(0, V_V, I64_LOCAL "\x41\x00\x22\x00\x1a" PAD "\x0b", 5,
        "type mismatch: local.tee expects i64, found i32");
    GOOD(0, V_V, I64_LOCAL "\x42\x00\x22\x00\x21\x00" PAD "\x0b");
    BAD(0, V_V, "\x00\x20\x05\x1a" PAD "\x0b", 1, "unknown local 5");
    GOOD(0, V_V, "\x01\x81\x01\x7f\x20\x80\x01\x1a" PAD "\x0b"); /* local 128 of 129 */
    BAD(0, V_V, "\x01\x81\x01\x7f\x20\x81\x01\x1a" PAD "\x0b", 4, "unknown local 129");
    BAD(0, V_V, "\x00\x42\x00\x41\x00\x6a\x1a" PAD "\x0b", 5,
        "type mismatch: i32.add expects i32, found i64");
    BAD(0, V_V, "\x00\x6a\x1a" PAD "\x0b", 1, "type mismatch: i32.add expects i32, the stack is empty");
    GOOD(0, V_V, "\x00\x41\xff\xff\xff\xff\x07\x1a\x42\x80\x80\x80\x80\x80\x01\x1a" PAD "\x0b");
    GOOD(0, I_V, "\x00\x41\x00\x10\x00" PAD "\x0b"); /* call of [i32] -> [] */
    BAD(0, I_V, "\x00\x42\x00\x10\x00" PAD "\x0b", 3, "type mismatch: call expects i32, found i64");
    BAD(0, V_V, "\x00\x10\x07" PAD "\x0b", 1, "unknown function 7");
    BAD(0, V_V, "\x00\x02\x40\x42\x00\x0d\x00\x0b" PAD "\x0b", 5,
        "type mismatch: br_if expects i32, found i64");
    BAD(0, V_V, "\x00\x41\x00\x0d\x01" PAD "\x0b", 3, "unknown label 1");
    BAD(0, V_V, "\x00\x02\x40\x41\x00\x0b" PAD "\x0b", 5, "type mismatch"); /* a value left */
    BAD(0, V_V, "\x00\x02\x7f\x0b\x1a" PAD "\x0b", 3, "type mismatch");    /* one missing */
    GOOD(0, V_V, "\x00\x02\x7f\x03\x40\x0c\x00\x0b\x41\x05\x0b\x1a" PAD "\x0b");
    GOOD(0, V_V, "\x00\x02\x7f\x41\x01\x0c\x00\x0b\x1a" PAD "\x0b"); /* br with a value */
    BAD(0, V_V, "\x00\x02\x7f\x42\x01\x0c\x00\x0b\x1a" PAD "\x0b", 5, "type mismatch");
    GOOD(0, V_V, "\x00\x0c\x00\x6a\x1a" PAD "\x0b"); /* after br: unreachable */
    BAD(WB_MEMORY, V_V, "\x00\x41\x00\x28\x03\x00\x1a" PAD "\x0b", 3,
        "alignment must not be larger than natural");
    BAD(0, V_V, "\x00\x41\x00\x28\x02\x00\x1a" PAD "\x0b", 3, "unknown memory 0");
    GOOD(WB_MEMORY, V_V, "\x00\x41\x00\x28\x02\x80\x80\x01\x1a" PAD "\x0b");
    BAD(WB_MEMORY, V_V, "\x00\x41\x00\x42\x00\x36\x02\x00" PAD "\x0b", 5,
        "type mismatch: i32.store expects i32, found i64");
    BAD(0, V_V, "\x00\x1a" PAD "\x0b", 1,
        "type mismatch: drop expects an operand, the stack is empty");
    BAD(0, V_V, "\x00\x23\x00\x1a" PAD "\x0b", 1, "unknown global 0");

    /* What it learns is what the general path learns. */
    wb w;
    wb_func_module(&w, 0, T(V_V), T("\x00\x02\x40\x03\x40\x41\x01\x41\x02\x6a\x1a\x0b\x0b" PAD
                                    "\x0b"));
    pvm_wasm_module *m = wb_expect_ok(w.b, w.n);
    const pvm_wasm_func *f = &m->funcs[0];
    assert_int_equal(f->max_stack, 2);
    assert_int_equal(f->max_depth, 3);
    assert_int_equal(f->nblocks, 2);
    assert_int_equal(f->blocks[0].op, PVM_WASM_OP_BLOCK);
    assert_int_equal(f->blocks[1].op, PVM_WASM_OP_LOOP);
    assert_int_equal(f->blocks[0].pos, w.body + 1);
    assert_int_equal(f->blocks[1].pos, w.body + 3);
    assert_int_equal(f->blocks[0].end_pos, w.body + 12);
    assert_int_equal(f->blocks[1].end_pos, w.body + 11);
    assert_int_equal(f->blocks[0].height, 0);
    pvm_wasm_module_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(operands_must_have_the_instructions_types),
        cmocka_unit_test(unreachable_code_has_a_polymorphic_stack),
        cmocka_unit_test(indices_must_exist),
        cmocka_unit_test(branches_target_enclosing_labels_with_their_types),
        cmocka_unit_test(blocks_if_and_else_follow_their_types),
        cmocka_unit_test(memory_accesses_need_a_memory_and_natural_alignment),
        cmocka_unit_test(references_and_tables_are_typed),
        cmocka_unit_test(globals_are_typed_and_set_only_if_mutable),
        cmocka_unit_test(constant_expressions_are_one_constant_instruction),
        cmocka_unit_test(module_level_rules),
        cmocka_unit_test(what_the_validator_learns),
        cmocka_unit_test(the_fast_path_keeps_every_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
