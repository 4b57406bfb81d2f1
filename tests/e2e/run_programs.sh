#!/bin/sh
# run_programs.sh - the programs of tests/programs through pulley-run, both
# as .pasm text and as .pbc assembled by pulley-asm: their printed results,
# their output through the host imports, their exit status (0, 134 after a
# trap, the status given to the exit import), the initial state of
# globals and tables and the start function, --invoke with arguments
# (everything after the program is its arguments); and
# pulley-trace printing a trace.
# Environment: PULLEY_ASM, PULLEY_RUN, PULLEY_TRACE (the tools), PROGRAMS.
set -eu
: "${PULLEY_ASM:?}" "${PULLEY_RUN:?}" "${PULLEY_TRACE:?}" "${PROGRAMS:?}"

. "$(dirname "$0")/lib.sh"

# check STATUS STDOUT COMMAND...: COMMAND exits with STATUS, prints exactly
# STDOUT (lines separated by \n) and no sanitizer report.
check() {
    want=$1
    want_out=$(printf '%b' "$2")
    shift 2
    expect_status "$want" "$@"
    [ "$(cat "$tmp/out")" = "$want_out" ] ||
        fail "$*: printed '$(cat "$tmp/out")', expected '$want_out'"
}

# stderr_has TEXT: the last checked command's stderr contains TEXT.
stderr_has() {
    grep -q -F -e "$1" "$tmp/err" || fail "stderr lacks '$1': $(cat "$tmp/err")"
}

for p in fib loops dispatch_table trap_div memory float collatz hello asm_state; do
    "$PULLEY_ASM" "$PROGRAMS/$p.pasm" -o "$tmp/$p.pbc" || fail "pulley-asm $p.pasm"
done

for ext in pasm pbc; do
    if [ "$ext" = pasm ]; then dir=$PROGRAMS; else dir=$tmp; fi

    check 0 '6765' "$PULLEY_RUN" "$dir/fib.$ext"
    # The start function ran first; the element segment filled the table;
    # the heap register holds the heap's address (after the 1 MiB stack).
    check 0 '42\n40\n1048576' "$PULLEY_RUN" "$dir/asm_state.$ext"
    check 0 '75025' "$PULLEY_RUN" --invoke fib "$dir/fib.$ext" 25
    check 2 '' "$PULLEY_RUN" "$dir/fib.$ext" --invoke fib 10
    stderr_has 'function main takes 0 arguments, got 3'

    check 0 '24502500' "$PULLEY_RUN" "$dir/loops.$ext"
    check 0 '2025' "$PULLEY_RUN" --invoke=loops "$dir/loops.$ext" 10

    check 0 '27835\n27835' "$PULLEY_RUN" "$dir/dispatch_table.$ext"
    check 0 '12' "$PULLEY_RUN" --invoke by_table "$dir/dispatch_table.$ext" 6

    # The place of a trap is that of the instruction as it ran: run unfused
    # for the offset in the code as written (a macro build may fuse it).
    check 134 '' "$PULLEY_RUN" "$dir/trap_div.$ext"
    stderr_has 'pulley-run: trap: integer divide by zero (div_by_zero) in function percent at offset 0x'
    check 134 '' "$PULLEY_RUN" --no-fuse "$dir/trap_div.$ext"
    stderr_has 'pulley-run: trap: integer divide by zero (div_by_zero) in function percent at offset 0x0007'
    check 0 '35' "$PULLEY_RUN" --invoke percent "$dir/trap_div.$ext" 7 20
    check 0 '-75' "$PULLEY_RUN" --invoke percent "$dir/trap_div.$ext" -3 4
    check 0 '-75' "$PULLEY_RUN" --invoke percent -- "$dir/trap_div.$ext" -0x3 4

    check 0 '168\n300286872' "$PULLEY_RUN" "$dir/memory.$ext"
    check 0 '25' "$PULLEY_RUN" --invoke sieve "$dir/memory.$ext" 100
    check 134 '' "$PULLEY_RUN" --invoke sieve "$dir/memory.$ext" 67108864
    stderr_has '(heap_oob) in function sieve'

    check 0 '1.4142135623730949\n3.1405926538397941\n3.14059258' "$PULLEY_RUN" "$dir/float.$ext"
    check 0 '3' "$PULLEY_RUN" --invoke newton "$dir/float.$ext" 9.0
    check 0 '1\n1.4142135623730951' "$PULLEY_RUN" --invoke table "$dir/float.$ext" 2

    check 8 '6\n3\n10\n5\n16\n8\n4\n2\n1' "$PULLEY_RUN" "$dir/collatz.$ext"
    check 0 '8\n4\n2\n1\n3' "$PULLEY_RUN" --invoke collatz "$dir/collatz.$ext" 8

    check 0 'Hello, world!' "$PULLEY_RUN" "$dir/hello.$ext"
done

# A stack too small for the recursion traps instead of crashing.
check 134 '' "$PULLEY_RUN" --stack 256 --invoke fib "$PROGRAMS/fib.pasm" 20
stderr_has '(stack_overflow) in function fib'

# pulley-trace runs the same program and traces every instruction on stderr.
check 0 '2' "$PULLEY_TRACE" --invoke fib "$tmp/fib.pbc" 3
for insn in 'xconst8 x1, 2' 'xlt64_s x2, x0, x1' 'push_frame' 'xadd64 x0, x17, x0' 'ret'; do
    stderr_has "$insn"
done
[ "$(grep -c 'xadd64 x0, x17, x0' "$tmp/err")" -eq 2 ] || fail "fib(3) adds twice"
echo "run_programs: ok"
