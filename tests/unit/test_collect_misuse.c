/*
 * test_collect_misuse.c - every constraint include/pulley/profile.h states
 * is checked when the call is made: a call that breaks one returns -1 (NULL
 * for pulleyprof_open), pulleyprof_last_error() names the call and what was
 * wrong, and the run goes on: pulleyprof_close succeeds and the run holds
 * what was accepted, whole.  Opcode tables: implicit register ranges,
 * macro parts that do not fit their rows, register operands without a
 * decoder, each refused naming the row before any file is written.
 * Registration: overlapping live functions, size 0, no code, no name,
 * unknown module; unregistering what is not registered; a replacement
 * refused leaves the old function registered; slots and readers that are
 * NULL or not registered.  Exact counts not at an instruction start.
 * Calls without an agent.  The message is the calling thread's own.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <pthread.h>
#include <sqlite3.h>
#include <unistd.h>

#include "test_reg_isa.h"
#include "test_temp_db.h"

static int setup(void **state)
{
    (void)state;
    temp_db_start("test_collect_misuse");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    temp_db_remove();
    return 0;
}

static pulleyprof_agent *open_isa(const pulleyprof_isa *isa, int exact)
{
    char err[512] = "";
    pulleyprof_config cfg = {.db_path = db_path, .isa = isa, .command_line = "test",
                             .exact = exact};
    pulleyprof_agent *a = pulleyprof_open(&cfg, err, sizeof err);
    if (!a)
        fail_msg("%s", err);
    return a;
}

/* The last refused call's message says `what`. */
static void assert_said(const char *what)
{
    if (!strstr(pulleyprof_last_error(), what))
        fail_msg("last error \"%s\" does not say \"%s\"", pulleyprof_last_error(), what);
}

static int64_t query(const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* Close a, which must succeed, and check that its run ended whole. */
static void close_whole(pulleyprof_agent *a)
{
    pulleyprof_set_outcome(a, "return", 0);
    char err[512] = "";
    if (pulleyprof_close(a, NULL, err, sizeof err) != 0)
        fail_msg("close: %s", err);
    assert_int_equal(query("SELECT count(*) FROM runs WHERE outcome = 'return'"), 1);
}

/* ---- opcode tables ------------------------------------------------------ */

/* pulleyprof_open refuses isa with an error saying each of `says`, names
 * the row, and creates no file. */
static void assert_isa_refused(const pulleyprof_isa *isa, const char *const *says)
{
    char err[512] = "";
    pulleyprof_config cfg = {.db_path = db_path, .isa = isa};
    assert_null(pulleyprof_open(&cfg, err, sizeof err));
    for (; *says; says++) {
        if (!strstr(err, *says))
            fail_msg("error \"%s\" does not say \"%s\"", err, *says);
        assert_said(*says);
    }
    assert_int_equal(access(db_path, F_OK), -1); /* nothing written */
}

/* reg_isa with row `id` replaced by *row. */
typedef struct isa_copy {
    pulleyprof_opcode ops[R_NOPS];
    pulleyprof_isa isa;
} isa_copy;

static void with_row(isa_copy *c, const pulleyprof_opcode *row)
{
    memcpy(c->ops, reg_ops, sizeof reg_ops);
    c->ops[row->id] = *row;
    c->isa = reg_isa;
    c->isa.opcodes = c->ops;
}

static void implicit_ranges_that_do_not_fit_their_row_are_refused(void **state)
{
    (void)state;
    static const struct {
        pulleyprof_range range;
        const char *why;
    } bad[] = {
        {{.access = 0, .count_imm = -1, .count_add = 1}, "access 0 is not PULLEYPROF_READS"},
        {{.access = 4, .count_imm = -1, .count_add = 1}, "access 4 is not"},
        {{.access = PULLEYPROF_READS, .base = 1, .count_imm = -1, .count_add = 1},
         "base 1 is not one of its 1 register operands"},
        {{.access = PULLEYPROF_READS, .count_imm = 2, .count_add = 0},
         "count_imm 2 is neither -1 nor one of its 2 immediates"},
        {{.access = PULLEYPROF_READS, .count_imm = -2}, "count_imm -2 is neither -1"},
        {{.access = PULLEYPROF_WRITES, .count_imm = -1, .count_add = 0},
         "a fixed count (count_imm -1) of 0 registers: it must be >= 1"},
        {{.access = PULLEYPROF_READS, .count_imm = -1, .count_add = 4, .open_if_zero = 1},
         "open_if_zero 1: 0, or 1 with a count immediate"},
        {{.access = PULLEYPROF_READS, .offset = 1 << 20, .count_imm = -1, .count_add = 4},
         "offset 1048576 or count_add 4 beyond"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pulleyprof_range ranges[2] = {reg_call_ranges[0], bad[i].range};
        pulleyprof_opcode call = reg_ops[R_CALL];
        call.implicit = ranges;
        call.nimplicit = 2;
        isa_copy c;
        with_row(&c, &call);
        assert_isa_refused(&c.isa, (const char *const[]){"opcode table 'regtest', row 2 (call)",
                                                         "implicit range 1: ", bad[i].why, NULL});
    }
    pulleyprof_opcode call = reg_ops[R_CALL];
    call.implicit = NULL; /* nimplicit 2 */
    isa_copy c;
    with_row(&c, &call);
    assert_isa_refused(&c.isa, (const char *const[]){"row 2 (call): nimplicit without", NULL});
}

static void macro_parts_that_do_not_fit_their_rows_are_refused(void **state)
{
    (void)state;
    static const struct {
        pulleyprof_part second;
        const char *why;
    } bad[] = {
        {{R_ADD, "0 5 1", ""}, "part 1 (add): regs \"0 5 1\" must name 3 of the macro's 4"},
        {{R_ADD, "0 1", ""}, "part 1 (add): regs \"0 1\" must name 3"},
        {{R_ADD, "0 1 x", ""}, "regs \"0 1 x\""},
        {{R_ADD, "0 1 2", "0"}, "part 1 (add): imms \"0\" must name 0 of the macro's 0 immediates"},
        {{R_MOVI, "0", ""}, "part 1 (movi): imms \"\" must name 1 of the macro's 0 immediates"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pulleyprof_part parts[2] = {reg_add2_parts[0], bad[i].second};
        pulleyprof_opcode add2 = reg_ops[R_ADD2];
        add2.parts = parts;
        isa_copy c;
        with_row(&c, &add2);
        assert_isa_refused(&c.isa, (const char *const[]){"row 5 (add2)", bad[i].why, NULL});
    }
}

static void register_operands_without_a_decoder_are_refused(void **state)
{
    (void)state;
    pulleyprof_isa no_decoder = reg_isa;
    no_decoder.decode = NULL;
    assert_isa_refused(&no_decoder,
                       (const char *const[]){"row 0 (movi): register operands (roles) in a table"
                                             " without a decoder",
                                             NULL});
}

/* ---- registration ------------------------------------------------------- */

static void registrations_that_break_the_rules_are_refused(void **state)
{
    (void)state;
    pulleyprof_agent *a = open_isa(&reg_isa, 0);
    enum { AT = 0x40000 };
    int mod = pulleyprof_register_module(a, "m", NULL);
    assert_true(mod >= 0);
    assert_int_equal(pulleyprof_register_module(a, NULL, NULL), -1);
    assert_said("pulleyprof_register_module: no name");
    int f = pulleyprof_register_function(a, mod, 0, "f", AT, reg_code, sizeof reg_code);
    assert_true(f >= 0);

    assert_int_equal(pulleyprof_register_function(a, mod, 1, "g", AT + 8, reg_code, 16), -1);
    assert_said("pulleyprof_register_function: function 'g' at [0x40008, 0x40018) overlaps live"
                " function 0 'f' at [0x40000, 0x40010)");
    assert_int_equal(pulleyprof_register_function(a, mod, 1, "g", AT - 8, reg_code, 9), -1);
    assert_said("overlaps live function 0 'f'");
    assert_int_equal(pulleyprof_register_function(a, mod, 1, "g", AT + 64, reg_code, 0), -1);
    assert_said("function 'g': size 0");
    assert_int_equal(pulleyprof_register_function(a, mod, 1, "g", AT + 64, NULL, 16), -1);
    assert_said("function 'g': no code (code NULL, size 16)");
    assert_int_equal(pulleyprof_register_function(a, mod + 7, 1, "g", AT + 64, reg_code, 16), -1);
    assert_said("function 'g': unknown module handle 7");
    assert_int_equal(pulleyprof_register_function(a, mod, 1, NULL, AT + 64, reg_code, 16), -1);
    assert_said("a function without a name");
    assert_int_equal(pulleyprof_add_function(a, NULL), -1);
    assert_said("pulleyprof_add_function: no function given");
    assert_int_equal(pulleyprof_register_function(a, mod, 1, "g", UINTPTR_MAX - 4, reg_code, 16),
                     -1);
    assert_said("too large or wraps around");

    /* Right after f, and beside it: both fine. */
    int g = pulleyprof_register_function(a, mod, 1, "g", AT + 16, reg_code, 16);
    int h = pulleyprof_register_function(a, mod, 2, "h", AT - 16, reg_code, 16);
    assert_true(g > f && h > g);
    close_whole(a);
    assert_int_equal(query("SELECT count(*) FROM functions"), 3);
    assert_int_equal(query("SELECT count(*) FROM functions WHERE (name, address) IN"
                           " (VALUES ('f', 262144), ('g', 262160), ('h', 262128))"),
                     3);
}

static void unregistering_what_is_not_registered_is_refused(void **state)
{
    (void)state;
    pulleyprof_agent *a = open_isa(&reg_isa, 0);
    int mod = pulleyprof_register_module(a, "m", NULL);
    int f = pulleyprof_register_function(a, mod, 0, "f", 0x1000, reg_code, 16);
    int g = pulleyprof_register_function(a, mod, 1, "g", 0x2000, reg_code, 16);
    assert_true(f >= 0 && g >= 0);
    assert_int_equal(pulleyprof_unregister_function(a, 9), -1);
    assert_said("pulleyprof_unregister_function: unknown function handle 9");
    assert_int_equal(pulleyprof_unregister_function(a, -1), -1);
    assert_said("unknown function handle");
    assert_int_equal(pulleyprof_unregister_function(a, f), 0);
    assert_int_equal(pulleyprof_unregister_function(a, f), -1);
    assert_said("function 0 'f' is unregistered already");

    /* A replacement refused (it overlaps g) leaves g registered: a
     * function at g's address is still refused. */
    pulleyprof_function over = {.module = mod, .name = "over", .address = 0x2000 - 4,
                                .code = reg_code, .size = 8};
    pulleyprof_function fine = {.module = mod, .name = "fine", .address = 0x2000,
                                .code = reg_code, .size = 0};
    assert_int_equal(pulleyprof_replace_function(a, g, &fine), -1);
    assert_said("pulleyprof_replace_function: function 'fine': size 0");
    assert_int_equal(pulleyprof_add_function(a, &over), -1);
    assert_said("overlaps live function 1 'g'");
    assert_int_equal(pulleyprof_replace_function(a, f, &over), -1);
    assert_said("function 0 'f' is unregistered already");
    close_whole(a);
    assert_int_equal(query("SELECT count(*) FROM functions"), 2);
}

/* ---- exact counts --------------------------------------------------------- */

static void counts_inside_an_instruction_are_refused(void **state)
{
    (void)state;
    pulleyprof_agent *a = open_isa(&reg_isa, 1);
    int mod = pulleyprof_register_module(a, "m", NULL);
    int f = pulleyprof_register_function(a, mod, 0, "f", 0x1000, reg_code, 16);
    static const uint32_t starts[] = {0, 3, 7, 11, 14, 15};
    for (size_t i = 0; i < sizeof starts / sizeof *starts; i++)
        assert_int_equal(pulleyprof_add_exec_count(a, f, starts[i], 2), 0);
    for (uint32_t off = 0; off < 16; off++) {
        if (off == 0 || off == 3 || off == 7 || off == 11 || off == 14 || off == 15)
            continue;
        assert_int_equal(pulleyprof_add_exec_count(a, f, off, 1), -1);
        char want[128];
        snprintf(want, sizeof want, "offset %u of function 0 'f' is not the start of an instruction",
                 off);
        assert_said(want);
    }
    assert_int_equal(pulleyprof_add_edge_count(a, f, 11, 1, 5), -1);
    assert_said("pulleyprof_add_edge_count: the transfer's target: offset 1 of function 0 'f'");
    assert_int_equal(pulleyprof_add_edge_count(a, f, 11, 0, 5), 0);
    pulleyprof_summary s;
    char err[512] = "";
    pulleyprof_set_outcome(a, "return", 0);
    if (pulleyprof_close(a, &s, err, sizeof err) != 0)
        fail_msg("close: %s", err);
    assert_int_equal(s.counts_unmapped, 11);
    assert_int_equal(s.executed, 12);
    assert_int_equal(query("SELECT sum(count) FROM exec_counts"), 12);
    assert_int_equal(query("SELECT counts_unmapped FROM runs"), 11);
    assert_int_equal(query("SELECT outcome = 'return' FROM runs"), 1);
}

/* ---- the message ---------------------------------------------------------- */

static void *refuse_on_another_thread(void *arg)
{
    (void)pulleyprof_register_module(arg, NULL, NULL);
    return strstr(pulleyprof_last_error(), "no name") ? arg : NULL;
}

static void the_message_is_the_calling_threads(void **state)
{
    (void)state;
    pulleyprof_agent *a = open_isa(&reg_isa, 0);
    assert_int_equal(pulleyprof_unregister_function(a, 5), -1);
    assert_said("unknown function handle 5");
    pthread_t t;
    void *said;
    assert_int_equal(pthread_create(&t, NULL, refuse_on_another_thread, a), 0);
    pthread_join(t, &said);
    assert_ptr_equal(said, a);
    assert_said("unknown function handle 5"); /* this thread's, unchanged */
    close_whole(a);
}

static void calls_without_an_agent_are_refused(void **state)
{
    (void)state;
    assert_int_equal(pulleyprof_register_module(NULL, "m", NULL), -1);
    assert_said("pulleyprof_register_module: no agent (NULL)");
    assert_int_equal(pulleyprof_register_function(NULL, 0, 0, "f", 64, reg_code, 16), -1);
    assert_int_equal(pulleyprof_unregister_function(NULL, 0), -1);
    assert_int_equal(pulleyprof_add_exec_count(NULL, 0, 0, 1), -1);
    assert_said("pulleyprof_add_exec_count: no agent (NULL)");
    char err[128] = "";
    assert_int_equal(pulleyprof_close(NULL, NULL, err, sizeof err), -1);
    assert_string_equal(err, "pulleyprof_close: no agent (NULL)");
    pulleyprof_set_outcome(NULL, "return", 0);
    assert_said("pulleyprof_set_outcome: no agent (NULL)");
    static _Atomic(uintptr_t) slot;
    assert_int_equal(pulleyprof_register_slot(NULL, &slot), -1);
    assert_said("pulleyprof_register_slot: no agent (NULL)");
}

static void slots_and_readers_that_are_not_there_are_refused(void **state)
{
    (void)state;
    pulleyprof_agent *a = open_isa(&reg_isa, 0);
    static _Atomic(uintptr_t) slot, other;
    assert_int_equal(pulleyprof_register_slot(a, NULL), -1);
    assert_said("pulleyprof_register_slot: no slot or reader (NULL)");
    assert_int_equal(pulleyprof_register_reader(a, NULL, NULL), -1);
    assert_said("pulleyprof_register_reader: no slot or reader (NULL)");
    assert_int_equal(pulleyprof_register_slot(a, &slot), 0);
    assert_int_equal(pulleyprof_unregister_slot(a, &other), -1);
    assert_said("pulleyprof_unregister_slot: not registered");
    assert_int_equal(pulleyprof_unregister_slot(a, &slot), 0);
    assert_int_equal(pulleyprof_unregister_slot(a, &slot), -1);
    assert_said("pulleyprof_unregister_slot: not registered");
    close_whole(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(implicit_ranges_that_do_not_fit_their_row_are_refused,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(macro_parts_that_do_not_fit_their_rows_are_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(register_operands_without_a_decoder_are_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(registrations_that_break_the_rules_are_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(unregistering_what_is_not_registered_is_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(counts_inside_an_instruction_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(the_message_is_the_calling_threads, setup, teardown),
        cmocka_unit_test_setup_teardown(calls_without_an_agent_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(slots_and_readers_that_are_not_there_are_refused, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
