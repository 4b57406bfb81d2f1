#!/bin/sh
# pulley_run_wasm.sh - pulley-run on WebAssembly: a WASI program's output
# and exit status (also with a WASI function imported twice), a trap's
# message (naming the trap, the function and the offset, the same with
# --translate-all) and status 134,
# an unsupported import named at load time, --invoke with typed arguments
# and several results, --env, --emit-pasm (whose .pasm takes
# arguments and gives results where the .wasm does); memory committed as
# it is touched, and --max-memory; a saved translation (.pasm, .pbc) runs
# on its own with the same WASI host.
# Environment: PULLEY_RUN, PULLEY_ASM, PULLEY_TRACE, PULLEY_COLLECT (the
# tools), WASM (the directory of built modules), PEAK_RSS
# (bench/ngrams_scale/peak_rss.c).
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
# A WASI function imported twice: one host import, bound for both.
check 3 'hi\nhi' '' "$PULLEY_RUN" "$WASM/wasi_twice.wasm"
[ "$("$PULLEY_RUN" --emit-pasm "$WASM/wasi_twice.wasm" | grep -c '^\.import .*fd_write')" = 1 ] ||
    fail "--emit-pasm of wasi_twice.wasm does not import fd_write once"
check 134 '' '^pulley-run: trap: integer divide by zero (div_by_zero) in function divide at offset 0x[0-9a-f]\{4\}$' \
    "$PULLEY_RUN" "$WASM/wasi_trap.wasm"
# Translated as called or all up front: the trap is reported at one place.
[ "$("$PULLEY_RUN" "$WASM/wasi_trap.wasm" 2>&1)" = "$("$PULLEY_RUN" --translate-all "$WASM/wasi_trap.wasm" 2>&1)" ] ||
    fail "the trap of wasi_trap.wasm is reported differently with --translate-all"
check 1 '' 'unsupported import wasi_snapshot_preview1.no_such_call' \
    "$PULLEY_RUN" "$WASM/wasi_unsupported.wasm"
check 0 '2.75\n42' '' "$PULLEY_RUN" --invoke add "$WASM/wasi_hello.wasm" 41 2.25
check 2 '' 'not a valid i64' "$PULLEY_RUN" --invoke add "$WASM/wasi_hello.wasm" x 1
"$PULLEY_RUN" --emit-pasm "$WASM/wasi_trap.wasm" | grep -q '^\.func divide i32 -> i32' ||
    fail "--emit-pasm does not show function divide"
# Argument and result k travel in register k of their class, from the
# .wasm and from the .pasm of its translation alike.
"$PULLEY_RUN" --emit-pasm "$WASM/mixed_args.wasm" >"$tmp/mixed_args.pasm" ||
    fail "--emit-pasm mixed_args.wasm failed"
for f in "$WASM/mixed_args.wasm" "$tmp/mixed_args.pasm"; do
    check 0 '105.5' '' "$PULLEY_RUN" --invoke mix "$f" 1 2.5 3
    check 0 '2\n5\n4' '' "$PULLEY_RUN" --invoke spread "$f" 1 2.5 3
done
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
# A saved translation is a program of its own: --emit-pasm writes the
# module's start function, globals, table, element and data segments with
# the code, and the .pasm, and the .pbc pulley-asm makes of it, run under
# pulley-run, pulley-trace and pulley-collect with the same WASI host (the
# arguments, the output, the exit status) as the .wasm.
: "${PULLEY_ASM:?}" "${PULLEY_TRACE:?}" "${PULLEY_COLLECT:?}"
check 0 '' '' sh -c '"$1" --emit-pasm "$2" >"$3"' - "$PULLEY_RUN" "$WASM/standalone.wasm" \
    "$tmp/standalone.pasm"
check 0 '' '' "$PULLEY_ASM" "$tmp/standalone.pasm" -o "$tmp/standalone.pbc"
for f in "$WASM/standalone.wasm" "$tmp/standalone.pasm" "$tmp/standalone.pbc"; do
    check 3 'start=7 base=40 f=3 g=4\na\nb c' '' "$PULLEY_RUN" "$f" a 'b c'
done
check 2 'start=7 base=40 f=3 g=4\nx' 'trap: program exited' "$PULLEY_TRACE" "$tmp/standalone.pbc" x
# Options after the program are the program's, --help too.
check 3 'start=7 base=40 f=3 g=4\n--help\n-V' '' "$PULLEY_RUN" "$WASM/standalone.wasm" --help -V
check 2 'start=7 base=40 f=3 g=4\ny' 'run 1 in' "$PULLEY_COLLECT" -o "$tmp/standalone.db" -- \
    "$tmp/standalone.pbc" y
# Every benchmark-like program saved the same way prints what it prints as
# .wasm: the environment and a directory too.
mkdir "$tmp/granted"
for f in "$WASM/wasi_env.wasm" "$WASM/wasi_hello.wasm"; do
    "$PULLEY_RUN" --emit-pasm "$f" >"$tmp/saved.pasm" && "$PULLEY_ASM" "$tmp/saved.pasm" -o "$tmp/saved.pbc" ||
        fail "saving $f"
    for g in "$f" "$tmp/saved.pbc"; do
        status=0
        "$PULLEY_RUN" --env A=1 --dir "$tmp/granted" "$g" >"$tmp/out.$(basename "$g")" 2>&1 || status=$?
        echo "$status" >>"$tmp/out.$(basename "$g")"
    done
    cmp -s "$tmp/out.$(basename "$f")" "$tmp/out.saved.pbc" ||
        fail "$f saved: $(cat "$tmp/out.saved.pbc"), as .wasm: $(cat "$tmp/out.$(basename "$f")")"
done
# --dir and --env are for programs that import WASI.
printf '.func main -> i64\n    xconst8 x0, 5\n    ret\n.end\n' >"$tmp/plain.pasm"
check 0 '5' '' "$PULLEY_RUN" "$tmp/plain.pasm"
check 2 '' '--dir and --env are for programs that import WASI' "$PULLEY_RUN" --env A=1 \
    "$tmp/plain.pasm"
# A module that needs the instance layer (it imports a memory) is still
# printed, with a note saying why its translation cannot run alone.
check 0 '' 'note: .*link_user.wasm: the translation cannot run on its own: it imports a memory' \
    sh -c '"$1" --emit-pasm "$2" >/dev/null' - "$PULLEY_RUN" "$WASM/link_user.wasm"
echo "pulley-run runs WebAssembly"
