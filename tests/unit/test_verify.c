/*
 * test_verify.c - the verifier's specification: which modules it accepts,
 * and for each kind of malformed function or module, the message naming the
 * function, the offset and the problem.  Code is built with pvm_encode and
 * raw bytes, modules with pvm_module_add_*.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "insn.h"
#include "module.h"
#include "verify.h"

/* ---- building code and modules ------------------------------------------ */

/* An instruction: INSN(xadd32, .reg = {0, 1, 2}), INSN(jump, .imm = -5). */
#define INSN(name, ...) ((pvm_insn){.op = PVM_OP_##name, __VA_ARGS__})

/* Append insn to b; returns its offset. */
static uint32_t put(pvm_buf *b, pvm_insn insn)
{
    size_t at = b->len;
    assert_true(pvm_encode(b, &insn) > 0);
    return (uint32_t)at;
}

static void put_bytes(pvm_buf *b, const uint8_t *bytes, size_t n)
{
    pvm_buf_append(b, bytes, n);
    assert_false(b->failed);
}

/* A jump table's entries as little-endian bytes (at most 8). */
typedef struct table_bytes {
    uint8_t bytes[32];
} table_bytes;

static table_bytes table_of(const int32_t *entries, unsigned n)
{
    table_bytes t = {{0}};
    assert_true(n <= 8);
    for (unsigned i = 0; i < n; i++)
        pvm_wr32(t.bytes + 4 * i, (uint32_t)entries[i]);
    return t;
}

/* Add the code in b as function `name` (taking no arguments, returning
 * nothing) and empty b for the next function. */
static void add_function(pvm_module *m, const char *name, pvm_buf *b)
{
    pvm_error err;
    assert_false(b->failed);
    int index = pvm_module_add_function(m, name, "", "", b->data, b->len, &err);
    if (index < 0)
        fail_msg("add_function: %s", err.msg);
    pvm_buf_free(b);
    *b = (pvm_buf){0};
}

static pvm_module *new_module(void)
{
    pvm_module *m = pvm_module_new();
    assert_non_null(m);
    return m;
}

/* A module with one function `f` whose code is b. */
static pvm_module *module_of(pvm_buf *b)
{
    pvm_module *m = new_module();
    add_function(m, "f", b);
    return m;
}

static void assert_verifies(pvm_module *m)
{
    pvm_error err = {{0}};
    if (pvm_verify_module(m, &err) != 0)
        fail_msg("rejected: %s", err.msg);
    assert_true(m->verified);
    assert_non_null(m->insn_starts);
}

/* m is rejected with a message containing every one of the NULL-terminated
 * substrings; frees m. */
static void assert_rejected(pvm_module *m, ...)
{
    pvm_error err = {{0}};
    int verified = pvm_verify_module(m, &err) == 0;
    va_list ap;
    va_start(ap, m);
    for (const char *want; (want = va_arg(ap, const char *)) != NULL;) {
        if (verified)
            fail_msg("verified, but should be rejected with \"%s\"", want);
        if (!strstr(err.msg, want))
            fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
    }
    va_end(ap);
    assert_false(m->verified);
    pvm_module_free(m);
}

/* A module whose one function is the given bytes. */
static pvm_module *module_of_bytes(const uint8_t *bytes, size_t n)
{
    pvm_buf b = {0};
    put_bytes(&b, bytes, n);
    return module_of(&b);
}

static int is_start(const pvm_module *m, size_t i)
{
    return m->insn_starts[i / 8] >> (i % 8) & 1;
}

/* ---- accepted modules ------------------------------------------------------ */

static void valid_module_verifies_and_marks_exactly_the_instruction_starts(void **state)
{
    (void)state;
    pvm_module *m = new_module();
    uint8_t expected[256] = {0};
    size_t base = 0;
    pvm_buf b = {0};

    /* f: a loop with a jump table, a call, a host call and an extended op. */
    const int32_t entries[] = {18, 34}; /* to the call and to the ret */
    table_bytes t = table_of(entries, 2);
    uint32_t at[8];
    unsigned n = 0;
    at[n++] = put(&b, INSN(xconst8, .reg = {0}, .imm = 3));                   /*  0 */
    at[n++] = put(&b, INSN(br_table, .reg = {0}, .imm = 2, .table = t.bytes)); /*  3 */
    at[n++] = put(&b, INSN(heap_size, .reg = {1}));                           /* 17 */
    at[n++] = put(&b, INSN(call, .imm = 1));                                  /* 21 */
    at[n++] = put(&b, INSN(call_host, .imm = 0));                             /* 26 */
    at[n++] = put(&b, INSN(br_if, .reg = {0}, .imm = -31));                   /* 31 */
    at[n++] = put(&b, INSN(ret));                                             /* 37 */
    const uint32_t offsets[] = {0, 3, 17, 21, 26, 31, 37};
    assert_int_equal(n, 7);
    assert_memory_equal(at, offsets, sizeof offsets);
    for (unsigned i = 0; i < n; i++)
        expected[base + at[i]] = 1;
    base += b.len;
    add_function(m, "f", &b);

    /* g: a backward jump to its own start is fine. */
    at[0] = put(&b, INSN(nop));
    at[1] = put(&b, INSN(jump, .imm = -1));
    expected[base + at[0]] = expected[base + at[1]] = 1;
    add_function(m, "g", &b);

    pvm_error err;
    assert_int_equal(pvm_module_add_import(m, "host", &err), 0);
    m->entry = 0;
    assert_verifies(m);
    for (size_t i = 0; i < m->code_size; i++)
        if (is_start(m, i) != expected[i])
            fail_msg("byte %zu: insn_starts says %d, expected %d", i, is_start(m, i), expected[i]);
    pvm_module_free(m);
}

/* Give m one of each item an immediate can name beyond its functions: an
 * import, a type, a global, a table. */
static void add_one_of_each(pvm_module *m)
{
    pvm_error err;
    assert_int_equal(pvm_module_add_import(m, "host", &err), 0);
    assert_int_equal(pvm_module_add_type(m, "i", "", &err), 0);
    m->nglobals = 1;
    m->ntables = 1;
}

/* An instance of op with every register 0 and immediates that verify:
 * branches to themselves, index 0 (of function, import, global, table or
 * type), a real trap. */
static pvm_insn sample_of(unsigned op, const uint8_t *self_table)
{
    pvm_insn insn = {.op = (uint16_t)op};
    const pvm_format_info *fmt = pvm_insn_format(&insn);
    for (unsigned k = 0; k < fmt->nimms; k++)
        switch (fmt->imm[k]) {
        case PVM_IMM_TRAP: insn.imms[k] = PVM_TRAP_UNREACHABLE; break;
        case PVM_IMM_TABLE: insn.imms[k] = 1; insn.table = self_table; break;
        default: break;
        }
    return insn;
}

static void every_opcode_verifies_and_every_truncation_of_it_is_rejected(void **state)
{
    (void)state;
    const uint8_t self_table[4] = {0}; /* one entry: offset 0 */
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        if (!pvm_op_lookup(op))
            continue;
        pvm_buf b = {0};
        put(&b, sample_of(op, self_table));
        size_t len = b.len;
        put(&b, INSN(ret));
        pvm_module *m = module_of(&b);
        add_one_of_each(m);
        assert_verifies(m);

        for (size_t cut = 1; cut < len; cut++) {
            pvm_module *t = module_of_bytes(m->code, cut);
            pvm_error terr = {{0}};
            assert_int_equal(pvm_verify_module(t, &terr), -1);
            if (!strstr(terr.msg, "function f, offset 0: truncated") &&
                !strstr(terr.msg, "function f, offset 0: jump table runs past the end"))
                fail_msg("%s cut to %zu bytes: %s", pvm_ops[op].name, cut, terr.msg);
            pvm_module_free(t);
        }
        pvm_module_free(m);
    }
}

static void every_register_pack_with_stray_padding_bits_is_rejected(void **state)
{
    (void)state;
    const uint8_t self_table[4] = {0};
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        unsigned nregs = pvm_op_lookup(op) ? pvm_formats[pvm_ops[op].format].nregs : 0;
        if (nregs == 0)
            continue;
        pvm_buf b = {0};
        put(&b, sample_of(op, self_table));
        put(&b, INSN(ret));
        size_t last_pack_byte = (PVM_OP_IS_EXT(op) ? 3u : 1u) +
                                pvm_formats[pvm_ops[op].format].pack_bytes - 1;
        b.data[last_pack_byte] |= 0x80; /* the pack's last bit is padding */
        pvm_module *m = module_of(&b);
        pvm_error err = {{0}};
        add_one_of_each(m);
        if (pvm_verify_module(m, &err) == 0 ||
            !strstr(err.msg, "function f, offset 0: non-zero padding bits"))
            fail_msg("%s with a stray padding bit: %s", pvm_ops[op].name,
                     m->verified ? "verified" : err.msg);
        pvm_module_free(m);
    }
}

static void data_segment_exactly_filling_the_heap_verifies(void **state)
{
    (void)state;
    pvm_buf b = {0};
    put(&b, INSN(ret));
    pvm_module *m = module_of(&b);
    m->heap_min = m->heap_max = 16;
    pvm_error err;
    const uint8_t bytes[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    assert_int_equal(pvm_module_add_data(m, 8, bytes, 8, &err), 0);
    assert_int_equal(pvm_module_add_data(m, 16, bytes, 0, &err), 1);
    assert_verifies(m);
    pvm_module_free(m);
}

static void module_without_functions_verifies(void **state)
{
    (void)state;
    pvm_module *m = new_module();
    assert_verifies(m);
    pvm_module_free(m);
}

/* ---- rejected: instructions that do not decode --------------------------- */

static void truncated_instruction_is_rejected(void **state)
{
    (void)state;
    pvm_buf b = {0};
    put(&b, INSN(nop));
    put(&b, INSN(xconst32, .reg = {0}, .imm = 7));
    b.len--;
    assert_rejected(module_of(&b), "function f, offset 1: truncated instruction", NULL);
}

static void truncated_extended_opcode_is_rejected(void **state)
{
    (void)state;
    const uint8_t code[] = {PVM_OP_nop, PVM_ESCAPE_BYTE, 0x01};
    assert_rejected(module_of_bytes(code, sizeof code),
                    "function f, offset 1: truncated extended opcode", NULL);
}

static void unknown_primary_opcode_is_rejected(void **state)
{
    (void)state;
    const uint8_t code[] = {PVM_OP_nop, PVM_OP_nop, PVM_OP_PRIMARY_END, PVM_OP_ret};
    assert_rejected(module_of_bytes(code, sizeof code), "function f, offset 2: invalid opcode",
                    NULL);
}

static void unknown_extended_opcode_is_rejected(void **state)
{
    (void)state;
    const uint8_t code[] = {PVM_OP_nop, PVM_ESCAPE_BYTE, PVM_OP_EXT_COUNT & 0xFF,
                            PVM_OP_EXT_COUNT >> 8, 0, PVM_OP_ret};
    assert_rejected(module_of_bytes(code, sizeof code),
                    "function f, offset 1: invalid extended opcode", NULL);
    const uint8_t last[] = {PVM_ESCAPE_BYTE, 0xFF, 0xFF, 0, PVM_OP_ret};
    assert_rejected(module_of_bytes(last, sizeof last),
                    "function f, offset 0: invalid extended opcode", NULL);
}

static void stray_register_padding_bits_are_rejected(void **state)
{
    (void)state;
    /* xmov x1, x1: a byte per register, below 32; bit 7 is padding. */
    const uint8_t code[] = {PVM_OP_nop, PVM_OP_xmov, 0x01, 0x81, PVM_OP_ret};
    assert_rejected(module_of_bytes(code, sizeof code),
                    "function f, offset 1: non-zero padding bits in a register operand", NULL);
}

/* ---- rejected: branches that do not land on an instruction start ---------- */

static void branch_into_the_middle_of_an_instruction_is_rejected(void **state)
{
    (void)state;
    pvm_buf b = {0};
    put(&b, INSN(xconst32, .reg = {0}, .imm = 7)); /* 0..5 */
    put(&b, INSN(jump, .imm = -4));                /* to 2 */
    assert_rejected(module_of(&b),
                    "function f, offset 6: branch to offset 2 lands inside the instruction at offset 0",
                    NULL);
}

static void branch_before_the_start_of_the_function_is_rejected(void **state)
{
    (void)state;
    pvm_buf b = {0};
    put(&b, INSN(nop));
    put(&b, INSN(jump, .imm = -2));
    assert_rejected(module_of(&b),
                    "function f, offset 1: branch to offset -1 is outside the function (6 bytes)",
                    NULL);
}

static void branch_past_the_end_of_the_function_is_rejected(void **state)
{
    (void)state;
    pvm_buf b = {0};
    put(&b, INSN(br_if, .reg = {0}, .imm = 7)); /* one past the ret */
    put(&b, INSN(ret));
    assert_rejected(module_of(&b),
                    "function f, offset 0: branch to offset 7 is outside the function (7 bytes)",
                    NULL);

    put(&b, INSN(br_if_not, .reg = {0}, .imm = INT32_MAX));
    put(&b, INSN(ret));
    assert_rejected(module_of(&b), "function f, offset 0: branch to offset 2147483647 is outside",
                    NULL);
}

static void branch_into_another_function_is_rejected(void **state)
{
    (void)state;
    pvm_module *m = new_module();
    pvm_buf b = {0};
    put(&b, INSN(ret));
    add_function(m, "f", &b);
    put(&b, INSN(jump, .imm = -1)); /* f's ret, just before g in the code */
    add_function(m, "g", &b);
    put(&b, INSN(ret));
    add_function(m, "h", &b);
    assert_rejected(m, "function g, offset 0: branch to offset -1 is outside the function", NULL);

    m = new_module();
    put(&b, INSN(jump, .imm = 5)); /* g's first instruction */
    add_function(m, "f", &b);
    put(&b, INSN(ret));
    add_function(m, "g", &b);
    assert_rejected(m, "function f, offset 0: branch to offset 5 is outside the function (5 bytes)",
                    NULL);
}

/* f: br_table x0 [entries] at 0 (14 bytes with two entries), ret at 14 and 15. */
static pvm_module *module_with_table(int32_t first, int32_t second)
{
    const int32_t entries[] = {first, second};
    table_bytes t = table_of(entries, 2);
    pvm_buf b = {0};
    put(&b, INSN(br_table, .reg = {0}, .imm = 2, .table = t.bytes));
    put(&b, INSN(ret));
    put(&b, INSN(ret));
    return module_of(&b);
}

static void jump_table_entries_must_land_on_instruction_starts(void **state)
{
    (void)state;
    pvm_module *m = module_with_table(14, 15);
    assert_verifies(m);
    pvm_module_free(m);

    assert_rejected(module_with_table(14, 3),
                    "function f, offset 0: jump table entry 1 to offset 3 lands inside the instruction at offset 0",
                    NULL);
    assert_rejected(module_with_table(16, 14),
                    "function f, offset 0: jump table entry 0 to offset 16 is outside the function (16 bytes)",
                    NULL);
    assert_rejected(module_with_table(15, -1),
                    "function f, offset 0: jump table entry 1 to offset -1 is outside", NULL);
}

static void jump_table_without_entries_is_rejected(void **state)
{
    (void)state;
    const uint8_t code[] = {PVM_OP_nop, PVM_OP_br_table, 0, 0, 0, 0, 0, PVM_OP_ret};
    assert_rejected(module_of_bytes(code, sizeof code),
                    "function f, offset 1: jump table without entries", NULL);
}

static void jump_table_count_running_past_the_end_is_rejected(void **state)
{
    (void)state;
    /* Three entries announced, two present. */
    const uint8_t short_table[] = {PVM_OP_br_table, 0, 3, 0, 0, 0, 6, 0, 0, 0, 6, 0, 0, 0};
    assert_rejected(module_of_bytes(short_table, sizeof short_table),
                    "function f, offset 0: jump table runs past the end of the code", NULL);
    /* A count whose entries would need 16 GiB. */
    const uint8_t huge[] = {PVM_OP_nop, PVM_OP_br_table, 0, 0xFF, 0xFF, 0xFF, 0xFF,
                            0, 0, 0, 0, PVM_OP_ret};
    assert_rejected(module_of_bytes(huge, sizeof huge),
                    "function f, offset 1: jump table runs past the end of the code", NULL);
}

/* ---- rejected: operands naming nothing ------------------------------------- */

static void call_to_a_nonexistent_function_is_rejected(void **state)
{
    (void)state;
    pvm_buf b = {0};
    put(&b, INSN(nop));
    put(&b, INSN(call, .imm = 1));
    put(&b, INSN(ret));
    assert_rejected(module_of(&b),
                    "function f, offset 1: call to function 1, but the module has 1", NULL);
}

static void call_host_to_a_nonexistent_import_is_rejected(void **state)
{
    (void)state;
    pvm_buf b = {0};
    put(&b, INSN(call_host, .imm = 1));
    put(&b, INSN(ret));
    pvm_module *m = module_of(&b);
    pvm_error err;
    assert_int_equal(pvm_module_add_import(m, "print_i64", &err), 0);
    assert_rejected(m, "function f, offset 0: call_host to import 1, but the module has 1", NULL);
}

static void func_ref_of_a_nonexistent_function_is_rejected(void **state)
{
    (void)state;
    pvm_buf b = {0};
    put(&b, INSN(func_ref, .reg = {3}, .imm = 1));
    put(&b, INSN(ret));
    assert_rejected(module_of(&b),
                    "function f, offset 0: func_ref to function 1, but the module has 1", NULL);
}

static void global_table_and_type_indices_out_of_range_are_rejected(void **state)
{
    (void)state;
    const struct {
        pvm_insn insn;
        const char *message;
    } cases[] = {
        {INSN(xglobal_get, .imm = 1), "xglobal_get of global 1, but the module has 1"},
        {INSN(xglobal_set, .imm = UINT32_MAX),
         "xglobal_set of global 4294967295, but the module has 1"},
        {INSN(fglobal_get, .imm = 1), "fglobal_get of global 1, but the module has 1"},
        {INSN(fglobal_set, .imm = 2), "fglobal_set of global 2, but the module has 1"},
        {INSN(table_get, .imm = 1), "table_get of table 1, but the module has 1"},
        {INSN(table_set, .imm = 1), "table_set of table 1, but the module has 1"},
        {INSN(table_size, .imm = 7), "table_size of table 7, but the module has 1"},
        {INSN(table_grow, .imm = UINT32_MAX),
         "table_grow of table 4294967295, but the module has 1"},
        {INSN(sigcheck, .imm = 1), "sigcheck of type 1, but the module has 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pvm_buf b = {0};
        put(&b, INSN(nop));
        put(&b, cases[i].insn);
        put(&b, INSN(ret));
        pvm_module *m = module_of(&b);
        add_one_of_each(m);
        char want[128];
        snprintf(want, sizeof want, "function f, offset 1: %s", cases[i].message);
        assert_rejected(m, want, NULL);
    }
    /* A module without globals, tables or types has no index 0 either. */
    pvm_buf b = {0};
    put(&b, INSN(xglobal_get, .imm = 0));
    put(&b, INSN(ret));
    assert_rejected(module_of(&b), "function f, offset 0: xglobal_get of global 0, but the module has 0",
                    NULL);
    put(&b, INSN(table_size, .imm = 0));
    put(&b, INSN(ret));
    assert_rejected(module_of(&b), "function f, offset 0: table_size of table 0, but the module has 0",
                    NULL);
    put(&b, INSN(sigcheck, .imm = 0));
    put(&b, INSN(ret));
    assert_rejected(module_of(&b), "function f, offset 0: sigcheck of type 0, but the module has 0",
                    NULL);
}

static void unknown_trap_kind_is_rejected(void **state)
{
    (void)state;
    const int64_t bad[] = {PVM_TRAP_COUNT, 200, 255};
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pvm_buf b = {0};
        put(&b, INSN(nop));
        put(&b, INSN(trap, .imm = bad[i]));
        char want[64];
        snprintf(want, sizeof want, "function f, offset 1: unknown trap kind %lld",
                 (long long)bad[i]);
        assert_rejected(module_of(&b), want, NULL);
    }
}

static void trap_kind_none_is_rejected_because_it_would_look_like_a_return(void **state)
{
    (void)state;
    pvm_buf b = {0};
    put(&b, INSN(trap, .imm = PVM_TRAP_NONE));
    assert_rejected(module_of(&b), "function f, offset 0: trap kind none is not a trap", NULL);
}

/* ---- rejected: control falling off the end ------------------------------- */

static void last_instruction_falling_through_is_rejected(void **state)
{
    (void)state;
    pvm_buf b = {0};
    put(&b, INSN(ret));
    put(&b, INSN(nop));
    assert_rejected(module_of(&b),
                    "function f, offset 1: last instruction nop falls through the end", NULL);

    put(&b, INSN(br_if, .reg = {0}, .imm = 0)); /* a conditional branch may fall through */
    assert_rejected(module_of(&b),
                    "function f, offset 0: last instruction br_if falls through the end", NULL);

    put(&b, INSN(call, .imm = 0)); /* a call returns to the next instruction */
    assert_rejected(module_of(&b),
                    "function f, offset 0: last instruction call falls through the end", NULL);
}

static void empty_function_is_rejected(void **state)
{
    (void)state;
    pvm_module *m = new_module();
    pvm_buf b = {0};
    put(&b, INSN(ret));
    add_function(m, "f", &b);
    add_function(m, "empty", &b);
    assert_rejected(m, "function empty, offset 0: empty function", NULL);
}

/* ---- rejected: module tables ----------------------------------------------- */

static void entry_index_out_of_range_is_rejected(void **state)
{
    (void)state;
    pvm_buf b = {0};
    put(&b, INSN(ret));
    pvm_module *m = module_of(&b);
    m->entry = 1;
    assert_rejected(m, "entry function 1, but the module has 1 functions", NULL);
}

static void heap_limits_out_of_order_or_too_large_are_rejected(void **state)
{
    (void)state;
    pvm_module *m = new_module();
    m->heap_min = 131072;
    m->heap_max = 65536;
    assert_rejected(m, "heap limits 131072..65536 are invalid", NULL);

    m = new_module();
    m->heap_max = PVM_MAX_HEAP + 1;
    assert_rejected(m, "heap limits 0..8589934593 are invalid", NULL);
}

static void global_and_table_counts_above_the_limits_are_rejected(void **state)
{
    (void)state;
    pvm_module *m = new_module();
    m->nglobals = PVM_MAX_GLOBALS;
    m->ntables = PVM_MAX_TABLES;
    assert_verifies(m);
    pvm_module_free(m);

    m = new_module();
    m->nglobals = PVM_MAX_GLOBALS + 1;
    assert_rejected(m, "1048577 globals and 0 tables exceed the limits (1048576, 1048576)", NULL);
    m = new_module();
    m->ntables = PVM_MAX_TABLES + 1;
    assert_rejected(m, "0 globals and 1048577 tables exceed the limits", NULL);
}

static void data_segment_outside_the_heap_is_rejected(void **state)
{
    (void)state;
    const uint8_t bytes[8] = {0};
    const struct {
        uint64_t offset;
        uint32_t size;
        const char *message;
    } cases[] = {
        {12, 8, "data segment 1 (8 bytes at 12) lies outside the initial heap of 16 bytes"},
        {17, 0, "data segment 1 (0 bytes at 17) lies outside"},
        {UINT64_MAX, 1, "data segment 1 (1 bytes at 18446744073709551615) lies outside"},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pvm_module *m = new_module();
        m->heap_min = 16;
        m->heap_max = 65536;
        pvm_error err;
        assert_int_equal(pvm_module_add_data(m, 0, bytes, 4, &err), 0);
        assert_int_equal(pvm_module_add_data(m, cases[i].offset, bytes, cases[i].size, &err), 1);
        assert_rejected(m, cases[i].message, NULL);
    }
}

static void overlapping_functions_are_rejected(void **state)
{
    (void)state;
    pvm_module *m = new_module();
    pvm_buf b = {0};
    put(&b, INSN(jump, .imm = 0));
    add_function(m, "f", &b);
    put(&b, INSN(ret));
    add_function(m, "g", &b);
    m->funcs[1].offset = 1; /* inside f's jump */
    m->funcs[1].size = 1;
    assert_rejected(m, "function g: code at 1 (1 bytes) overlaps another function", NULL);
}

/* ---- how errors are reported ----------------------------------------------- */

static void the_error_names_the_faulty_function_and_unverifies_the_module(void **state)
{
    (void)state;
    pvm_module *m = new_module();
    pvm_buf b = {0};
    put(&b, INSN(ret));
    add_function(m, "good", &b);
    assert_verifies(m);

    put(&b, INSN(nop));
    put(&b, INSN(nop));
    put(&b, INSN(xconst8, .reg = {3}, .imm = 1));
    add_function(m, "bad", &b);
    assert_rejected(m, "function bad, offset 2: last instruction xconst8 falls through", NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(valid_module_verifies_and_marks_exactly_the_instruction_starts),
        cmocka_unit_test(every_opcode_verifies_and_every_truncation_of_it_is_rejected),
        cmocka_unit_test(every_register_pack_with_stray_padding_bits_is_rejected),
        cmocka_unit_test(data_segment_exactly_filling_the_heap_verifies),
        cmocka_unit_test(module_without_functions_verifies),
        cmocka_unit_test(truncated_instruction_is_rejected),
        cmocka_unit_test(truncated_extended_opcode_is_rejected),
        cmocka_unit_test(unknown_primary_opcode_is_rejected),
        cmocka_unit_test(unknown_extended_opcode_is_rejected),
        cmocka_unit_test(stray_register_padding_bits_are_rejected),
        cmocka_unit_test(branch_into_the_middle_of_an_instruction_is_rejected),
        cmocka_unit_test(branch_before_the_start_of_the_function_is_rejected),
        cmocka_unit_test(branch_past_the_end_of_the_function_is_rejected),
        cmocka_unit_test(branch_into_another_function_is_rejected),
        cmocka_unit_test(jump_table_entries_must_land_on_instruction_starts),
        cmocka_unit_test(jump_table_without_entries_is_rejected),
        cmocka_unit_test(jump_table_count_running_past_the_end_is_rejected),
        cmocka_unit_test(call_to_a_nonexistent_function_is_rejected),
        cmocka_unit_test(call_host_to_a_nonexistent_import_is_rejected),
        cmocka_unit_test(func_ref_of_a_nonexistent_function_is_rejected),
        cmocka_unit_test(global_table_and_type_indices_out_of_range_are_rejected),
        cmocka_unit_test(unknown_trap_kind_is_rejected),
        cmocka_unit_test(trap_kind_none_is_rejected_because_it_would_look_like_a_return),
        cmocka_unit_test(last_instruction_falling_through_is_rejected),
        cmocka_unit_test(empty_function_is_rejected),
        cmocka_unit_test(entry_index_out_of_range_is_rejected),
        cmocka_unit_test(heap_limits_out_of_order_or_too_large_are_rejected),
        cmocka_unit_test(global_and_table_counts_above_the_limits_are_rejected),
        cmocka_unit_test(data_segment_outside_the_heap_is_rejected),
        cmocka_unit_test(overlapping_functions_are_rejected),
        cmocka_unit_test(the_error_names_the_faulty_function_and_unverifies_the_module),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
