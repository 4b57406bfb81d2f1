/*
 * test_sqlext_decode.c - the decoding core of the SQLite extension
 * (sql/ext): the decoder of stored opcode rows (format/opcode_decode.h,
 * specified by test_opcode_rows.c), fed the compiled-in opcode table as
 * the collector stores it, decodes every opcode with assorted operands
 * exactly as the VM's own decoder does, and the extension prints them as
 * its disassembler does; a changed stored table changes the decoding;
 * every cut instruction is refused, and random bytes are accepted or
 * refused as the VM's decoder does, never read past their end; pcs map to
 * the function containing them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bytes.h"
#include "disasm.h"
#include "insn.h"
#include "builtin_table.h"
#include "insn_text.h"
#include "isa.h"
#include "opcode_decode.h"
#include "pc_map.h"

static ot_table builtin;

static int setup(void **state)
{
    (void)state;
    char err[256];
    return sx_builtin_table(&builtin, err, sizeof err);
}

static int teardown(void **state)
{
    (void)state;
    ot_table_free(&builtin);
    return 0;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Immediates worth trying, by kind (those that do not fit are skipped). */
static const int64_t interesting[] = {
    0, 1, -1, 2, 5, 17, 127, -128, 128, 255, 32767, -32768, 65535, INT32_MAX, INT32_MIN,
    (int64_t)UINT32_MAX, INT64_MAX, INT64_MIN,
    0x3ff8000000000000, /* 1.5 as f64 bits */
    0x7ff0000000000000, /* inf */
    0x7ff8000000000001, /* a NaN */
    0x3fc00000,         /* 1.5 as f32 bits */
    0x7fc00000,         /* f32 NaN */
    0x00000001,         /* f32 denormal */
    PVM_TRAP_COUNT,     /* a trap kind with no name */
};

/* Encode insn, then check that ot_decode agrees with pvm_decode on its
 * length and sx_format with pvm_format_insn on its text. */
static void check_same(const pvm_insn *insn, const pvm_module *m, const sx_names *names)
{
    pvm_buf b = {0};
    size_t n = pvm_encode(&b, insn);
    assert_true(n > 0);
    pvm_insn ref;
    assert_null(pvm_decode(b.data, b.len, 0, &ref));
    char want[512];
    pvm_format_insn(want, sizeof want, &ref, 0, m);

    ot_insn got;
    char err[256];
    if (ot_decode(&builtin, b.data, b.len, 0, &got, err, sizeof err) != 0)
        fail_msg("%s: %s", pvm_ops[insn->op].name, err);
    assert_int_equal(got.length, ref.length);
    assert_int_equal(got.op->id, insn->op);
    sx_text text = {0};
    sx_format(&text, &got, names);
    assert_false(text.failed);
    if (strcmp(text.data, want) != 0)
        fail_msg("%s: got '%s', the disassembler says '%s'", pvm_ops[insn->op].name, text.data,
                 want);
    sx_text_free(&text);
    pvm_buf_free(&b);
}

static void builtin_table_matches_the_vm_decoder(void **state)
{
    (void)state;
    unsigned checked = 0;
    uint8_t entries[4 * 3];
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        if (!pvm_ops[op].name)
            continue;
        const pvm_format_info *fmt = &pvm_formats[pvm_ops[op].format];
        const size_t ninteresting = sizeof interesting / sizeof interesting[0];
        for (size_t k = 0; k < ninteresting; k++) {
            pvm_insn insn = {.op = (uint16_t)op};
            for (unsigned r = 0; r < PVM_MAX_REGS; r++)
                insn.reg[r] = (uint8_t)(next_random() % 32);
            int fits = 1;
            for (unsigned i = 0; i < fmt->nimms; i++) { /* a macro op: the next values */
                insn.imms[i] = interesting[(k + i) % ninteresting];
                fits &= pvm_imm_fits((pvm_imm_kind)fmt->imm[i], insn.imms[i]);
                if (fmt->imm[i] != PVM_IMM_TABLE)
                    continue;
                fits &= insn.imms[i] >= 1 && insn.imms[i] <= 3;
                for (unsigned e = 0; e < sizeof entries; e += 4)
                    pvm_wr32(entries + e, (uint32_t)(next_random() % 200) - 100);
                insn.table = entries;
            }
            if (!fits)
                continue;
            check_same(&insn, NULL, NULL);
            checked++;
        }
    }
    assert_true(checked > pvm_op_count() * 2);
    assert_int_equal(builtin.n, pvm_op_count());
}

static void function_operands_are_named(void **state)
{
    (void)state;
    int call = pvm_op_by_name("call", 4);
    assert_true(call >= 0);
    pvm_function funcs[3] = {{.name = "main"}, {.name = "two words"}, {.name = "q\"uote"}};
    pvm_module m = {.funcs = funcs, .nfuncs = 3};
    sx_names names = {0};
    for (uint32_t i = 0; i < 3; i++)
        assert_int_equal(sx_names_add(&names, i, funcs[i].name), 0);
    assert_int_equal(sx_names_add(&names, 2, "again"), -1); /* indices must increase */
    for (int64_t f = 0; f < 5; f++) /* 3 and 4: no such function, "#N" */
        check_same(&(pvm_insn){.op = (uint16_t)call, .imm = f}, &m, &names);
    sx_names_free(&names);
}

/* The stored rows of the compiled-in table, with the row of opcode `op`
 * replaced by one of an older run's ISA (5-bit register packs; NULL name:
 * leave the row out). */
static void stored_table(ot_table *t, unsigned op, const char *name, const char *operands,
                         int64_t length)
{
    char err[256];
    *t = (ot_table){0};
    for (size_t i = 0; i < builtin.n; i++) {
        const ot_opcode *o = &builtin.ops[i];
        if (o->id == op && !name)
            continue;
        if (o->id == op) {
            assert_int_equal(ot_table_add(t, o->id, name, operands, length, 5, err, sizeof err), 0);
            continue;
        }
        char words[64] = "";
        for (unsigned r = 0; r < o->nregs; r++)
            strcat(words, (o->regf >> r & 1) ? "f " : "x ");
        static const char *const imm_word[] = {
            [OT_IMM_S8] = "s8",       [OT_IMM_S16] = "s16",     [OT_IMM_S32] = "s32",
            [OT_IMM_I64] = "i64",     [OT_IMM_U32] = "u32",     [OT_IMM_OFF32] = "off32",
            [OT_IMM_REL32] = "rel32", [OT_IMM_FUNC] = "func",   [OT_IMM_HOST] = "host",
            [OT_IMM_TRAP] = "trap",   [OT_IMM_F32] = "f32",     [OT_IMM_F64] = "f64",
            [OT_IMM_TABLE] = "table", [OT_IMM_GLOBAL] = "global", [OT_IMM_TABLEIDX] = "tableidx",
            [OT_IMM_TYPE] = "type",
        };
        for (unsigned i = 0; i < o->nimms; i++)
            strcat(strcat(words, i ? " " : ""), imm_word[o->imm[i]]);
        assert_int_equal(ot_table_add(t, o->id, o->name, words, o->length, o->reg_bits, err, sizeof err), 0);
    }
}

static char *text_of(const ot_table *t, const uint8_t *code, size_t size)
{
    ot_insn insn;
    char err[256];
    if (ot_decode(t, code, size, 0, &insn, err, sizeof err) != 0)
        return strdup(err);
    sx_text text = {0};
    sx_format(&text, &insn, NULL);
    return text.data;
}

static void a_stored_table_decides_the_decoding(void **state)
{
    (void)state;
    int add = pvm_op_by_name("xadd64", 6);
    assert_true(add >= 0 && add < 255);
    uint8_t code[3] = {(uint8_t)add, 1 | 2 << 5, 3 << 2}; /* xadd64 x1, x2, x3 */
    ot_table t;
    char *s;

    stored_table(&t, (unsigned)add, "xadd64_old", "x x x", 3); /* renamed */
    assert_string_equal(s = text_of(&t, code, 3), "xadd64_old x1, x2, x3");
    free(s);
    ot_table_free(&t);

    stored_table(&t, (unsigned)add, NULL, NULL, 0); /* not in that run's ISA */
    assert_non_null(strstr(s = text_of(&t, code, 3), "unknown opcode"));
    free(s);
    ot_table_free(&t);

    /* An operand word this extension does not know: shown raw, sized by the length. */
    uint8_t longer[5] = {(uint8_t)add, 1 | 2 << 5, 3 << 2, 0x34, 0x12};
    stored_table(&t, (unsigned)add, "xadd64_new", "x x x w16", 5);
    assert_string_equal(s = text_of(&t, longer, 5), "xadd64_new x1, x2, x3, 0x1234");
    free(s);
    assert_non_null(strstr(s = text_of(&t, longer, 4), "truncated"));
    free(s);
    ot_table_free(&t);
}

/* Decode code[0, size) from a buffer of exactly that size (so that the
 * sanitizer sees any read past it); returns the error or NULL. */
static char *decode_error(const uint8_t *code, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1);
    assert_non_null(copy);
    memcpy(copy, code, size);
    ot_insn insn;
    char err[256];
    int r = ot_decode(&builtin, copy, size, 0, &insn, err, sizeof err);
    free(copy);
    return r == 0 ? NULL : strdup(err);
}

/* Every proper prefix of every compiled-in opcode's encoding is refused
 * as truncated (test_opcode_rows.c has the other faults of bad code). */
static void every_cut_instruction_is_refused(void **state)
{
    (void)state;
    for (size_t i = 0; i < builtin.n; i++) {
        const ot_opcode *o = &builtin.ops[i];
        uint8_t code[256 + 4] = {0};
        code[0] = o->hdr == 3 ? PVM_ESCAPE_BYTE : (uint8_t)o->id;
        if (o->hdr == 3)
            pvm_wr16(code + 1, (uint16_t)(o->id - 256));
        int table = o->nimms > 0 && o->imm[o->nimms - 1] == OT_IMM_TABLE; /* always the last */
        if (table)
            code[o->length - 4] = 1; /* one entry */
        size_t full = o->length + (table ? 4 : 0);
        char *e = decode_error(code, full);
        if (e)
            fail_msg("%s: %s", o->name, e);
        for (size_t len = 1; len < full; len++) {
            e = decode_error(code, len);
            assert_non_null(e);
            assert_true(strstr(e, "truncated") || strstr(e, "past the end"));
            free(e);
        }
    }
}

/* Random bytes: decoding walks until the end or the first error, agrees
 * with the VM's decoder on every step, and reads nothing past the buffer
 * (allocated at its exact size, for the sanitizer). */
static void random_bytes_decode_like_the_vm(void **state)
{
    (void)state;
    for (int round = 0; round < 20000; round++) {
        size_t size = 1 + next_random() % 24;
        uint8_t *code = malloc(size);
        assert_non_null(code);
        for (size_t i = 0; i < size; i++)
            code[i] = (uint8_t)next_random();
        if (round % 3 == 0)
            code[0] = (uint8_t)(next_random() % 64); /* mostly real opcodes */
        for (size_t off = 0; off < size;) {
            ot_insn insn;
            pvm_insn ref;
            char err[256];
            int bad = ot_decode(&builtin, code, size, off, &insn, err, sizeof err) != 0;
            assert_int_equal(bad, pvm_decode(code, size, off, &ref) != NULL);
            if (bad)
                break;
            assert_int_equal(insn.length, ref.length);
            sx_text text = {0};
            sx_format(&text, &insn, NULL);
            assert_false(text.failed);
            sx_text_free(&text);
            off += insn.length;
        }
        free(code);
    }
}

static void pcs_map_to_functions(void **state)
{
    (void)state;
    sx_pc_map m = {0};
    assert_null(sx_pc_map_find(&m, 100));
    assert_int_equal(sx_pc_map_add(&m, 7, 1000, 50), 0);
    assert_int_equal(sx_pc_map_add(&m, 3, 100, 10), 0);
    assert_int_equal(sx_pc_map_add(&m, 9, 110, 1), 0);
    assert_int_equal(sx_pc_map_add(&m, 4, UINT64_MAX - 4, 4), 0);
    sx_pc_map_sort(&m);
    static const struct {
        uint64_t pc;
        int64_t id;
    } cases[] = {{0, -1},   {99, -1},  {100, 3},  {109, 3},          {110, 9},
                 {111, -1}, {999, -1}, {1000, 7}, {1049, 7},         {1050, -1},
                 {UINT64_MAX - 4, 4},  {UINT64_MAX - 1, 4},          {UINT64_MAX, -1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const sx_range *r = sx_pc_map_find(&m, cases[i].pc);
        assert_int_equal(r ? r->function_id : -1, cases[i].id);
    }
    sx_pc_map_free(&m);
}

static void text_grows(void **state)
{
    (void)state;
    sx_text t = {0};
    for (int i = 0; i < 1000; i++)
        sx_text_printf(&t, "%s%d", i ? "," : "", i);
    sx_text_printf(&t, "%300s", "");
    assert_false(t.failed);
    assert_int_equal(strlen(t.data), t.len);
    assert_int_equal(strncmp(t.data, "0,1,2,3", 7), 0);
    sx_text_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(builtin_table_matches_the_vm_decoder),
        cmocka_unit_test(function_operands_are_named),
        cmocka_unit_test(a_stored_table_decides_the_decoding),
        cmocka_unit_test(every_cut_instruction_is_refused),
        cmocka_unit_test(random_bytes_decode_like_the_vm),
        cmocka_unit_test(pcs_map_to_functions),
        cmocka_unit_test(text_grows),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
