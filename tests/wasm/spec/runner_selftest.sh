#!/bin/sh
# runner_selftest.sh - pulley-spec judges correctly: every command of
# runner_pass.wast passes (its text-format assert_malformed is skipped),
# every command of runner_fail.wast but its first module fails, the last
# line is the total, and the exit status says whether anything failed.
# Environment: PULLEY_SPEC, WAST2JSON.
set -eu
: "${PULLEY_SPEC:?}" "${WAST2JSON:?}"
dir=$(dirname "$0")

. "$(dirname "$0")/../../e2e/lib.sh"

# check STATUS TOTAL FILE...: pulley-spec exits with STATUS, its last line
# is TOTAL, and it printed no sanitizer report.
check() {
    want_status=$1
    want_total=$2
    shift 2
    status=0
    "$PULLEY_SPEC" --wast2json "$WAST2JSON" -v "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
    if grep -q -e 'Sanitizer' -e 'runtime error' "$tmp/out" "$tmp/err"; then
        fail "$*: sanitizer report: $(cat "$tmp/out" "$tmp/err")"
    fi
    [ "$status" -eq "$want_status" ] || fail "$*: exit status $status, expected $want_status: $(cat "$tmp/out")"
    total=$(tail -n 1 "$tmp/out")
    [ "$total" = "$want_total" ] || fail "$*: total '$total', expected '$want_total': $(cat "$tmp/out")"
}

check 0 "26 passed, 0 failed, 1 skipped" "$dir/runner_pass.wast"
check 1 "1 passed, 21 failed, 0 skipped" "$dir/runner_fail.wast"
check 1 "27 passed, 21 failed, 1 skipped" "$dir"
grep -q '^  runner_fail.wast:34: assert_uninstantiable: expected uninstantiable' "$tmp/out" ||
    fail "-v does not list the failing command: $(cat "$tmp/out")"

# A script wast2json rejects counts as one failure; usage errors exit 2.
printf '(module\n' >"$tmp/bad.wast"
check 1 "0 passed, 1 failed, 0 skipped" "$tmp/bad.wast"
status=0
"$PULLEY_SPEC" >/dev/null 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "no argument: exit status $status, expected 2"
# Every bad --timeout is bad usage ("-N" is no large number wrapped round).
for bad in -1 -18446744073709551515 86401 x ''; do
    status=0
    "$PULLEY_SPEC" --timeout="$bad" "$tmp/missing.wast" >/dev/null 2>&1 || status=$?
    [ "$status" -eq 2 ] || fail "--timeout='$bad': exit status $status, expected 2"
done
status=0
"$PULLEY_SPEC" "$tmp/missing.wast" >/dev/null 2>&1 || status=$?
[ "$status" -eq 1 ] || fail "missing file: exit status $status, expected 1"
# A script that hangs is stopped by --timeout: the command it hung in and
# those after it fail, the commands before it keep their outcome.
printf '(module (func (export "spin") (loop (br 0))) (func (export "nop")))\n(invoke "nop")\n(invoke "spin")\n(invoke "nop")\n' >"$tmp/hang.wast"
status=0
"$PULLEY_SPEC" --wast2json "$WAST2JSON" --timeout 1 "$tmp/hang.wast" >"$tmp/out" 2>&1 || status=$?
[ "$status" -eq 1 ] || fail "hang: exit status $status, expected 1: $(cat "$tmp/out")"
grep -q '^  hang.wast:3: timed out' "$tmp/out" || fail "hang: no timeout reported: $(cat "$tmp/out")"
[ "$(tail -n 1 "$tmp/out")" = "2 passed, 2 failed, 0 skipped" ] || fail "hang: $(cat "$tmp/out")"
echo "ok"
