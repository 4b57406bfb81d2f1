/*
 * test_opcode_rows.c - the decoder driven by stored opcode rows
 * (format/opcode_rows.h, format/opcode_decode.h), shared by
 * pulley-ngrams, pulley-report and the SQLite extension, on a small table
 * of its own: each operand word has its size, an unknown word takes what
 * the length leaves, rows that do not fit their length are refused saying
 * why; instructions decode into registers packed 5 bits each, immediates
 * extended by their kind, extended opcodes behind the escape byte and
 * jump tables; bad code is refused saying what is wrong, without reading
 * past its end.  (tests/unit/test_sqlext_decode.c checks the same decoder
 * against the VM's own, with the compiled-in table.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "opcode_decode.h"
#include "opcode_rows.h"

/* The test's instruction set, as a run would store it. */
enum {
    NOP = 1, XMOV, XCONST8, XADD, JUMP, BR_TABLE, XCONST64, STACK_ALLOC, FQUAD, CALL, FCONST32,
    XLOAD16 = 12, NEWOP = 13, MACRO = 14, FLOAD = 256 + 0x2C /* 0xFF 0x2C 0x00 */
};
static const struct {
    unsigned id;
    const char *name, *operands;
    unsigned length;
} rows[] = {
    {NOP, "nop", "", 1},
    {XMOV, "xmov", "x x", 3},               /* 10 bits of registers: 2 bytes */
    {XCONST8, "xconst8", "x s8", 3},
    {XADD, "xadd", "x x x", 3},
    {JUMP, "jump", "rel32", 5},
    {BR_TABLE, "br_table", "x table", 6},   /* then 4 bytes per entry */
    {XCONST64, "xconst64", "x i64", 10},
    {STACK_ALLOC, "stack_alloc", "u32", 5},
    {FQUAD, "fquad", "f f f f", 4},         /* 20 bits: 3 bytes */
    {CALL, "call", "func", 5},
    {FCONST32, "fconst32", "f f32", 6},
    {XLOAD16, "xload16", "x x off32", 7},
    {NEWOP, "newop", "x w16", 4},           /* a word this decoder does not know */
    {MACRO, "macro", "x x x x x x f s8 off32 rel32", 1 + 5 + 1 + 4 + 4}, /* 35 bits: 5 bytes */
    {FLOAD, "fload", "f x off32", 9},
};

static ot_table table;

static int setup(void **state)
{
    (void)state;
    char err[256];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (ot_table_add(&table, rows[i].id, rows[i].name, rows[i].operands, rows[i].length, 5, err,
                         sizeof err) != 0)
            return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    ot_table_free(&table);
    return 0;
}

static const ot_opcode *row(unsigned id)
{
    const ot_opcode *op = ot_table_find(&table, id);
    assert_non_null(op);
    return op;
}

static void operand_words_give_registers_and_the_immediate(void **state)
{
    (void)state;
    const ot_opcode *op = row(XADD);
    assert_string_equal(op->name, "xadd");
    assert_true(op->hdr == 1 && op->nregs == 3 && op->regf == 0 && op->pack == 2);
    assert_true(op->nimms == 0 && op->imm_bytes == 0 && op->length == 3);
    op = row(FQUAD);
    assert_true(op->nregs == 4 && op->regf == 0xF && op->pack == 3);
    op = row(FLOAD); /* behind the escape byte: 3 opcode bytes */
    assert_true(op->hdr == 3 && op->regf == 1 && op->nimms == 1 && op->imm[0] == OT_IMM_OFF32 && op->imm_bytes == 4);
    op = row(NOP);
    assert_true(op->nregs == 0 && op->pack == 0 && op->nimms == 0);
}

static void each_immediate_word_has_its_size(void **state)
{
    (void)state;
    static const struct {
        const char *word;
        ot_imm kind;
        unsigned bytes;
    } words[] = {
        {"s8", OT_IMM_S8, 1},       {"s16", OT_IMM_S16, 2},       {"s32", OT_IMM_S32, 4},
        {"i64", OT_IMM_I64, 8},     {"u32", OT_IMM_U32, 4},       {"off32", OT_IMM_OFF32, 4},
        {"rel32", OT_IMM_REL32, 4}, {"func", OT_IMM_FUNC, 4},     {"host", OT_IMM_HOST, 4},
        {"trap", OT_IMM_TRAP, 1},   {"f32", OT_IMM_F32, 4},       {"f64", OT_IMM_F64, 8},
        {"table", OT_IMM_TABLE, 4}, {"global", OT_IMM_GLOBAL, 4}, {"tableidx", OT_IMM_TABLEIDX, 4},
        {"type", OT_IMM_TYPE, 4},
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        char operands[32] = "x ";
        strcat(operands, words[i].word);
        char err[256];
        ot_table t = {0};
        /* One opcode byte, one register byte, the immediate. */
        assert_int_equal(ot_table_add(&t, 1, "op", operands, 2 + words[i].bytes, 5, err, sizeof err),
                         0);
        assert_int_equal(t.ops[0].nimms, 1);
        assert_int_equal(t.ops[0].imm[0], words[i].kind);
        assert_int_equal(t.ops[0].imm_size[0], words[i].bytes);
        assert_int_equal(t.ops[0].imm_bytes, words[i].bytes);
        /* Any other size is refused. */
        assert_int_equal(ot_table_add(&t, 2, "op2", operands, 3 + words[i].bytes, 5, err, sizeof err),
                         -1);
        ot_table_free(&t);
    }
    /* A word of a newer ISA is sized by what the length leaves. */
    assert_true(row(NEWOP)->imm[0] == OT_IMM_UNKNOWN && row(NEWOP)->imm_bytes == 2);
}

static void bad_rows_are_refused_saying_why(void **state)
{
    (void)state;
    static const struct {
        int64_t id;
        const char *name, *operands;
        int64_t length;
        const char *why;
    } bad[] = {
        {255, "esc", "", 1, "opcode id 255 is not an opcode number"}, /* the escape byte */
        {-1, "neg", "", 1, "opcode id -1 is not an opcode number"},
        {256 + 0x10000, "big", "", 3, "is not an opcode number"},
        {1, "short", "x x s32", 4, "opcode short (1), operands 'x x s32', length 4: "
                                   "the operands do not fit its length"}, /* 1 + 2 + 4 */
        {1, "long", "x", 3, "the operands do not fit its length"},   /* a byte left over */
        {1, "tooshort", "x x x", 2, "its length is too small"},
        {1, "count", "x table", 7, "the operands do not fit its length"}, /* count not u32 */
        {1, "table", "x table", 3, "the operands do not fit its length"}, /* no count */
        {1, "many", "x x x x x x x x x x x x x x x x x", 12, "more than 16 register operands"},
        {1, "after", "s8 x", 3, "a register operand follows an immediate"},
        {1, "nine", "s8 s8 s8 s8 s8 s8 s8 s8 s8", 10, "more than 8 immediates"},
        {1, "late", "x table s8", 7, "an immediate follows a jump table"},
        {1, "unknown", "x w0 s8", 5, "an unknown operand word is followed by another immediate"},
        {1, "nothing", "x w0", 2, "the operands do not fit its length"}, /* unknown, no bytes */
        {1, "huge", "x w9", 11, "the operands do not fit its length"},   /* over 8 bytes */
        {1, NULL, "", 1, "opcode 1 has no name or no operands"},
        {1, "", "", 1, "opcode 1 has no name or no operands"},
        {1, "noops", NULL, 1, "opcode 1 has no name or no operands"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ot_table t = {0};
        char err[256] = "";
        assert_int_equal(ot_table_add(&t, bad[i].id, bad[i].name, bad[i].operands, bad[i].length,
                                      5, err, sizeof err),
                         -1);
        if (!strstr(err, bad[i].why))
            fail_msg("row %zu: '%s' does not say '%s'", i, err, bad[i].why);
        assert_int_equal(t.n, 0);
        ot_table_free(&t);
    }
}

static void rows_come_in_id_order_and_are_found_by_id(void **state)
{
    (void)state;
    ot_table t = {0};
    char err[256];
    assert_int_equal(ot_table_add(&t, 5, "a", "", 1, 5, err, sizeof err), 0);
    assert_int_equal(ot_table_add(&t, 5, "b", "", 1, 5, err, sizeof err), -1);
    assert_non_null(strstr(err, "opcode id 5 is out of order"));
    assert_int_equal(ot_table_add(&t, 4, "c", "", 1, 5, err, sizeof err), -1);
    assert_int_equal(ot_table_add(&t, 300, "d", "x x", 5, 5, err, sizeof err), 0);
    assert_int_equal(t.n, 2);
    assert_string_equal(ot_table_find(&t, 300)->name, "d");
    assert_string_equal(ot_table_find(&t, 5)->name, "a");
    assert_null(ot_table_find(&t, 6));
    assert_null(ot_table_find(&t, 0));
    assert_null(ot_table_find(&t, 301));
    ot_table_free(&t);
    assert_null(ot_table_find(&t, 5));
}

/* Decode code[0, size) from a buffer of exactly that size (so that the
 * sanitizer sees any read past it): NULL and *out, or the error. */
static char *decode(const uint8_t *code, size_t size, ot_insn *out)
{
    uint8_t *copy = malloc(size ? size : 1);
    assert_non_null(copy);
    memcpy(copy, code, size);
    char err[256];
    int r = ot_decode(&table, copy, size, 0, out, err, sizeof err);
    free(copy);
    if (r == 0)
        out->table = NULL; /* pointed into the copy */
    return r == 0 ? NULL : strdup(err);
}

static ot_insn decoded(const uint8_t *code, size_t size)
{
    ot_insn insn;
    char *err = decode(code, size, &insn);
    if (err)
        fail_msg("%s", err);
    assert_int_equal(insn.length, size);
    return insn;
}

static void registers_are_packed_five_bits_each_from_bit_0(void **state)
{
    (void)state;
    /* xadd x1, x2, x3: 1 | 2 << 5 | 3 << 10 */
    ot_insn in = decoded((const uint8_t[]){XADD, 0x41, 0x0C}, 3);
    assert_ptr_equal(in.op, row(XADD));
    assert_true(in.reg[0] == 1 && in.reg[1] == 2 && in.reg[2] == 3);
    /* fquad f31, f0, f17, f5: 31 | 0 << 5 | 17 << 10 | 5 << 15 */
    in = decoded((const uint8_t[]){FQUAD, 0x1F, 0xC4, 0x02}, 4);
    assert_true(in.reg[0] == 31 && in.reg[1] == 0 && in.reg[2] == 17 && in.reg[3] == 5);
}

static void immediates_are_extended_by_their_kind(void **state)
{
    (void)state;
    static const struct {
        uint8_t code[10];
        size_t size;
        int64_t imm;
    } cases[] = {
        {{XCONST8, 0x01, 0x80}, 3, -128},                        /* s8: sign-extended */
        {{XCONST8, 0x01, 0x7F}, 3, 127},
        {{JUMP, 0xF0, 0xFF, 0xFF, 0xFF}, 5, -16},                /* rel32 */
        {{XLOAD16, 0x41, 0x00, 0xF8, 0xFF, 0xFF, 0xFF}, 7, -8},  /* off32 */
        {{STACK_ALLOC, 0xFF, 0xFF, 0xFF, 0xFF}, 5, 4294967295},  /* u32: zero-extended */
        {{CALL, 0xFF, 0xFF, 0xFF, 0xFF}, 5, 4294967295},         /* an index */
        {{FCONST32, 0x02, 0x00, 0x00, 0xC0, 0xBF}, 6, 0xBFC00000}, /* f32 bits of -1.5 */
        {{XCONST64, 0x03, 1, 2, 3, 4, 5, 6, 7, 0x80}, 10, (int64_t)0x8007060504030201u},
        {{NEWOP, 0x01, 0x34, 0x92}, 4, 0x9234},                  /* unknown: raw bits */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ot_insn in = decoded(cases[i].code, cases[i].size);
        if (in.imm != cases[i].imm)
            fail_msg("case %zu (%s): imm %lld, expected %lld", i, in.op->name, (long long)in.imm,
                     (long long)cases[i].imm);
    }
}

/* A macro op's row: more than 4 registers, several immediates in order. */
static void macro_rows_carry_many_registers_and_immediates(void **state)
{
    (void)state;
    const ot_opcode *op = row(MACRO);
    assert_true(op->nregs == 7 && op->regf == 0x40 && op->pack == 5 && op->nimms == 3);
    assert_true(op->imm[0] == OT_IMM_S8 && op->imm[1] == OT_IMM_OFF32 && op->imm[2] == OT_IMM_REL32);
    assert_true(op->imm_bytes == 9 && op->length == 15);
    /* registers 1 2 3 4 5 6 31, then -2, -8 and +20 */
    uint8_t code[15] = {MACRO};
    uint64_t pack = 1 | 2u << 5 | 3u << 10 | 4u << 15 | 5u << 20 | 6u << 25 | (uint64_t)31 << 30;
    for (int i = 0; i < 5; i++)
        code[1 + i] = (uint8_t)(pack >> (8 * i));
    code[6] = 0xFE;
    memcpy(code + 7, "\xf8\xff\xff\xff\x14\x00\x00\x00", 8);
    ot_insn in;
    char err[256];
    assert_int_equal(ot_decode(&table, code, sizeof code, 0, &in, err, sizeof err), 0);
    const uint8_t want[7] = {1, 2, 3, 4, 5, 6, 31};
    assert_memory_equal(in.reg, want, 7);
    assert_true(in.imms[0] == -2 && in.imms[1] == -8 && in.imms[2] == 20 && in.imm == -2);
    assert_int_equal(in.length, 15);
    code[5] |= 0x80; /* bit 39: past the 35 bits of registers */
    assert_int_equal(ot_decode(&table, code, sizeof code, 0, &in, err, sizeof err), -1);
    assert_non_null(strstr(err, "padding bits"));
}

/* The VM's own rows (reg_bits 8): a register operand is a byte, below 32;
 * a row says 5 or 8, nothing else. */
static void registers_of_byte_rows_are_one_byte_each(void **state)
{
    (void)state;
    ot_table t = {0};
    char err[256];
    assert_int_equal(ot_table_add(&t, 1, "xload", "x x off32", 7, 8, err, sizeof err), 0);
    assert_true(t.ops[0].pack == 2 && t.ops[0].reg_bits == 8);
    assert_int_equal(ot_table_add(&t, 2, "five", "x x off32", 7, 5, err, sizeof err), 0);
    assert_int_equal(ot_table_add(&t, 3, "odd", "x", 2, 6, err, sizeof err), -1);
    assert_non_null(strstr(err, "6 bits per register operand"));
    const uint8_t code[] = {1, 31, 7, 0xF8, 0xFF, 0xFF, 0xFF};
    ot_insn in;
    assert_int_equal(ot_decode(&t, code, sizeof code, 0, &in, err, sizeof err), 0);
    assert_true(in.reg[0] == 31 && in.reg[1] == 7 && in.imm == -8 && in.length == 7);
    const uint8_t high[] = {1, 32, 7, 0, 0, 0, 0};
    assert_int_equal(ot_decode(&t, high, sizeof high, 0, &in, err, sizeof err), -1);
    assert_non_null(strstr(err, "padding bits in register operand 1"));
    ot_table_free(&t);
}

static void extended_opcodes_follow_the_escape_byte(void **state)
{
    (void)state;
    /* fload f3, x4, 16 */
    ot_insn in = decoded((const uint8_t[]){0xFF, 0x2C, 0x00, 3 | 4 << 5, 0, 16, 0, 0, 0}, 9);
    assert_ptr_equal(in.op, row(FLOAD));
    assert_true(in.reg[0] == 3 && in.reg[1] == 4 && in.imm == 16);
}

static void jump_tables_follow_their_count(void **state)
{
    (void)state;
    const uint8_t code[] = {BR_TABLE, 7, 3, 0, 0, 0, /* x7, 3 entries: */
                            8, 0, 0, 0,   0xFC, 0xFF, 0xFF, 0xFF,   0, 0, 0, 0};
    ot_insn in;
    char err[256];
    assert_int_equal(ot_decode(&table, code, sizeof code, 0, &in, err, sizeof err), 0);
    assert_true(in.reg[0] == 7 && in.imm == 3 && in.length == sizeof code);
    assert_ptr_equal(in.table, code + 6);
    assert_int_equal(ot_jump_entry(&in, 0), 8);
    assert_int_equal(ot_jump_entry(&in, 1), -4);
    assert_int_equal(ot_jump_entry(&in, 2), 0);
}

/* The error decoding `code` gives contains `want`. */
static void refused(const uint8_t *code, size_t size, const char *want)
{
    ot_insn in;
    char *err = decode(code, size, &in);
    if (!err)
        fail_msg("%s was accepted, expected '%s'", in.op->name, want);
    if (!strstr(err, want))
        fail_msg("'%s' does not say '%s'", err, want);
    free(err);
}

static void bad_code_is_refused_saying_why(void **state)
{
    (void)state;
    refused((const uint8_t[]){0xEE}, 1, "unknown opcode 0xee");
    refused((const uint8_t[]){0xFF, 0x34, 0x12}, 3, "unknown extended opcode 0xff 0x1234");
    refused((const uint8_t[]){0xFF, 0x2C}, 2, "truncated extended opcode (0xff and 1 byte)");
    refused((const uint8_t[]){0xFF}, 1, "truncated extended opcode (0xff and 0 bytes)");
    refused((const uint8_t[]){XADD, 0x41}, 2,
            "truncated instruction: xadd takes 3 bytes, 2 are left");
    /* xmov (a row of 5-bit packs) uses 10 of its 16 register bits. */
    refused((const uint8_t[]){XMOV, 0, 0x80}, 3,
            "xmov has non-zero padding bits after its register operands");
    refused((const uint8_t[]){BR_TABLE, 1, 0, 0, 0, 0}, 6,
            "br_table has a jump table without entries");
    refused((const uint8_t[]){BR_TABLE, 1, 2, 0, 0, 0, 9, 0, 0, 0, 9, 0, 0}, 13,
            "the jump table of br_table (2 entries) runs past the end of the code");
    refused((const uint8_t[]){BR_TABLE, 1, 0xFF, 0xFF, 0xFF, 0xFF}, 6,
            "the jump table of br_table (4294967295 entries) runs past the end of the code");
    ot_insn in;
    char err[256];
    assert_int_equal(ot_decode(&table, (const uint8_t[]){NOP}, 1, 1, &in, err, sizeof err), -1);
    assert_string_equal(err, "offset 1 is past the end of the code (1 bytes)");
    /* Without a message. */
    assert_int_equal(ot_decode(&table, (const uint8_t[]){0xEE}, 1, 0, &in, NULL, 0), -1);
}

static void every_cut_instruction_is_refused(void **state)
{
    (void)state;
    for (size_t i = 0; i < table.n; i++) {
        const ot_opcode *op = &table.ops[i];
        uint8_t code[32] = {0};
        code[0] = op->hdr == 3 ? OT_ESCAPE_BYTE : (uint8_t)op->id;
        if (op->hdr == 3) {
            code[1] = (uint8_t)(op->id - 256);
            code[2] = (uint8_t)((op->id - 256) >> 8);
        }
        size_t full = op->length;
        if (op->imm[0] == OT_IMM_TABLE) {
            code[op->length - 4] = 1; /* one entry */
            full += 4;
        }
        decoded(code, full);
        for (size_t len = 1; len < full; len++) {
            ot_insn in;
            char *err = decode(code, len, &in);
            assert_non_null(err);
            assert_true(strstr(err, "truncated") || strstr(err, "past the end"));
            free(err);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(operand_words_give_registers_and_the_immediate),
        cmocka_unit_test(each_immediate_word_has_its_size),
        cmocka_unit_test(bad_rows_are_refused_saying_why),
        cmocka_unit_test(rows_come_in_id_order_and_are_found_by_id),
        cmocka_unit_test(registers_are_packed_five_bits_each_from_bit_0),
        cmocka_unit_test(immediates_are_extended_by_their_kind),
        cmocka_unit_test(macro_rows_carry_many_registers_and_immediates),
        cmocka_unit_test(registers_of_byte_rows_are_one_byte_each),
        cmocka_unit_test(extended_opcodes_follow_the_escape_byte),
        cmocka_unit_test(jump_tables_follow_their_count),
        cmocka_unit_test(bad_code_is_refused_saying_why),
        cmocka_unit_test(every_cut_instruction_is_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
