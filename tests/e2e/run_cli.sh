#!/bin/sh
# run_cli.sh - pulley-run's command line: --help (ending with the exit
# statuses), --version, arguments and results in register k of their
# class for position k, each usage error (no file, a wrong argument count
# or value, a function with more than 16 parameters or results, a bad
# option) exits 2 and each load error (a missing file, an unknown
# function, code that fails verification, an unknown import) exits 1, with
# a message on stderr prefixed "pulley-run:".
# Environment: PULLEY_RUN, PULLEY_TRACE, PROGRAMS.
set -eu
: "${PULLEY_RUN:?}" "${PULLEY_TRACE:?}" "${PROGRAMS:?}"

. "$(dirname "$0")/lib.sh"


# has FILE TEXT: the last run's stdout or stderr (FILE) contains TEXT.
has() {
    grep -q -F -e "$2" "$tmp/$1" || fail "$1 lacks '$2': $(cat "$tmp/$1")"
}

# fails STATUS TEXT ARGS...: pulley-run ARGS exits STATUS saying TEXT on
# stderr and printing nothing on stdout.
fails() {
    want=$1 text=$2
    shift 2
    expect_status "$want" "$PULLEY_RUN" "$@"
    has err "pulley-run: "
    has err "$text"
    [ ! -s "$tmp/out" ] || fail "pulley-run $*: printed on stdout: $(cat "$tmp/out")"
}
usage_error() { fails 2 "$@"; }
load_error() { fails 1 "$@"; }

fib=$PROGRAMS/fib.pasm

expect_status 0 "$PULLEY_RUN" --help
has out 'Usage: pulley-run [OPTIONS] FILE [ARGS...]'
has out '--invoke=NAME'
has out '--stack=BYTES'
has out '134 after a trap'
expect_status 0 "$PULLEY_RUN" -h
has out 'Usage: pulley-run'

expect_status 0 "$PULLEY_RUN" --version
grep -E -q '^pulley-run [0-9]+\.[0-9]+\.[0-9]+ \(dispatch (switch|goto|tail)' "$tmp/out" ||
    fail "--version printed: $(cat "$tmp/out")"
expect_status 0 "$PULLEY_TRACE" --version
grep -E -q '^pulley-trace [0-9.]+ \(dispatch [a-z]+, trace' "$tmp/out" ||
    fail "pulley-trace --version printed: $(cat "$tmp/out")"

usage_error 'no input file'
usage_error 'no input file' --invoke fib
load_error "$tmp/missing.pbc" "$tmp/missing.pbc"
load_error 'no function named "nope"' --invoke nope "$fib"
usage_error 'function fib takes 1 argument, got 0' --invoke fib "$fib"
usage_error 'function fib takes 1 argument, got 2' --invoke fib "$fib" 1 2
usage_error 'function main takes 0 arguments, got 1' "$fib" 5
usage_error 'argument 1 of fib: "ten" is not a valid i64' --invoke fib "$fib" ten
usage_error 'argument 1 of fib: "99999999999999999999" is not a valid i64' \
    --invoke fib "$fib" 99999999999999999999
usage_error "unknown option '--bogus'" --bogus "$fib"
usage_error 'function main takes 0 arguments, got 1' "$fib" --bogus # the program's
usage_error "unknown option '-q'" -q "$fib"
usage_error "option '--invoke' needs an argument" --invoke
# Every bad --stack value is bad usage (exit 2), named before anything runs.
for bad in 0 lots 17 0x11 1073741840 100000000000 99999999999999999999; do
    usage_error '--stack needs a positive multiple of 16 bytes, at most 1 GiB' --stack "$bad" "$fib"
done
expect_status 0 "$PULLEY_RUN" --stack 0x1000 --invoke fib "$fib" 10

# Code that assembles but does not verify never runs.
printf '.func main\n    nop\n.end\n' >"$tmp/falls.pasm"
load_error 'last instruction nop falls through the end' "$tmp/falls.pasm"
has err 'function main, offset 0'

# Assembler errors keep their FILE:LINE:COL.
printf '.func main\n    bogus x0\n    ret\n.end\n' >"$tmp/typo.pasm"
load_error "$tmp/typo.pasm:2:" "$tmp/typo.pasm"

# A host function that pulley-run does not provide.
printf '.import launch_rockets\n.func main\n    ret\n.end\n' >"$tmp/import.pasm"
load_error 'launch_rockets' "$tmp/import.pasm"

# A module without entry function and without main.
printf '.func helper\n    ret\n.end\n' >"$tmp/noentry.pasm"
load_error 'no entry function' "$tmp/noentry.pasm"
expect_status 0 "$PULLEY_RUN" --invoke helper "$tmp/noentry.pasm"

# Arguments and results of each type; argument and result k travel in
# register k of their class (here x0, f1, x2, f3).
printf '.func pass i32 f32 i64 f64 -> i32 f32 i64 f64\n    ret\n.end\n' >"$tmp/types.pasm"
expect_status 0 "$PULLEY_RUN" --invoke pass "$tmp/types.pasm" 4294967295 0.1 -0x8000000000000000 0.1
[ "$(cat "$tmp/out")" = "$(printf -- '-1\n0.100000001\n-9223372036854775808\n0.10000000000000001')" ] ||
    fail "pass printed: $(cat "$tmp/out")"
expect_status 0 "$PULLEY_RUN" --invoke pass "$tmp/types.pasm" -2147483648 -inf 18446744073709551615 -0
[ "$(cat "$tmp/out")" = "$(printf -- '-2147483648\n-inf\n-1\n-0')" ] ||
    fail "pass printed: $(cat "$tmp/out")"
usage_error 'argument 1 of pass: "4294967296" is not a valid i32' \
    --invoke pass "$tmp/types.pasm" 4294967296 0 0 0
usage_error 'argument 1 of pass: "-2147483649" is not a valid i32' \
    --invoke pass "$tmp/types.pasm" -2147483649 0 0 0
usage_error 'argument 2 of pass: "1.5x" is not a valid f32' \
    --invoke pass "$tmp/types.pasm" 0 1.5x 0 0
usage_error 'argument 4 of pass: "" is not a valid f64' --invoke pass "$tmp/types.pasm" 0 0 0 ''
# References are 64-bit values in x registers, printed unsigned.
printf '.func refs funcref externref -> funcref externref\n    ret\n.end\n' >"$tmp/refs.pasm"
expect_status 0 "$PULLEY_RUN" --invoke refs "$tmp/refs.pasm" 0 -1
[ "$(cat "$tmp/out")" = "$(printf -- '0\n18446744073709551615')" ] ||
    fail "refs printed: $(cat "$tmp/out")"
usage_error 'argument 2 of refs: "x" is not a valid externref' --invoke refs "$tmp/refs.pasm" 0 x

# Mixed classes, as translated Wasm passes them: mix(a, b, c) reads a in
# x0, b in f1, c in x2 and returns a * 100 + c + b in f0; spread returns
# a + 1 in x0, b * 2 in f1, c + 1 in x2.
cat >"$tmp/mixed.pasm" <<'END'
.func mix i64 f64 i64 -> f64
    xconst8 x3, 100
    xmul64 x0, x0, x3
    xadd64 x0, x0, x2
    f64_from_x64_s f0, x0
    fadd64 f0, f0, f1
    ret
.end

.func spread i64 f64 i64 -> i64 f64 i64
    xconst8 x3, 1
    xadd64 x0, x0, x3
    fadd64 f1, f1, f1
    xadd64 x2, x2, x3
    ret
.end
END
expect_status 0 "$PULLEY_RUN" --invoke mix "$tmp/mixed.pasm" 1 2.5 3
[ "$(cat "$tmp/out")" = "105.5" ] || fail "mix(1, 2.5, 3) printed $(cat "$tmp/out")"
expect_status 0 "$PULLEY_RUN" --invoke spread "$tmp/mixed.pasm" 1 2.5 3
[ "$(cat "$tmp/out")" = "$(printf '2\n5\n4')" ] || fail "spread(1, 2.5, 3) printed $(cat "$tmp/out")"
# Past 16 parameters or results the others would travel in memory: such a
# function cannot be called from the command line.
p17='i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 f64'
printf '.func wide %s\n    ret\n.end\n.func tall -> %s\n    ret\n.end\n' "$p17" "$p17" >"$tmp/wide.pasm"
usage_error 'function wide has 17 parameters: it cannot be called from the command line' \
    --invoke wide "$tmp/wide.pasm" 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17
usage_error 'function tall has 17 results: it cannot be called from the command line' \
    --invoke tall "$tmp/wide.pasm"

# Guest arguments after FILE are not options: "-5" is a number.
expect_status 0 "$PULLEY_RUN" --invoke percent "$PROGRAMS/trap_div.pasm" -5 10
[ "$(cat "$tmp/out")" = "-50" ] || fail "percent(-5, 10) printed $(cat "$tmp/out")"
echo "run_cli: ok"
