#!/bin/sh
# pulley_run_wasm.sh - pulley-run on WebAssembly: a WASI program's output
# and exit status, a trap's message (naming the trap, the function and the
# offset) and status 134, an unsupported import named at load time, --invoke with typed
# arguments and several results, --env, --emit-pasm; memory committed as
# it is touched, and --max-memory.
# Environment: PULLEY_RUN (the tool), WASM (the directory of built modules),
# PEAK_RSS (bench/ngrams_scale/peak_rss.c).
set -eu
: "${PULLEY_RUN:?}" "${WASM:?}" "${PEAK_RSS:?}"

. "$(dirname "$0")/../e2e/lib.sh"

# check STATUS STDOUT STDERR-PATTERN COMMAND... (pattern '': no stderr)
check() {
    want_status=$1 want_out=$(printf '%b' "$2") want_err=$3
    shift 3
    status=0
    "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
    [ "$status" -eq "$want_status" ] || fail "$*: status $status, want $want_status ($(cat "$tmp/err"))"
    [ "$(cat "$tmp/out")" = "$want_out" ] || fail "$*: output '$(cat "$tmp/out")', want '$want_out'"
    if [ -z "$want_err" ]; then
        [ ! -s "$tmp/err" ] || fail "$*: unexpected stderr '$(cat "$tmp/err")'"
    else
        grep -q -e "$want_err" "$tmp/err" || fail "$*: stderr '$(cat "$tmp/err")' lacks '$want_err'"
    fi
}

check 7 'hello' '' "$PULLEY_RUN" "$WASM/wasi_hello.wasm"
check 134 '' '^pulley-run: trap: integer divide by zero (div_by_zero) in function divide at offset 0x[0-9a-f]\{4\}$' \
    "$PULLEY_RUN" "$WASM/wasi_trap.wasm"
check 1 '' 'unsupported import wasi_snapshot_preview1.no_such_call' \
    "$PULLEY_RUN" "$WASM/wasi_unsupported.wasm"
check 0 '2.75\n42' '' "$PULLEY_RUN" --invoke add "$WASM/wasi_hello.wasm" 41 2.25
check 2 '' 'not a valid i64' "$PULLEY_RUN" --invoke add "$WASM/wasi_hello.wasm" x 1
"$PULLEY_RUN" --emit-pasm "$WASM/wasi_trap.wasm" | grep -q '^\.func divide i32 -> i32' ||
    fail "--emit-pasm does not show function divide"
# The environment: empty unless --env sets (NAME=VALUE) or passes on (NAME)
# a variable; a NAME this process lacks is not set; options after the
# program are the program's.
check 0 '' '' "$PULLEY_RUN" "$WASM/wasi_env.wasm"
PULLEY_TEST_PASSED=through check 0 'A=1\nPULLEY_TEST_PASSED=through\nB=x y' '' \
    "$PULLEY_RUN" --env A=1 --env PULLEY_TEST_PASSED --env PULLEY_TEST_UNSET --env 'B=x y' \
    "$WASM/wasi_env.wasm" --env C=3
check 2 '' "a variable needs a name" "$PULLEY_RUN" --env =1 "$WASM/wasi_env.wasm"
# Growing memory to almost 4 GiB and touching two pages of it costs about
# two pages (the old eager heap took 4.2 GB); --max-memory refuses the grow,
# the program sees -1 (it exits 1) and a note says why.
check 0 '' '' "$PEAK_RSS" -o "$tmp/rss" "$PULLEY_RUN" "$WASM/wasi_grow.wasm"
[ "$(cat "$tmp/rss")" -lt 200000 ] || fail "a 4 GiB memory.grow took $(cat "$tmp/rss") KB"
check 1 '' "memory.grow to 4294901760 bytes (4095 MiB) was refused: --max-memory is 67108864" \
    "$PULLEY_RUN" --max-memory 64M "$WASM/wasi_grow.wasm"
check 2 '' "--max-memory needs a size" "$PULLEY_RUN" --max-memory 1T "$WASM/wasi_grow.wasm"
echo "pulley-run runs WebAssembly"
