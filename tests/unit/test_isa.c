/*
 * test_isa.c - the opcode table and what isa.c derives from it: every row is
 * complete and consistent, names and numbers are unique and round-trip,
 * encodings leave the escape byte free, and every opcode has an operation
 * class (a macro op the class macro).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "insn.h"
#include "isa.h"

static void every_opcode_has_a_name_a_format_and_semantics(void **state)
{
    (void)state;
    unsigned seen = 0;
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        const pvm_op_info *info = pvm_op_lookup(op);
        if (!info)
            continue;
        seen++;
        assert_true(strlen(info->name) > 0);
        assert_true(info->format < PVM_FMT_COUNT);
        assert_non_null(info->semantics);
        assert_true(strlen(info->semantics) > 0);
    }
    assert_int_equal(seen, pvm_op_count());
    assert_true(seen > 150); /* the baseline ISA is complete, not a sketch */
}

static void primary_opcodes_leave_the_escape_byte_free(void **state)
{
    (void)state;
    assert_true(PVM_OP_PRIMARY_END <= PVM_ESCAPE_BYTE);
    assert_null(pvm_op_lookup(PVM_ESCAPE_BYTE));
    for (unsigned op = PVM_OP_PRIMARY_END; op < PVM_OP_EXT_FIRST; op++)
        assert_null(pvm_op_lookup(op));
    assert_true(PVM_OP_EXT_COUNT > 0);
    assert_non_null(pvm_op_lookup(PVM_OP_EXT_FIRST));
    assert_null(pvm_op_lookup(PVM_OP_END));
}

static void length_is_header_plus_register_pack_plus_immediate(void **state)
{
    (void)state;
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        const pvm_op_info *info = pvm_op_lookup(op);
        if (!info)
            continue;
        const pvm_format_info *fmt = &pvm_formats[info->format];
        unsigned header = PVM_OP_IS_EXT(op) ? 3 : 1;
        assert_int_equal(fmt->pack_bytes, fmt->nregs); /* a byte per register */
        assert_int_equal(info->length, header + fmt->pack_bytes + fmt->imm_bytes);
    }
}

static void register_operands_come_first_are_x_or_f_and_have_a_role(void **state)
{
    (void)state;
    for (unsigned f = 0; f < PVM_FMT_COUNT; f++) {
        const pvm_format_info *fmt = &pvm_formats[f];
        assert_true(fmt->nregs <= PVM_MAX_REGS);
        for (unsigned i = 0; i < PVM_MAX_REGS; i++) {
            if (i < fmt->nregs) {
                assert_true(fmt->reg[i] == PVM_REG_X || fmt->reg[i] == PVM_REG_F);
                assert_true(fmt->role[i] == PVM_ROLE_R || fmt->role[i] == PVM_ROLE_W ||
                            fmt->role[i] == PVM_ROLE_RW);
            } else {
                assert_int_equal(fmt->reg[i], PVM_REG_NONE);
                assert_int_equal(fmt->role[i], PVM_ROLE_NONE);
            }
        }
    }
}

/* The roles the table states are the ones the semantics column describes:
 * an op whose semantics assign "x[a] =" (or "f[a]... =") writes operand a,
 * and a register named by its semantics on the right is read. */
static void roles_agree_with_the_semantics(void **state)
{
    (void)state;
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        const pvm_op_info *info = pvm_op_lookup(op);
        if (!info || info->macro)
            continue;
        const pvm_format_info *fmt = &pvm_formats[info->format];
        const char *sem = info->semantics;
        int assigns_a = (sem[0] == 'x' || sem[0] == 'f') && strncmp(sem + 1, "[a]", 3) == 0 &&
                        strstr(sem, " = ") && strstr(sem, " = ") - sem <= 9;
        if (fmt->nregs > 0)
            assert_int_equal(fmt->role[0] == PVM_ROLE_W, assigns_a);
        for (unsigned i = 1; i < fmt->nregs; i++)
            assert_int_equal(fmt->role[i], PVM_ROLE_R);
    }
}

/* The baseline writes at most one register, its first, and the stored
 * forms of a format spell its operands and roles. */
static void formats_have_stored_forms(void **state)
{
    (void)state;
    char buf[128];
    pvm_format_operands(&pvm_formats[PVM_FMT_XwXr_OFF], buf, sizeof buf);
    assert_string_equal(buf, "x x off32");
    pvm_format_roles(&pvm_formats[PVM_FMT_XwXr_OFF], buf, sizeof buf);
    assert_string_equal(buf, "w r");
    pvm_format_roles(&pvm_formats[PVM_FMT_XrXr_OFF], buf, sizeof buf);
    assert_string_equal(buf, "r r");
    pvm_format_operands(&pvm_formats[PVM_FMT_NONE], buf, sizeof buf);
    assert_string_equal(buf, "");
    pvm_format_operands(&pvm_formats[PVM_FMT_FwXrFrFr], buf, sizeof buf);
    assert_string_equal(buf, "f x f f");
    assert_int_equal(pvm_format_operands(&pvm_formats[PVM_FMT_XwXrXr], buf, 4), 5);
    assert_string_equal(buf, "x x");
}

static void names_are_unique_and_found_by_lookup(void **state)
{
    (void)state;
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        const pvm_op_info *info = pvm_op_lookup(op);
        if (info)
            assert_int_equal(pvm_op_by_name(info->name, strlen(info->name)), (int)op);
    }
    assert_int_equal(pvm_op_by_name("xadd32", 6), PVM_OP_xadd32);
    assert_int_equal(pvm_op_by_name("xadd3", 5), -1);
    assert_int_equal(pvm_op_by_name("xadd32x", 7), -1);
}

static void branch_flag_matches_branch_operands(void **state)
{
    (void)state;
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        const pvm_op_info *info = pvm_op_lookup(op);
        if (!info)
            continue;
        const pvm_format_info *fmt = &pvm_formats[info->format];
        int has_targets = 0;
        for (unsigned i = 0; i < fmt->nimms; i++)
            has_targets |= fmt->imm[i] == PVM_IMM_REL32 || fmt->imm[i] == PVM_IMM_TABLE;
        assert_int_equal(!!(info->flags & PVM_FLAG_BRANCH), has_targets);
        /* A callee named by the immediate makes a call (func_ref, which
         * writes a register, only names it). */
        if (info->macro)
            continue; /* a macro op's flags are its parts' (test_macro_ops.c) */
        if (fmt->imm[0] == PVM_IMM_HOST || (fmt->imm[0] == PVM_IMM_FUNC && fmt->nregs == 0))
            assert_true(info->flags & PVM_FLAG_CALL);
    }
}

static void the_baseline_has_no_fused_operations(void **state)
{
    (void)state;
    /* One operation per instruction: no op both branches and computes,
     * an op has at most one immediate, and an op with three or more
     * registers has no immediate other than one naming the table it works
     * on (the fused forms are for the toolkit to discover).  A build made
     * with a set of macro ops (-DPULLEY_MACROS) adds them beside these;
     * the default build has none. */
#ifndef PULLEY_MACRO_ROWS
    assert_int_equal(pvm_macro_count(), 0);
#endif
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        const pvm_op_info *info = pvm_op_lookup(op);
        if (!info || info->macro)
            continue;
        const pvm_format_info *fmt = &pvm_formats[info->format];
        assert_false(info->flags & PVM_FLAG_MACRO);
        assert_true(fmt->nregs <= 4 && fmt->nimms <= 1);
        if (info->flags & PVM_FLAG_BRANCH)
            assert_true(fmt->nregs <= 1);
        if (fmt->nregs >= 3)
            assert_true(fmt->imm[0] == PVM_IMM_NONE || fmt->imm[0] == PVM_IMM_TABLEIDX);
    }
}

/* A WIDE row's narrow opcode is its wide one with a narrower immediate:
 * the same registers, classes, roles and flags, one immediate whose every
 * value the wide one holds; wide forms have none of their own. */
static void a_narrow_form_is_its_wide_form_with_a_shorter_immediate(void **state)
{
    (void)state;
    static const int64_t probes[] = {INT8_MIN, INT8_MAX, INT16_MIN, INT16_MAX, INT32_MIN,
                                     INT32_MAX, UINT32_MAX, INT64_MIN, INT64_MAX, -1, 0};
    unsigned narrow = 0;
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        unsigned wide = pvm_op_wide(op);
        if (!pvm_ops[op].name || wide == op)
            continue;
        narrow++;
        assert_non_null(pvm_op_lookup(wide));
        assert_int_equal(pvm_op_wide(wide), wide);
        const pvm_format_info *n = &pvm_formats[pvm_ops[op].format],
                              *w = &pvm_formats[pvm_ops[wide].format];
        assert_int_equal(pvm_ops[op].flags, pvm_ops[wide].flags);
        assert_true(n->nregs == w->nregs && n->nimms == 1 && w->nimms == 1);
        assert_memory_equal(n->reg, w->reg, n->nregs);
        assert_memory_equal(n->role, w->role, n->nregs);
        assert_true(pvm_imm_size(n->imm[0]) < pvm_imm_size(w->imm[0]));
        for (size_t i = 0; i < sizeof probes / sizeof *probes; i++)
            if (pvm_imm_fits((pvm_imm_kind)n->imm[0], probes[i]))
                assert_true(pvm_imm_fits((pvm_imm_kind)w->imm[0], probes[i]));
    }
    assert_int_equal(pvm_op_wide(PVM_OP_xconst8), PVM_OP_xconst64);
    assert_true(narrow >= 3);
}

/* Every opcode has a class, a macro op exactly the class macro; class
 * names are unique and non-empty; a narrow form is in its wide form's
 * class; classes say what an op does whatever its format. */
static void every_opcode_has_an_operation_class(void **state)
{
    (void)state;
    for (unsigned c = 0; c < PVM_CLASS_COUNT; c++) {
        const char *name = pvm_op_class_name(c);
        assert_non_null(name);
        assert_true(strlen(name) > 0);
        for (unsigned d = 0; d < c; d++)
            assert_string_not_equal(name, pvm_op_class_name(d));
    }
    assert_null(pvm_op_class_name(PVM_CLASS_COUNT));
    unsigned used[PVM_CLASS_COUNT] = {0};
    for (unsigned op = 0; op < PVM_OP_END; op++) {
        const pvm_op_info *info = pvm_op_lookup(op);
        if (!info)
            continue;
        assert_true(info->opclass < PVM_CLASS_COUNT);
        assert_int_equal(info->opclass == PVM_CLASS_macro, info->macro != NULL);
        assert_int_equal(info->opclass, pvm_ops[pvm_op_wide(op)].opclass);
        used[info->opclass]++;
    }
    /* every class but macro names some baseline opcode */
    for (unsigned c = 0; c < PVM_CLASS_COUNT; c++)
        if (c != PVM_CLASS_macro)
            assert_true(used[c] > 0);
    assert_string_equal(pvm_op_class_name(pvm_ops[PVM_OP_br_if].opclass), "cond_branch");
    assert_int_equal(pvm_ops[PVM_OP_br_if_not].opclass, PVM_CLASS_cond_branch);
    assert_int_equal(pvm_ops[PVM_OP_jump].opclass, PVM_CLASS_branch);
    assert_int_equal(pvm_ops[PVM_OP_xeq32].opclass, PVM_CLASS_compare);
    assert_int_equal(pvm_ops[PVM_OP_xeq32_imm].opclass, PVM_CLASS_compare);
    assert_int_equal(pvm_ops[PVM_OP_xgt32_u_imm].opclass, PVM_CLASS_compare);
    assert_int_equal(pvm_ops[PVM_OP_flt64].opclass, PVM_CLASS_compare);
    assert_int_equal(pvm_ops[PVM_OP_xadd32].opclass, PVM_CLASS_add);
    assert_int_equal(pvm_ops[PVM_OP_xadd64_imm].opclass, PVM_CLASS_add);
    assert_int_equal(pvm_ops[PVM_OP_xmul64].opclass, PVM_CLASS_multiply);
    assert_int_equal(pvm_ops[PVM_OP_fmul32].opclass, PVM_CLASS_multiply);
    assert_int_equal(pvm_ops[PVM_OP_fsub64].opclass, PVM_CLASS_add);
    assert_int_equal(pvm_ops[PVM_OP_fdiv64].opclass, PVM_CLASS_float_arith);
    assert_int_equal(pvm_ops[PVM_OP_xconst8].opclass, PVM_CLASS_const);
    assert_int_equal(pvm_ops[PVM_OP_xload32_u_g32].opclass, PVM_CLASS_heap_load);
    assert_int_equal(pvm_ops[PVM_OP_xload32_u].opclass, PVM_CLASS_load);
    assert_int_equal(pvm_ops[PVM_OP_fstore64_g32].opclass, PVM_CLASS_heap_store);
    assert_int_equal(pvm_ops[PVM_OP_push_frame].opclass, PVM_CLASS_frame_push);
    assert_int_equal(pvm_ops[PVM_OP_xpush].opclass, PVM_CLASS_register_save);
    assert_int_equal(pvm_ops[PVM_OP_fpop].opclass, PVM_CLASS_register_restore);
    assert_int_equal(pvm_ops[PVM_OP_call_indirect].opclass, PVM_CLASS_call);
    assert_int_equal(pvm_ops[PVM_OP_fsqrt64].opclass, PVM_CLASS_float_arith);
}

static void isa_hash_is_stable(void **state)
{
    (void)state;
    assert_true(pvm_isa_hash() != 0);
    assert_true(pvm_isa_hash() == pvm_isa_hash());
}

static void trap_kinds_have_unique_names_and_wasm_messages(void **state)
{
    (void)state;
    for (unsigned k = 0; k < PVM_TRAP_COUNT; k++) {
        const char *name = pvm_trap_name(k);
        assert_int_equal(pvm_trap_by_name(name, strlen(name)), (int)k);
        assert_true(strlen(pvm_trap_message(k)) > 0);
    }
    assert_string_equal(pvm_trap_name(PVM_TRAP_DIV_BY_ZERO), "div_by_zero");
    /* Wasm's messages, where Wasm has the trap. */
    static const struct {
        unsigned kind;
        const char *message;
    } wasm[] = {
        {PVM_TRAP_UNREACHABLE, "unreachable"},
        {PVM_TRAP_DIV_BY_ZERO, "integer divide by zero"},
        {PVM_TRAP_INT_OVERFLOW, "integer overflow"},
        {PVM_TRAP_BAD_CONVERSION, "invalid conversion to integer"},
        {PVM_TRAP_HEAP_OOB, "out of bounds memory access"},
        {PVM_TRAP_TABLE_OOB, "out of bounds table access"},
        {PVM_TRAP_STACK_OVERFLOW, "call stack exhausted"},
        {PVM_TRAP_UNDEFINED_ELEMENT, "undefined element"},
        {PVM_TRAP_NULL_REFERENCE, "uninitialized element"},
        {PVM_TRAP_BAD_SIGNATURE, "indirect call type mismatch"},
    };
    for (size_t i = 0; i < sizeof wasm / sizeof wasm[0]; i++)
        assert_string_equal(pvm_trap_message(wasm[i].kind), wasm[i].message);
    assert_string_equal(pvm_trap_name(PVM_TRAP_COUNT), "unknown");
    assert_int_equal(pvm_trap_by_name("nosuch", 6), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_opcode_has_a_name_a_format_and_semantics),
        cmocka_unit_test(primary_opcodes_leave_the_escape_byte_free),
        cmocka_unit_test(length_is_header_plus_register_pack_plus_immediate),
        cmocka_unit_test(register_operands_come_first_are_x_or_f_and_have_a_role),
        cmocka_unit_test(roles_agree_with_the_semantics),
        cmocka_unit_test(formats_have_stored_forms),
        cmocka_unit_test(names_are_unique_and_found_by_lookup),
        cmocka_unit_test(branch_flag_matches_branch_operands),
        cmocka_unit_test(the_baseline_has_no_fused_operations),
        cmocka_unit_test(a_narrow_form_is_its_wide_form_with_a_shorter_immediate),
        cmocka_unit_test(every_opcode_has_an_operation_class),
        cmocka_unit_test(isa_hash_is_stable),
        cmocka_unit_test(trap_kinds_have_unique_names_and_wasm_messages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
