/*
 * test_asm_errors.c - the assembler's error messages: one row per kind of
 * mistake, each with the "LINE:COL: message" it must produce.  And no input
 * makes the assembler crash: prefixes and corruptions of a valid program
 * are assembled or rejected with a positioned message.
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

/* Wraps a line of code in a function, as line 2 of the file. */
#define IN_FUNC(line) ".func f\n" line "\n.end\n"

static const struct error_case {
    const char *what;
    const char *source;
    const char *message; /* expected after "t.pasm:" */
} cases[] = {
    /* instructions */
    {"unknown mnemonic", IN_FUNC("    frobnicate x0"), "2:5: unknown mnemonic 'frobnicate'"},
    {"too few operands", IN_FUNC("    xadd32 x0, x1"),
     "2:18: 'xadd32' takes 3 operands (x, x, x), found 2"},
    {"no operands at all", IN_FUNC("    xconst8"), "2:12: 'xconst8' takes 2 operands (x, s8), found 0"},
    {"too many operands", IN_FUNC("    xmov x0, x1, x2"), "2:16: 'xmov' takes 2 operands (x, x), found more"},
    {"operand to an op that takes none", IN_FUNC("    ret x0"), "2:9: 'ret' takes no operands"},
    {"missing comma", IN_FUNC("    xmov x0 x1"), "2:13: expected ',', found 'x1'"},
    {"junk after the operands", IN_FUNC("    xmov x0, x1 x2"), "2:17: expected end of line, found 'x2'"},
    {"f register for an x operand", IN_FUNC("    xadd32 x0, f1, x2"),
     "2:16: expected an x register, found 'f1'"},
    {"x register for an f operand", IN_FUNC("    fmov f0, x1"), "2:14: expected an f register, found 'x1'"},
    {"register out of range", IN_FUNC("    xmov x32, x0"), "2:10: register x32 out of range (x0..x31)"},
    {"register with a leading zero", IN_FUNC("    xmov x01, x0"), "2:10: expected an x register, found 'x01'"},
    {"s8 immediate too large", IN_FUNC("    xconst8 x0, 128"), "2:17: 128 is out of range for s8 (-128..127)"},
    {"s16 immediate too small", IN_FUNC("    xconst16 x0, -32769"),
     "2:18: -32769 is out of range for s16 (-32768..32767)"},
    {"s32 immediate too large", IN_FUNC("    xconst32 x0, 0x80000000"),
     "2:18: 0x80000000 is out of range for s32"},
    {"i64 immediate too large", IN_FUNC("    xconst64 x0, 0x10000000000000000"),
     "2:18: integer too large: '0x10000000000000000'"},
    {"negative u32", IN_FUNC("    stack_alloc -1"), "2:17: -1 is out of range for u32 (0..4294967295)"},
    {"memory offset too large", IN_FUNC("    xload8_u x0, x1, 2147483648"),
     "2:22: 2147483648 is out of range for offset"},
    {"not an integer", IN_FUNC("    xconst8 x0, 12z"), "2:17: not an integer: '12z'"},
    {"name for an integer", IN_FUNC("    xconst8 x0, foo"), "2:17: expected an integer, found 'foo'"},
    {"unknown trap kind", IN_FUNC("    trap oops"), "2:10: unknown trap kind 'oops'"},
    {"trap number out of range", IN_FUNC("    trap 256"), "2:10: 256 is out of range for trap (0..255)"},
    {"bad float", IN_FUNC("    fconst32 f0, 1.5x"), "2:18: not a float: '1.5x'"},
    {"float overflow", IN_FUNC("    fconst32 f0, 1e39"), "2:18: float out of range for f32: '1e39'"},
    {"f32 raw bits too wide", IN_FUNC("    fconst32 f0, 0x100000000"),
     "2:18: raw bits do not fit an f32"},
    {"signed raw bits", IN_FUNC("    fconst64 f0, -0x1"), "2:18: raw float bits take no sign"},
    /* branches and labels */
    {"undefined label", IN_FUNC("    jump nowhere"), "2:10: undefined label 'nowhere'"},
    {"duplicate label", ".func f\nl:\n    nop\nl:\n.end\n",
     "4:1: duplicate label 'l' (first defined at line 2)"},
    {"branch offset without a sign", IN_FUNC("    jump 16"),
     "2:10: a branch offset needs a sign (+16 or -16), or use a label"},
    {"branch offset out of range", IN_FUNC("    jump +2147483648"),
     "2:10: +2147483648 is out of range for target"},
    {"jump table without brackets", IN_FUNC("    br_table x0, l"),
     "2:18: expected '[' and a list of branch targets, found 'l'"},
    {"empty jump table", IN_FUNC("    br_table x0, []"),
     "2:19: expected a label or a signed offset, found ']'"},
    {"unclosed jump table", IN_FUNC("    br_table x0, [+0, +4"), "2:25: expected ',' or ']', found end of line"},
    {"label outside a function", "l:\n", "1:1: label outside a function"},
    /* functions and imports */
    {"unknown function", IN_FUNC("    call g"), "2:10: unknown function 'g'"},
    {"unknown import", IN_FUNC("    call_host h"), "2:15: unknown import 'h'"},
    {"index too large", IN_FUNC("    call #4294967296"), "2:10: index #4294967296 is out of range"},
    {"number for a function", IN_FUNC("    call 3"), "2:10: expected a function name or #N, found '3'"},
    {"duplicate function", ".func f\n.end\n.func f\n.end\n",
     "3:7: duplicate function 'f' (first defined at line 1)"},
    {"duplicate import", ".import a\n.import a\n", "2:9: duplicate import 'a' (first declared at line 1)"},
    {"instruction outside a function", "nop\n", "1:1: instruction outside a function"},
    {"missing .end at the end of the file", ".func f\n    nop\n",
     "3:1: missing .end of function 'f' (started at line 1)"},
    {"missing .end before the next .func", ".func f\n.func g\n.end\n",
     "2:1: missing .end of function 'f' (started at line 1)"},
    {".end outside a function", ".end\n", "1:1: .end outside a function"},
    {"unknown type", ".func f i8\n.end\n",
     "1:9: unknown type 'i8' (use i32, i64, f32, f64, funcref, externref)"},
    {"a prefix of a type name", ".func f func\n.end\n", "1:9: unknown type 'func'"},
    {"function without a name", ".func\n", "1:6: expected a function name, found end of line"},
    {"NUL byte in a name", ".import \"a\\0b\"\n", "1:9: a name cannot contain a NUL byte"},
    /* module directives */
    {"unknown directive", ".frob 1\n", "1:1: unknown directive '.frob'"},
    {"module directive inside a function", IN_FUNC(".import a"),
     "2:1: .import inside function 'f' (missing .end?)"},
    {"duplicate .entry", ".entry a\n.noentry\n", "2:1: duplicate .entry (first at line 1)"},
    {"unknown entry function", ".entry nope\n", "1:8: unknown function 'nope'"},
    {"entry index out of range", ".entry #3\n", "1:8: entry function #3 does not exist (0 functions)"},
    {"duplicate .memory", ".memory 8\n.memory 8\n", "2:1: duplicate .memory (first at line 1)"},
    {".memory after .data", ".data 0 \"\"\n.memory 8\n", "2:1: .memory must come before .data"},
    {"initial heap above the maximum", ".memory 8 4\n", "1:9: initial heap 8 exceeds the maximum 4"},
    {"heap above the limit", ".memory 0 0x300000000\n",
     "1:9: maximum heap 12884901888 exceeds the limit of 8589934592 bytes"},
    {"negative heap size", ".memory -1\n", "1:9: expected a non-negative integer, found '-1'"},
    {"data outside the heap", ".memory 4\n.data 2 \"abc\"\n",
     "2:7: data segment (3 bytes at heap offset 2) exceeds the maximum heap of 4 bytes"},
    {"data without bytes", ".data 0\n", "1:8: expected a string of bytes, found end of line"},
    {"globals without a count", ".globals\n", "1:9: expected a non-negative integer, found end of line"},
    {"negative table count", ".tables -1\n", "1:9: expected a non-negative integer, found '-1'"},
    {"globals above the limit", ".globals 1048577\n",
     "1:10: 1048577 globals exceed the limit of 1048576"},
    {"tables above the limit", ".tables 0x100000000\n",
     "1:9: 4294967296 tables exceed the limit of 1048576"},
    {"duplicate .tables", ".tables 2\n.tables 3\n", "2:1: duplicate .tables (first at line 1)"},
    {"duplicate .globals", ".globals 2\n\n.globals 2\n", "3:1: duplicate .globals (first at line 1)"},
    {"a global before .globals", ".global #0 1\n",
     "1:9: global #0 does not exist (0 globals; declare them with .globals)"},
    {"a global value too wide", ".globals 1\n.global #0 0x10000000000000000\n",
     "2:12: integer too large: '0x10000000000000000'"},
    {"a global by name", ".globals 1\n.global g 1\n", "2:9: expected a global #N, found 'g'"},
    {"a table above its maximum", ".tables 1\n.table #0 5 4\n",
     "2:1: table 0: size 5 above its maximum 4 or the limit of 16777216 entries"},
    {"a table size too wide", ".tables 1\n.table #0 0x100000000 0x100000000\n",
     "2:11: 4294967296 is out of range (0..4294967295)"},
    {"elements outside the table", ".tables 1\n.table #0 2 2\n.elem #0 1 f f\n.func f\n.end\n",
     "3:1: 2 entries at 1 do not fit table #0 of 2 entries (set its size with .table)"},
    {"elements of no table", ".elem #0 0\n",
     "1:7: table #0 does not exist (0 tables; declare them with .tables)"},
    {"an element of no function", ".tables 1\n.table #0 1 1\n.elem #0 0 nope\n",
     "3:12: unknown function 'nope'"},
    {"an element index out of range", ".tables 1\n.table #0 1 1\n.elem #0 0 #4\n",
     "4:1: element segment 0: function 4 out of range (0 functions)"},
    {"duplicate .start", ".start a\n.start b\n", "2:1: duplicate .start (first at line 1)"},
    {"unknown start function", ".start nope\n", "1:8: unknown function 'nope'"},
    {"heap base in an f register", ".heap_base f31\n", "1:12: expected an x register, found 'f31'"},
    {"unknown type in .type", ".type i8\n", "1:7: unknown type 'i8' (use i32, i64, f32, f64,"},
    {"unknown result type in .type", ".type -> i32 v128\n", "1:14: unknown type 'v128'"},
    {"junk after .type", ".type i32 -> f64 ->\n", "1:18: expected end of line, found '->'"},
    {".type inside a function", IN_FUNC(".type i32"),
     "2:1: .type inside function 'f' (missing .end?)"},
    {"number for a global", IN_FUNC("    xglobal_get x0, 3"),
     "2:21: expected a global #N, found '3'"},
    {"name for a table", IN_FUNC("    table_size x0, foo"), "2:20: expected a table #N, found 'foo'"},
    {"missing type", IN_FUNC("    sigcheck x0"), "2:16: 'sigcheck' takes 2 operands (x, #type), found 1"},
    {"type index too large", IN_FUNC("    sigcheck x0, #4294967296"),
     "2:18: index #4294967296 is out of range"},
    /* lexical errors */
    {"bad string escape", ".data 0 \"a\\qb\"\n", "1:11: bad escape '\\q' in string"},
    {"bad hex escape", ".data 0 \"\\xg0\"\n", "1:10: bad escape: \\x needs two hex digits"},
    {"unterminated string", ".import \"abc\n", "1:9: unterminated string"},
    {"unexpected character", IN_FUNC("    nop @"), "2:9: unexpected character '@'"},
    {"unexpected byte", IN_FUNC("    nop \x01"), "2:9: unexpected byte 0x01"},
    {"# without a number", IN_FUNC("    call #x"), "2:10: expected a number after '#'"},
    {"line starting with a number", "42\n", "1:1: expected a label, directive or instruction, found '42'"},
};

static void test_each_mistake_is_reported_with_line_and_column(void **state)
{
    (void)state;
    unsigned failures = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct error_case *c = &cases[i];
        pvm_error err = {{0}};
        pvm_module *m = pvm_assemble("t.pasm", c->source, strlen(c->source), &err);
        char want[600];
        snprintf(want, sizeof want, "t.pasm:%s", c->message);
        if (m) {
            print_error("%s: assembled without error\n", c->what);
            pvm_module_free(m);
            failures++;
        } else if (strncmp(err.msg, want, strlen(want)) != 0) {
            print_error("%s:\n    got  %s\n    want %s\n", c->what, err.msg, want);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

static void test_comments_blank_lines_and_crlf_are_ignored(void **state)
{
    (void)state;
    const char *src = "; a comment\r\n\r\n.func main -> i64 ; the entry\r\n"
                      "start: xconst8 x0, 1 ; label and instruction on one line\r\n"
                      "\tret\r\n.end";
    pvm_error err;
    pvm_module *m = pvm_assemble("t.pasm", src, strlen(src), &err);
    if (!m)
        fail_msg("%s", err.msg);
    assert_int_equal(m->nfuncs, 1);
    assert_int_equal(m->funcs[0].size, 4);
    assert_string_equal(m->funcs[0].results, "l");
    pvm_module_free(m);
}

static void test_text_need_not_be_nul_terminated(void **state)
{
    (void)state;
    const char src[] = {'.', 'f', 'u', 'n', 'c', ' ', 'f', '\n', '.', 'e', 'n', 'd'};
    char *copy = malloc(sizeof src); /* exactly the bytes, no terminator */
    assert_non_null(copy);
    memcpy(copy, src, sizeof src);
    pvm_error err;
    pvm_module *m = pvm_assemble("t.pasm", copy, sizeof src, &err);
    assert_non_null(m);
    pvm_module_free(m);
    free(copy);
}

/* Assemble len bytes of src from an exact-size copy: a module, or an error
 * of the form "fuzz.pasm:LINE:COL: ...". */
static void assemble_or_reject(const char *src, size_t len)
{
    char *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    memcpy(copy, src, len);
    pvm_error err;
    pvm_module *m = pvm_assemble("fuzz.pasm", copy, len, &err);
    unsigned line, col;
    if (!m && sscanf(err.msg, "fuzz.pasm:%u:%u: ", &line, &col) != 2)
        fail_msg("message without a position: %s", err.msg);
    pvm_module_free(m);
    free(copy);
}

static const char sample[] =
    ".entry main\n.memory 64 128\n.globals 2\n.tables 1\n.import put\n"
    ".type i64 -> f32 f64\n.data 8 \"hi\\n\\x00\"\n"
    ".func main i64 -> i64\n"
    "loop: xconst8 x1, -1\n    xadd64 x0, x0, x1\n    br_if x0, loop\n"
    "    br_table x0, [loop, +0, -4]\n    fconst64 f1, -1.5e-3\n"
    "    func_ref x2, helper\n    sigcheck x2, #0\n    fglobal_set f1, #1\n"
    "    table_get x3, x2, #0\n"
    "    call helper\n    call_host put\n    trap div_by_zero\n    ret\n.end\n"
    ".func helper f32 -> f64\n    ret\n.end\n";

static void test_every_prefix_of_a_program_assembles_or_is_rejected(void **state)
{
    (void)state;
    for (size_t len = 0; len <= strlen(sample); len++)
        assemble_or_reject(sample, len);
}

static void test_corrupted_programs_never_crash(void **state)
{
    (void)state;
    static const char replacements[] = "\"\\#:,[]-+;\n\x00\x80x0f9.e ";
    size_t len = strlen(sample);
    char *text = malloc(len);
    assert_non_null(text);
    uint32_t seed = 12345;
    for (unsigned round = 0; round < 20000; round++) {
        memcpy(text, sample, len);
        for (unsigned k = 0; k < 1 + round % 3; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % len;
            text[at] = replacements[(seed >> 24) % (sizeof replacements - 1)];
        }
        assemble_or_reject(text, len);
    }
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_mistake_is_reported_with_line_and_column),
        cmocka_unit_test(test_comments_blank_lines_and_crlf_are_ignored),
        cmocka_unit_test(test_text_need_not_be_nul_terminated),
        cmocka_unit_test(test_every_prefix_of_a_program_assembles_or_is_rejected),
        cmocka_unit_test(test_corrupted_programs_never_crash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
