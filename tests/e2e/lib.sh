# lib.sh - what the end-to-end test scripts share (sourced, not run): a
# temporary directory $tmp removed on exit, and two helpers.
#   fail MESSAGE                    report and exit 1
#   expect_status STATUS COMMAND... COMMAND exits with STATUS and prints no
#                                   sanitizer report; its stdout and stderr
#                                   are left in $tmp/out and $tmp/err
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

expect_status() {
    want_status=$1
    shift
    status=0
    "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
    if grep -q -e 'Sanitizer' -e 'runtime error' "$tmp/err"; then
        fail "$*: sanitizer report: $(cat "$tmp/err")"
    fi
    [ "$status" -eq "$want_status" ] ||
        fail "$*: exit status $status, expected $want_status; stderr: $(cat "$tmp/err")"
}
