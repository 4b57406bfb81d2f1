#!/bin/sh
# collect_wasm.sh - pulley-collect on WebAssembly programs end to end: the
# program runs under WASI (arguments, --dir, --env, stdout passed through), its
# exit status passes through (proc_exit, a trap gives 134, a load error 1),
# the run row is complete with samples, and the translated functions are
# registered under their Wasm names, with the samples in them (those that
# ran; every one with --translate-all).
# Environment: PULLEY_COLLECT, SQLITE3, WAT2WASM, WAT (tests/wasm).
set -eu
: "${PULLEY_COLLECT:?}" "${SQLITE3:?}" "${WAT2WASM:?}" "${WAT:?}"

. "$(dirname "$0")/collect_lib.sh"

# The programs, built here so that the test does not depend on the build's
# test_wasm_modules target (names kept: they are what is checked).
for name in wasi_spin wasi_hello wasi_trap wasi_unsupported wasi_env wasi_grow; do
    "$WAT2WASM" --debug-names "$WAT/$name.wat" -o "$tmp/$name.wasm" ||
        fail "wat2wasm $name.wat"
done


# A program that spins for its first argument's rounds, then exits 3 with
# proc_exit; run long enough at a high rate to be sampled.
mkdir "$tmp/data"
run 3 -o "$db" --freq 5000 --label spin --dir "$tmp/data" -- "$tmp/wasi_spin.wasm" 20000000
[ "$(cat "$tmp/out")" = spun ] || fail "wasi_spin printed '$(cat "$tmp/out")'"
grep -q "^pulley-collect: [0-9]* samples .*run 1 in $db\$" "$tmp/err" ||
    fail "no summary line: $(cat "$tmp/err")"
[ "$(sql "SELECT outcome || ' ' || exit_status || ' ' || label || ' ' || benchmark
          FROM runs WHERE id = 1")" = "exit 3 spin wasi_spin.wasm" ] ||
    fail "run row: $(sql 'SELECT * FROM runs')"
[ "$(sql "SELECT samples_taken > 0 AND samples_taken = samples_written + samples_dropped
          AND samples_written = (SELECT sum(samples) FROM pc_samples WHERE run_id = 1)
          FROM runs WHERE id = 1")" = 1 ] || fail "no samples: $(sql 'SELECT * FROM runs')"

# Every translated function is registered under its Wasm name, with code.
for fn in rounds spin start; do
    [ "$(sql "SELECT count(*) FROM functions WHERE run_id = 1 AND name = '$fn'
              AND size > 0 AND length(code) = size")" = 1 ] ||
        fail "function $fn not registered: $(sql 'SELECT name FROM functions')"
done
[ "$(sql "SELECT count(*) FROM modules WHERE run_id = 1")" = 1 ] || fail "modules"
[ "$(sql "SELECT count(*) FROM instructions i JOIN functions f ON f.id = i.function_id
          WHERE f.run_id = 1 AND f.name = 'spin'")" -gt 0 ] || fail "spin not decoded"

# The stubs waiting for translation are registered together, one trap
# each, so that a sample taken while one traps lies in known code.
[ "$(sql "SELECT count(*) > 0 AND count(*) = sum(o.name = 'trap') FROM instructions i
          JOIN functions f ON f.id = i.function_id JOIN opcodes o ON o.id = i.opcode
          WHERE f.run_id = 1 AND f.name = '(stubs)'")" = 1 ] ||
    fail "stubs not registered: $(sql 'SELECT name, size FROM functions')"

# The samples are in the program's code, most of them in the loop.
[ "$(sql "SELECT count(*) FROM pc_samples p WHERE NOT (
            (p.function_id IS NULL AND p.pc = 0) OR EXISTS (SELECT 1 FROM instructions i
             WHERE i.function_id = p.function_id AND i.offset = p.offset))")" = 0 ] ||
    fail "samples outside instruction starts"
[ "$(sql "SELECT coalesce(f.name, '') FROM pc_samples p LEFT JOIN functions f
          ON f.id = p.function_id WHERE p.run_id = 1
          GROUP BY p.function_id ORDER BY sum(p.samples) DESC LIMIT 1")" = spin ] ||
    fail "hottest function is not spin: $(sql 'SELECT * FROM pc_samples')"

# WASI output and the exit status of a short program; a second run row.
run 7 -o "$db" -- "$tmp/wasi_hello.wasm"
[ "$(cat "$tmp/out")" = hello ] || fail "wasi_hello printed '$(cat "$tmp/out")'"
[ "$(sql "SELECT outcome || ' ' || exit_status FROM runs WHERE id = 2")" = "exit 7" ] ||
    fail "wasi_hello run row: $(sql 'SELECT * FROM runs WHERE id = 2')"

# Functions are registered when first called (translated then): the
# export `add` never runs and is not in the profile, unless --translate-all.
[ "$(sql "SELECT count(*) FROM functions WHERE run_id = 2 AND name = 'add'")" = 0 ] ||
    fail "add, never called, registered: $(sql 'SELECT name FROM functions WHERE run_id = 2')"
run 7 -o "$tmp/all.db" --translate-all -- "$tmp/wasi_hello.wasm"
[ "$("$SQLITE3" "$tmp/all.db" "SELECT count(*) FROM functions WHERE name IN ('add', 'start')
                               AND size > 0")" = 2 ] ||
    fail "--translate-all: $("$SQLITE3" "$tmp/all.db" 'SELECT name FROM functions')"

# A trap exits 134 with the message and the function's Wasm name.
run 134 -o "$db" -- "$tmp/wasi_trap.wasm"
grep -q "trap: integer divide by zero .* in function divide at offset 0x[0-9a-f]*\$" "$tmp/err" ||
    fail "no trap message: $(cat "$tmp/err")"
[ "$(sql "SELECT outcome || ' ' || exit_status FROM runs WHERE id = 3")" = "trap: div_by_zero 134" ] ||
    fail "trap run row: $(sql 'SELECT * FROM runs WHERE id = 3')"

# Load errors exit 1 and say why: an unsupported WASI import, a --dir
# that cannot be opened.
run 1 -o "$db" -- "$tmp/wasi_unsupported.wasm"
grep -q 'unsupported import wasi_snapshot_preview1.no_such_call' "$tmp/err" ||
    fail "unsupported import not named: $(cat "$tmp/err")"
run 1 -o "$db" --dir "$tmp/no/such/dir" -- "$tmp/wasi_hello.wasm"
[ ! -s "$tmp/out" ] || fail "a program ran without its --dir"

# --env, as pulley-run has it.
PULLEY_TEST_PASSED=through run 0 -o "$db" --env A=1 --env PULLEY_TEST_PASSED -- "$tmp/wasi_env.wasm"
[ "$(cat "$tmp/out")" = "$(printf 'A=1\nPULLEY_TEST_PASSED=through')" ] ||
    fail "--env: the program saw '$(cat "$tmp/out")'"

# --max-memory, as pulley-run has it.
run 1 -o "$db" --max-memory 1M -- "$tmp/wasi_grow.wasm"
grep -q "memory.grow to 4294901760 bytes (4095 MiB) was refused" "$tmp/err" ||
    fail "--max-memory: $(cat "$tmp/err")"

# --invoke calls an export with its arguments and prints its results, as
# pulley-run does; a wrong argument count is bad usage (2).
run 0 -o "$db" --invoke add -- "$tmp/wasi_hello.wasm" 41 2.25
[ "$(cat "$tmp/out")" = "$(printf '2.75\n42')" ] || fail "--invoke add printed '$(cat "$tmp/out")'"
[ "$(sql "SELECT outcome FROM runs ORDER BY id DESC LIMIT 1")" = return ] || fail "--invoke run row"
run 2 -o "$db" --invoke add -- "$tmp/wasi_hello.wasm" 41
grep -q "function add takes 2 arguments, got 1" "$tmp/err" || fail "--invoke add 41: $(cat "$tmp/err")"

# Every row refers to rows that exist (the collector does not have SQLite
# enforce it: collect/profile_db.c).
[ -z "$(sql 'PRAGMA foreign_key_check')" ] || fail "foreign keys: $(sql 'PRAGMA foreign_key_check')"

echo "pulley-collect profiles WebAssembly"
