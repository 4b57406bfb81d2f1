#!/bin/sh
# collect_misuse.sh - a run through libpulleyprof in which the interpreter
# broke one rule of <pulley/profile.h> is still a whole run: for each case
# of tests/outside/misuse_interp.c (a refused opcode table, overlapping or
# empty functions, unregistering what is not registered, counts inside an
# instruction, ...) the refused call names what was wrong, the run closes
# with outcome 'return', and pulley-report and pulley-ngrams read the
# database (exit 0) and show its functions.  Also the case where code dies
# and other code takes its address: the run stores both, apart.
#
# Environment: MISUSE_INTERP, PULLEY_REPORT, PULLEY_NGRAMS, SQLITE3.
set -eu
. "$(dirname "$0")/lib.sh"

check_case() { # CASE WORDS: the refusal's message holds WORDS
    db=$tmp/$1.db
    expect_status 0 "$MISUSE_INTERP" "$db" "$1"
    [ -z "$2" ] || grep -q "^$1: .*$2" "$tmp/out" || fail "$1: message: $(cat "$tmp/out")"
    [ "$("$SQLITE3" "$db" "SELECT outcome FROM runs")" = return ] ||
        fail "$1: run: $("$SQLITE3" "$db" 'SELECT * FROM runs')"
    expect_status 0 "$PULLEY_REPORT" "$db" --text
    grep -q "add" "$tmp/out" || fail "$1: pulley-report shows no code: $(cat "$tmp/out")"
    expect_status 0 "$PULLEY_NGRAMS" "$db"
    grep -q "add" "$tmp/out" || fail "$1: pulley-ngrams proposes nothing: $(cat "$tmp/out")"
}

check_case none ""
check_case isa_ranges "row 2 (call): implicit range 0: base 3 is not one of its 1 register"
check_case isa_parts "row 5 (add2): part 1 (add): regs \"0 5\" must name 3"
check_case isa_no_decoder "row 0 (movi): register operands (roles) in a table without a decoder"
check_case overlap "function 'over' at \[0x70008, 0x70018) overlaps live function 0 'f'"
check_case size0 "function 'empty': size 0"
check_case no_code "function 'nocode': no code"
check_case no_name "a function without a name"
check_case bad_module "unknown module handle 5"
check_case unregister_unknown "pulleyprof_unregister_function: unknown function handle 41"
check_case unregister_twice "function 2 'h' is unregistered already"
check_case replace_refused "pulleyprof_replace_function: function 'over' .* overlaps live function 0 'f'"
check_case count_inside "offset 4 of function 0 'f' is not the start of an instruction"
check_case count_outside "offset 16 is outside function 0 'f' (16 bytes)"
check_case edge_target "the transfer's target: offset 2 of function 1 'g' is not the start"
check_case reuse ""
db=$tmp/reuse.db
[ "$("$SQLITE3" "$db" "SELECT count(*) FROM functions f JOIN functions g ON f.id < g.id
                       WHERE f.address < g.address + g.size AND g.address < f.address + f.size")" = 0 ] ||
    fail "reuse: stored functions overlap: $("$SQLITE3" "$db" 'SELECT name, address FROM functions')"
[ "$("$SQLITE3" "$db" "SELECT group_concat(name, ' ') FROM (SELECT name FROM functions
                       WHERE address = $((0x70000)) ORDER BY name)")" = f ] ||
    fail "reuse: addresses: $("$SQLITE3" "$db" 'SELECT name, address FROM functions')"
echo "collect_misuse: ok"
