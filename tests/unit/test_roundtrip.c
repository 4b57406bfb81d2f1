/*
 * test_roundtrip.c - generated from the opcode table: every opcode in
 * pvm_ops[], with boundary values in every operand, goes
 *     encode -> pvm_decode -> pvm_format_insn -> pvm_assemble
 * and comes back as the identical bytes.  Whole modules (labels, offsets
 * that are not instruction starts, quoted names, every directive)
 * disassemble to text that re-assembles identically.  And the decoder
 * rejects what is not an instruction: every truncation, stray padding bits,
 * unknown primary and extended opcodes, empty or overlong jump tables.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm.h"
#include "disasm.h"
#include "insn.h"

/* ---- boundary operand values ------------------------------------------- */

/* Register numbers for the (up to four) register operands: all lowest, all
 * highest, the highest in each slot alone, and all different (so that
 * swapped operands would show). */
static const uint8_t reg_patterns[][4] = {
    {0, 0, 0, 0}, {31, 31, 31, 31}, {31, 0, 0, 0}, {0, 31, 0, 0},
    {0, 0, 31, 0}, {0, 0, 0, 31},   {1, 2, 3, 4},
};

#define N_PATTERNS (sizeof reg_patterns / sizeof reg_patterns[0])
#define MAX_VALUES 32

/* Float bit patterns: zeros, infinities, NaNs with payloads and signs,
 * denormals, extremes and inexact decimals. */
static const uint32_t f32_bits[] = {
    0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000,
    0x7fa00001, 0x7f800001, 0xffc12345, 0x00000001, 0x807fffff, 0x00800000,
    0x7f7fffff, 0xff7fffff, 0x3f800000, 0x3dcccccd, 0x4b800001,
};
static const uint64_t f64_bits[] = {
    0x0000000000000000, 0x8000000000000000, 0x7ff0000000000000,
    0xfff0000000000000, 0x7ff8000000000000, 0xfff8000000000000,
    0x7ff0000000000001, 0x7ff4000000000abc, 0xfff8000000012345,
    0x0000000000000001, 0x800fffffffffffff, 0x0010000000000000,
    0x7fefffffffffffff, 0xffefffffffffffff, 0x3ff0000000000000,
    0x3fb999999999999a, 0x4340000000000001,
};

/* The boundary values of immediate kind k (for a jump table: counts of
 * entries, see table_entries); returns how many. */
static size_t imm_values(pvm_imm_kind k, int64_t *v)
{
    size_t n = 0;
    switch (k) {
    case PVM_IMM_NONE:
    case PVM_IMM_COUNT: v[n++] = 0; break;
    case PVM_IMM_S8: v[n++] = INT8_MIN; v[n++] = INT8_MAX; v[n++] = 0; v[n++] = -1; break;
    case PVM_IMM_S16: v[n++] = INT16_MIN; v[n++] = INT16_MAX; v[n++] = 0; v[n++] = -1; break;
    case PVM_IMM_S32:
    case PVM_IMM_OFF32:
    case PVM_IMM_REL32:
        v[n++] = INT32_MIN; v[n++] = INT32_MAX; v[n++] = 0; v[n++] = -1; v[n++] = 1;
        break;
    case PVM_IMM_I64: v[n++] = INT64_MIN; v[n++] = INT64_MAX; v[n++] = 0; v[n++] = -1; break;
    case PVM_IMM_U32:
    case PVM_IMM_FUNC:
    case PVM_IMM_HOST:
    case PVM_IMM_GLOBAL:
    case PVM_IMM_TABLEIDX:
    case PVM_IMM_TYPE: v[n++] = 0; v[n++] = 1; v[n++] = UINT32_MAX; break;
    case PVM_IMM_TRAP:
        for (unsigned kind = 0; kind <= PVM_TRAP_COUNT; kind++)
            v[n++] = kind; /* every named kind, and the first unnamed */
        v[n++] = UINT8_MAX;
        break;
    case PVM_IMM_F32:
        for (size_t i = 0; i < sizeof f32_bits / sizeof f32_bits[0]; i++)
            v[n++] = f32_bits[i];
        break;
    case PVM_IMM_F64:
        for (size_t i = 0; i < sizeof f64_bits / sizeof f64_bits[0]; i++)
            v[n++] = (int64_t)f64_bits[i];
        break;
    case PVM_IMM_TABLE: v[n++] = 1; v[n++] = 6; break;
    }
    assert_true(n <= MAX_VALUES);
    return n;
}

/* Jump table entries: the first `count` of these, as little-endian bytes. */
static const int32_t table_targets[] = {INT32_MIN, INT32_MAX, 0, -1, 4, 12};

static void table_entries(uint8_t *bytes, int64_t count)
{
    for (int64_t i = 0; i < count; i++)
        pvm_wr32(bytes + 4 * i, (uint32_t)table_targets[i]);
}

/* ---- the round trip ------------------------------------------------------ */

/* Assemble one line of text inside a function; the function's code. */
static pvm_module *assemble_line(const char *line, pvm_error *err)
{
    char src[1200];
    snprintf(src, sizeof src, ".func t\n    %s\n.end\n", line);
    return pvm_assemble("roundtrip.pasm", src, strlen(src), err);
}

/* encode -> decode -> text -> assemble gives back the encoded bytes. */
static void check_round_trip(const pvm_insn *insn)
{
    const char *name = pvm_ops[insn->op].name;
    pvm_buf encoded = {0};
    size_t len = pvm_encode(&encoded, insn);
    if (len == 0)
        fail_msg("%s: pvm_encode refused imm %lld", name, (long long)insn->imm);

    pvm_insn decoded;
    const char *msg = pvm_decode(encoded.data, encoded.len, 0, &decoded);
    if (msg)
        fail_msg("%s: pvm_decode: %s", name, msg);
    assert_int_equal(decoded.length, len);
    assert_int_equal(decoded.op, insn->op);

    char text[1024];
    int n = pvm_format_insn(text, sizeof text, &decoded, 0, NULL);
    assert_true(n > 0 && (size_t)n < sizeof text);
    assert_int_equal((size_t)n, strlen(text));

    pvm_error err;
    pvm_module *m = assemble_line(text, &err);
    if (!m)
        fail_msg("%s: \"%s\" does not assemble: %s", name, text, err.msg);
    if (m->funcs[0].size != len || memcmp(m->code, encoded.data, len) != 0)
        fail_msg("%s: \"%s\" assembles to different bytes", name, text);
    pvm_module_free(m);
    pvm_buf_free(&encoded);
}

/* The index of the format's jump-table immediate, or -1. */
static int table_imm(const pvm_format_info *fmt)
{
    for (unsigned k = 0; k < fmt->nimms; k++)
        if (fmt->imm[k] == PVM_IMM_TABLE)
            return (int)k;
    return -1;
}

static void test_every_opcode_round_trips_with_boundary_operands(void **state)
{
    (void)state;
    unsigned checked_ops = 0;
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        if (!pvm_op_lookup(op))
            continue;
        const pvm_format_info *fmt = &pvm_formats[pvm_ops[op].format];
        /* Every boundary value of each immediate (a macro op has several:
         * the v-th value of each, cycling through the shorter lists). */
        int64_t values[PVM_MAX_IMMS][MAX_VALUES];
        size_t nvalues[PVM_MAX_IMMS], most = 1;
        for (unsigned k = 0; k < fmt->nimms; k++) {
            nvalues[k] = imm_values((pvm_imm_kind)fmt->imm[k], values[k]);
            most = nvalues[k] > most ? nvalues[k] : most;
        }
        int table = table_imm(fmt);
        for (size_t p = 0; p < N_PATTERNS; p++) {
            for (size_t v = 0; v < most; v++) {
                uint8_t entries[4 * sizeof table_targets / sizeof table_targets[0]];
                pvm_insn insn = {.op = (uint16_t)op, .table = entries};
                for (unsigned k = 0; k < fmt->nimms; k++)
                    insn.imms[k] = values[k][v % nvalues[k]];
                for (unsigned r = 0; r < fmt->nregs; r++)
                    insn.reg[r] = reg_patterns[p][r % 4];
                if (table >= 0)
                    table_entries(entries, insn.imms[table]);
                check_round_trip(&insn);
            }
        }
        checked_ops++;
    }
    assert_int_equal(checked_ops, pvm_op_count());
}

/* ---- how operands are written ------------------------------------------- */

static void expect_text(pvm_insn insn, const char *expected)
{
    char text[256];
    pvm_format_insn(text, sizeof text, &insn, 0, NULL);
    assert_string_equal(text, expected);
}

#define INSN(name, ...) ((pvm_insn){.op = PVM_OP_##name, __VA_ARGS__})

static void test_operands_are_written_in_table_order(void **state)
{
    (void)state;
    expect_text(INSN(xadd32, .reg = {1, 2, 3}), "xadd32 x1, x2, x3");
    expect_text(INSN(fselect, .reg = {4, 5, 6, 7}), "fselect f4, x5, f6, f7");
    expect_text(INSN(xload32_u, .reg = {0, 1}, .imm = -8), "xload32_u x0, x1, -8");
    expect_text(INSN(xconst64, .reg = {9}, .imm = INT64_MIN),
                "xconst64 x9, -9223372036854775808");
    expect_text(INSN(stack_alloc, .imm = UINT32_MAX), "stack_alloc 4294967295");
    expect_text(INSN(ret), "ret");
}

static void test_branch_targets_are_signed_offsets_without_labels(void **state)
{
    (void)state;
    expect_text(INSN(jump, .imm = 16), "jump +16");
    expect_text(INSN(jump, .imm = 0), "jump +0");
    expect_text(INSN(br_if, .reg = {3}, .imm = -4), "br_if x3, -4");
    uint8_t table[8];
    pvm_wr32(table, 12);
    pvm_wr32(table + 4, (uint32_t)-5);
    expect_text(INSN(br_table, .reg = {2}, .imm = 2, .table = table), "br_table x2, [+12, -5]");
}

static void test_calls_traps_and_floats_are_written_readably(void **state)
{
    (void)state;
    expect_text(INSN(call, .imm = 7), "call #7");
    expect_text(INSN(call_host, .imm = 0), "call_host #0");
    expect_text(INSN(trap, .imm = PVM_TRAP_UNREACHABLE), "trap unreachable");
    expect_text(INSN(trap, .imm = 200), "trap 200");
    expect_text(INSN(fconst32, .imm = 0x3fc00000), "fconst32 f0, 1.5");
    expect_text(INSN(fconst32, .imm = 0x80000000), "fconst32 f0, -0");
    expect_text(INSN(fconst32, .imm = 0xff800000), "fconst32 f0, -inf");
    expect_text(INSN(fconst32, .imm = 0x3dcccccd), "fconst32 f0, 0.100000001");
    expect_text(INSN(fconst32, .imm = 0x7fc00000), "fconst32 f0, 0x7fc00000");
    expect_text(INSN(fconst64, .imm = 0x3fb999999999999a), "fconst64 f0, 0.10000000000000001");
    expect_text(INSN(fconst64, .imm = (int64_t)0xfff8000000000001),
                "fconst64 f0, 0xfff8000000000001");
}

static void test_globals_tables_types_and_function_refs_are_indices(void **state)
{
    (void)state;
    expect_text(INSN(func_ref, .reg = {5}, .imm = 7), "func_ref x5, #7");
    expect_text(INSN(sigcheck, .reg = {31}, .imm = UINT32_MAX), "sigcheck x31, #4294967295");
    expect_text(INSN(xglobal_get, .reg = {1}, .imm = 3), "xglobal_get x1, #3");
    expect_text(INSN(fglobal_set, .reg = {2}, .imm = 0), "fglobal_set f2, #0");
    expect_text(INSN(table_get, .reg = {1, 2}, .imm = 1), "table_get x1, x2, #1");
    expect_text(INSN(table_grow, .reg = {1, 2, 3}, .imm = 9), "table_grow x1, x2, x3, #9");
}

static void test_format_insn_truncates_like_snprintf(void **state)
{
    (void)state;
    char text[8];
    pvm_insn insn = INSN(xadd64, .reg = {10, 20, 30});
    int n = pvm_format_insn(text, sizeof text, &insn, 0, NULL);
    assert_int_equal(n, strlen("xadd64 x10, x20, x30"));
    assert_string_equal(text, "xadd64 ");
}

/* ---- whole modules ------------------------------------------------------ */

/* The module's disassembly (NULL if it has undecodable code). */
static char *disassemble(const pvm_module *m, bool hex, pvm_error *err)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    assert_non_null(out);
    pvm_disasm_options opt = {.hex = hex};
    int r = pvm_disassemble_module(out, m, &opt, err);
    fclose(out);
    if (r == 0)
        return text;
    assert_int_equal(size, 0); /* nothing printed */
    free(text);
    return NULL;
}

static void write_module(const pvm_module *m, pvm_buf *out)
{
    pvm_error err;
    *out = (pvm_buf){0};
    if (pvm_module_write(m, out, &err) < 0)
        fail_msg("pvm_module_write: %s", err.msg);
}

/* disassemble -> assemble -> write gives the bytes m writes; with and
 * without --hex.  Returns the disassembly (without hex). */
static char *check_module_round_trip(const pvm_module *m)
{
    pvm_buf want;
    write_module(m, &want);
    char *kept = NULL;
    for (int hex = 0; hex <= 1; hex++) {
        pvm_error err;
        char *text = disassemble(m, hex, &err);
        if (!text)
            fail_msg("disassembly failed: %s", err.msg);
        pvm_module *again = pvm_assemble("dis.pasm", text, strlen(text), &err);
        if (!again)
            fail_msg("disassembly does not assemble: %s\n%s", err.msg, text);
        pvm_buf got;
        write_module(again, &got);
        if (got.len != want.len || memcmp(got.data, want.data, got.len) != 0)
            fail_msg("disassembly re-assembles to different bytes:\n%s", text);
        pvm_buf_free(&got);
        pvm_module_free(again);
        if (hex)
            free(text);
        else
            kept = text;
    }
    pvm_buf_free(&want);
    return kept;
}

static pvm_module *assemble_ok(const char *src)
{
    pvm_error err;
    pvm_module *m = pvm_assemble("t.pasm", src, strlen(src), &err);
    if (!m)
        fail_msg("%s", err.msg);
    return m;
}

static void expect_contains(const char *text, const char *part)
{
    if (!strstr(text, part))
        fail_msg("expected \"%s\" in:\n%s", part, text);
}

static void test_module_with_every_directive_re_assembles(void **state)
{
    (void)state;
    pvm_module *m = assemble_ok(
        ".entry \"odd name\"\n"
        ".memory 256 4096\n"
        ".globals 3\n"
        ".tables 1048576\n"
        ".import print\n"
        ".import \"with space\"\n"
        ".type\n"
        ".type i32 f64 -> i64\n"
        ".type funcref externref -> externref\n"
        ".type -> f32 f32\n"
        ".data 0 \"\\x00\\x01\\xff\\\"\\\\\\n\\t\\r' A\"\n"
        ".data 4000 \"\"\n"
        ".func main i32 i64 f32 f64 -> i64 f64\n"
        "    call \"odd name\"\n"
        "    call_host \"with space\"\n"
        "    call_host #9\n"
        "    call #99\n"
        "    func_ref x1, \"odd name\"\n"
        "    sigcheck x1, #3\n"
        "    xglobal_set x1, #5\n"
        "    table_size x2, #0\n"
        "    ret\n"
        ".end\n"
        ".func \"odd name\" -> i32\n"
        "    ret\n"
        ".end\n"
        ".func \"\"\n"
        ".end\n"
        ".func refs funcref externref -> funcref\n"
        "    ret\n"
        ".end\n");
    char *text = check_module_round_trip(m);
    expect_contains(text, ".entry \"odd name\"\n");
    expect_contains(text, ".memory 256 4096\n.globals 3\n.tables 1048576\n");
    expect_contains(text, ".type                               ; #0\n");
    expect_contains(text, ".type i32 f64 -> i64                ; #1\n");
    expect_contains(text, ".type funcref externref -> externref ; #2\n");
    expect_contains(text, ".type -> f32 f32                    ; #3\n");
    expect_contains(text, "func_ref x1, \"odd name\" ");
    expect_contains(text, "xglobal_set x1, #5 ");
    expect_contains(text, ".import \"with space\"\n");
    expect_contains(text, ".data 0 \"\\x00\\x01\\xff\\\"\\\\\\n\\t\\r' A\"\n");
    expect_contains(text, ".func main i32 i64 f32 f64 -> i64 f64 ");
    expect_contains(text, "call #99 ");
    expect_contains(text, "call_host #9 ");
    expect_contains(text, ".func \"\" ");
    expect_contains(text, ".func refs funcref externref -> funcref ");
    free(text);
    pvm_module_free(m);
}

static void test_labels_mark_branch_targets_and_odd_targets_stay_offsets(void **state)
{
    (void)state;
    pvm_module *m = assemble_ok(
        ".func f\n"
        "top:\n"
        "    xconst8 x0, 1\n"       /* +0, 3 bytes */
        "    br_if x0, end\n"       /* +3 */
        "    jump +1\n"             /* +9: into its own middle */
        "    jump -1000\n"          /* +14: before the function */
        "    br_table x0, [top, -16, +3, end, +100]\n" /* +19, 26 bytes */
        "    jump top\n"           /* +45 */
        "end:\n"                   /* +50 = 0x32 */
        ".end\n");
    char *text = check_module_round_trip(m);
    expect_contains(text, ".L0:\n    xconst8 x0, 1");
    expect_contains(text, "br_if x0, .L32 ");
    expect_contains(text, "jump +1 ");
    expect_contains(text, "jump -1000 ");
    expect_contains(text, "br_table x0, [.L0, .L3, +3, .L32, +100] ");
    expect_contains(text, ".L3:\n    br_if");
    expect_contains(text, "jump .L0 ");
    expect_contains(text, ".L32:\n.end\n");
    free(text);
    pvm_module_free(m);
}

static void test_entry_defaults_to_main_and_noentry_survives(void **state)
{
    (void)state;
    pvm_module *m = assemble_ok(".func other\n.end\n.func main\n.end\n");
    assert_int_equal(m->entry, 1);
    pvm_module_free(m);

    m = assemble_ok(".noentry\n.func main\n.end\n");
    assert_int_equal(m->entry, PVM_NO_ENTRY);
    char *text = check_module_round_trip(m);
    expect_contains(text, ".noentry\n");
    free(text);
    pvm_module_free(m);

    m = assemble_ok(".entry #0\n.func other\n.end\n");
    assert_int_equal(m->entry, 0);
    pvm_module_free(m);
}

static void test_listing_shows_offsets_addresses_and_hex_bytes(void **state)
{
    (void)state;
    pvm_module *m = assemble_ok(".func a\n    nop\n.end\n.func b\n    nop\n    xmov x1, x2\n.end\n");
    pvm_error err;
    char *text = disassemble(m, true, &err);
    assert_non_null(text);
    char line[128];
    snprintf(line, sizeof line, "%-36s; #1, 4 bytes @00000001\n", ".func b");
    expect_contains(text, line);
    snprintf(line, sizeof line, "    %-32s; +0001 @00000002  %02x 01 02\n", "xmov x1, x2",
             PVM_OP_xmov);
    expect_contains(text, line);
    free(text);
    pvm_module_free(m);
}

static void test_undecodable_code_is_reported_by_function_and_offset(void **state)
{
    (void)state;
    pvm_module *m = pvm_module_new();
    assert_non_null(m);
    const uint8_t code[] = {PVM_OP_nop, PVM_OP_nop, PVM_ESCAPE_BYTE, 0xff, 0xff};
    pvm_error err;
    assert_true(pvm_module_add_function(m, "broken", "", "", code, sizeof code, &err) == 0);
    assert_null(disassemble(m, false, &err));
    assert_string_equal(err.msg, "function broken, offset 0x2: invalid extended opcode");
    pvm_module_free(m);
}

/* ---- the decoder's rejections --------------------------------------------- */

/* Decode bytes from an allocation of exactly n bytes, so that a read past
 * the end is caught by the sanitizers. */
static const char *decode_exact(const uint8_t *bytes, size_t n)
{
    uint8_t *copy = malloc(n);
    assert_non_null(copy);
    memcpy(copy, bytes, n);
    pvm_insn insn;
    const char *msg = pvm_decode(copy, n, 0, &insn);
    free(copy);
    return msg;
}

static void test_decode_rejects_every_truncation(void **state)
{
    (void)state;
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        if (!pvm_op_lookup(op))
            continue;
        uint8_t table[4 * 6];
        table_entries(table, 6);
        pvm_insn insn = {.op = (uint16_t)op, .reg = {1, 2, 3, 4}, .table = table};
        int t = table_imm(&pvm_formats[pvm_ops[op].format]);
        if (t >= 0)
            insn.imms[t] = 6;
        pvm_buf b = {0};
        size_t len = pvm_encode(&b, &insn);
        assert_true(len > 0);
        assert_null(decode_exact(b.data, len));
        for (size_t cut = 1; cut < len; cut++)
            if (!decode_exact(b.data, cut))
                fail_msg("%s cut to %zu of %zu bytes decodes", pvm_ops[op].name, cut, len);
        pvm_buf_free(&b);
    }
}

static void test_decode_rejects_nonzero_padding_bits(void **state)
{
    (void)state;
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        if (!pvm_op_lookup(op))
            continue;
        const pvm_format_info *fmt = &pvm_formats[pvm_ops[op].format];
        if (fmt->nregs == 0)
            continue; /* no register, no padding bits */
        uint8_t table[4];
        table_entries(table, 1);
        pvm_insn insn = {.op = (uint16_t)op, .table = table};
        int t = table_imm(fmt);
        if (t >= 0)
            insn.imms[t] = 1;
        pvm_buf b = {0};
        size_t len = pvm_encode(&b, &insn);
        size_t pack = len - fmt->pack_bytes - fmt->imm_bytes - 4 * (t >= 0);
        b.data[pack + fmt->pack_bytes - 1] |= 0x80; /* the highest padding bit */
        const char *msg = decode_exact(b.data, len);
        pvm_buf_free(&b);
        if (!msg || !strstr(msg, "padding"))
            fail_msg("%s with a padding bit set: %s", pvm_ops[op].name, msg ? msg : "decodes");
    }
}

static void test_decode_rejects_invalid_primary_opcodes(void **state)
{
    (void)state;
    unsigned invalid = 0;
    for (unsigned byte = 0; byte < PVM_ESCAPE_BYTE; byte++) {
        if (pvm_op_lookup(byte))
            continue;
        uint8_t code[16] = {(uint8_t)byte};
        assert_string_equal(decode_exact(code, sizeof code), "invalid opcode");
        invalid++;
    }
    assert_int_equal(invalid, PVM_ESCAPE_BYTE - PVM_OP_PRIMARY_END);
}

static void test_decode_rejects_invalid_extended_opcodes(void **state)
{
    (void)state;
    unsigned invalid = 0;
    for (unsigned code = 0; code <= UINT16_MAX; code++) {
        if (pvm_op_lookup(PVM_OP_EXT_FIRST + code))
            continue;
        uint8_t bytes[16] = {PVM_ESCAPE_BYTE, (uint8_t)code, (uint8_t)(code >> 8)};
        assert_string_equal(decode_exact(bytes, sizeof bytes), "invalid extended opcode");
        invalid++;
    }
    assert_int_equal(invalid, 65536 - PVM_OP_EXT_COUNT);
}

static void test_decode_rejects_empty_and_overlong_jump_tables(void **state)
{
    (void)state;
    uint8_t code[16] = {PVM_OP_br_table, 0};
    pvm_wr32(code + 2, 0);
    assert_string_equal(decode_exact(code, 6), "jump table without entries");
    pvm_wr32(code + 2, 3); /* 3 entries need 12 bytes; 10 follow */
    assert_string_equal(decode_exact(code, 16), "jump table runs past the end of the code");
    pvm_wr32(code + 2, UINT32_MAX);
    assert_string_equal(decode_exact(code, 16), "jump table runs past the end of the code");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_opcode_round_trips_with_boundary_operands),
        cmocka_unit_test(test_operands_are_written_in_table_order),
        cmocka_unit_test(test_branch_targets_are_signed_offsets_without_labels),
        cmocka_unit_test(test_calls_traps_and_floats_are_written_readably),
        cmocka_unit_test(test_globals_tables_types_and_function_refs_are_indices),
        cmocka_unit_test(test_format_insn_truncates_like_snprintf),
        cmocka_unit_test(test_module_with_every_directive_re_assembles),
        cmocka_unit_test(test_labels_mark_branch_targets_and_odd_targets_stay_offsets),
        cmocka_unit_test(test_entry_defaults_to_main_and_noentry_survives),
        cmocka_unit_test(test_listing_shows_offsets_addresses_and_hex_bytes),
        cmocka_unit_test(test_undecodable_code_is_reported_by_function_and_offset),
        cmocka_unit_test(test_decode_rejects_every_truncation),
        cmocka_unit_test(test_decode_rejects_nonzero_padding_bits),
        cmocka_unit_test(test_decode_rejects_invalid_primary_opcodes),
        cmocka_unit_test(test_decode_rejects_invalid_extended_opcodes),
        cmocka_unit_test(test_decode_rejects_empty_and_overlong_jump_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
