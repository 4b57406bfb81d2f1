/*
 * misuse_interp.c - an interpreter that breaks one rule of
 * <pulley/profile.h> and carries on: each CASE makes one call the library
 * must refuse (checking that it returns -1 and says why), then records a
 * counted run of two functions as usual and closes it, which must
 * succeed.  tests/e2e/collect_misuse.sh then reads each database with
 * pulley-report and pulley-ngrams.
 *
 *   misuse_interp PROFILE.db CASE
 *
 * CASE: none, isa_ranges, isa_parts, isa_no_decoder, overlap, size0,
 * no_code, no_name, bad_module, unregister_unknown, unregister_twice,
 * replace_refused, count_inside, count_outside, edge_target, reuse (not a
 * misuse: a function dies and other code takes its address).  Prints
 * "CASE: MESSAGE" (the refusal's message) on stdout; exits 0, or 1 saying
 * what went wrong, 2 for bad usage.
 */
#include "test_reg_isa.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { F_AT = 0x70000, G_AT = F_AT + 64 };

static const char *the_case;
static int failed;

/* rc must be -1 (refused) with a message. */
static void refused(int rc, const char *what)
{
    if (rc != -1 || !pulleyprof_last_error()[0]) {
        fprintf(stderr, "misuse_interp: %s: %s was not refused\n", the_case, what);
        failed = 1;
        return;
    }
    printf("%s: %s\n", the_case, pulleyprof_last_error());
}

/* A table of reg_isa with one row broken, refused at open. */
static void open_refused(const pulleyprof_isa *isa, const char *db)
{
    char err[512] = "";
    pulleyprof_config cfg = {.db_path = db, .isa = isa};
    pulleyprof_agent *a = pulleyprof_open(&cfg, err, sizeof err);
    if (a) {
        pulleyprof_close(a, NULL, err, sizeof err);
        fprintf(stderr, "misuse_interp: %s: the table was not refused\n", the_case);
        failed = 1;
        return;
    }
    printf("%s: %s\n", the_case, err);
}

static void broken_tables(const char *db)
{
    pulleyprof_opcode ops[R_NOPS];
    memcpy(ops, reg_ops, sizeof ops);
    pulleyprof_isa isa = reg_isa;
    isa.opcodes = ops;
    static const pulleyprof_range beyond = {.access = PULLEYPROF_READS, .base = 3, .count_imm = -1,
                                            .count_add = 2};
    static const pulleyprof_part parts[2] = {{R_ADD, "0 1 2", ""}, {R_ADD, "0 5", ""}};
    if (strcmp(the_case, "isa_ranges") == 0) {
        ops[R_CALL].implicit = &beyond;
        ops[R_CALL].nimplicit = 1;
    } else if (strcmp(the_case, "isa_parts") == 0) {
        ops[R_ADD2].parts = parts;
    } else if (strcmp(the_case, "isa_no_decoder") == 0) {
        isa.decode = NULL;
    } else {
        return;
    }
    open_refused(&isa, db);
}

/* The misuse of the_case on a run with functions f and g (f live). */
static void misuse(pulleyprof_agent *a, int mod, int f, int g)
{
    const char *c = the_case;
    pulleyprof_function over = {.module = mod, .name = "over", .address = F_AT + 8,
                                .code = reg_code, .size = 16};
    if (strcmp(c, "overlap") == 0)
        refused(pulleyprof_add_function(a, &over), "an overlapping function");
    else if (strcmp(c, "size0") == 0)
        refused(pulleyprof_register_function(a, mod, 9, "empty", F_AT + 512, reg_code, 0), "size 0");
    else if (strcmp(c, "no_code") == 0)
        refused(pulleyprof_register_function(a, mod, 9, "nocode", F_AT + 512, NULL, 16), "no code");
    else if (strcmp(c, "no_name") == 0)
        refused(pulleyprof_register_function(a, mod, 9, NULL, F_AT + 512, reg_code, 16), "no name");
    else if (strcmp(c, "bad_module") == 0)
        refused(pulleyprof_register_function(a, mod + 5, 9, "m", F_AT + 512, reg_code, 16),
                "an unknown module");
    else if (strcmp(c, "unregister_unknown") == 0)
        refused(pulleyprof_unregister_function(a, g + 40), "an unknown handle");
    else if (strcmp(c, "unregister_twice") == 0) {
        pulleyprof_function h = {.module = mod, .name = "h", .address = F_AT + 512,
                                 .code = reg_code, .size = 16};
        int k = pulleyprof_add_function(a, &h);
        if (k < 0 || pulleyprof_unregister_function(a, k) != 0)
            failed = 1;
        refused(pulleyprof_unregister_function(a, k), "a second unregistration");
    } else if (strcmp(c, "replace_refused") == 0)
        refused(pulleyprof_replace_function(a, g, &over), "a replacement over another function");
    else if (strcmp(c, "count_inside") == 0)
        refused(pulleyprof_add_exec_count(a, f, 4, 1), "a count inside an instruction");
    else if (strcmp(c, "count_outside") == 0)
        refused(pulleyprof_add_exec_count(a, f, 16, 1), "a count outside the function");
    else if (strcmp(c, "edge_target") == 0)
        refused(pulleyprof_add_transfer_count(a, f, 7, g, 2, 1), "a transfer into an instruction");
}

/* The counts of a loop in f (10 rounds) calling g each round. */
static int count(pulleyprof_agent *a, int f, int g)
{
    static const uint32_t at[] = {0, 3, 7, 11, 14};
    static const uint64_t times[] = {1, 10, 10, 10, 1};
    int rc = 0;
    for (int i = 0; i < 5; i++) {
        rc |= pulleyprof_add_exec_count(a, f, at[i], times[i]);
        rc |= pulleyprof_add_exec_count(a, g, at[i], times[i] * 10);
    }
    rc |= pulleyprof_add_edge_count(a, f, 11, 0, 9);
    rc |= pulleyprof_add_edge_count(a, g, 11, 0, 90);
    rc |= pulleyprof_add_transfer_count(a, f, 7, g, 0, 10);
    rc |= pulleyprof_add_transfer_count(a, g, 14, f, 11, 10);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: misuse_interp PROFILE.db CASE\n");
        return 2;
    }
    the_case = argv[2];
    broken_tables(argv[1]);
    char err[512] = "";
    pulleyprof_config cfg = {.db_path = argv[1], .isa = &reg_isa, .benchmark = the_case,
                             .command_line = the_case, .exact = 1};
    pulleyprof_agent *a = pulleyprof_open(&cfg, err, sizeof err);
    if (!a) {
        fprintf(stderr, "misuse_interp: %s\n", err);
        return 1;
    }
    int mod = pulleyprof_register_module(a, "m", "k");
    int f = pulleyprof_register_function(a, mod, 0, "f", F_AT, reg_code, sizeof reg_code);
    int g = pulleyprof_register_function(a, mod, 1, "g", G_AT, reg_code, sizeof reg_code);
    if (strcmp(the_case, "reuse") == 0) { /* f dies, and new code takes its address */
        pulleyprof_function again = {.module = mod, .index = 2, .name = "f2", .address = F_AT,
                                     .code = reg_code, .size = sizeof reg_code};
        int f2 = pulleyprof_replace_function(a, f, &again);
        failed |= f2 < 0 || count(a, f2, g) != 0;
    }
    misuse(a, mod, f, g);
    failed |= mod < 0 || f < 0 || g < 0 || count(a, f, g) != 0;
    pulleyprof_set_outcome(a, "return", 0);
    if (pulleyprof_close(a, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "misuse_interp: %s: close: %s\n", the_case, err);
        return 1;
    }
    if (failed)
        fprintf(stderr, "misuse_interp: %s: a call went wrong (%s)\n", the_case,
                pulleyprof_last_error());
    return failed;
}
