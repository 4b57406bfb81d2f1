# lib.sh - what the end-to-end test scripts share (sourced, not run): a
# temporary directory $tmp removed on exit, and three helpers.
#   fail MESSAGE                    report and exit 1
#   expect_status STATUS COMMAND... COMMAND exits with STATUS and prints no
#                                   sanitizer report; its stdout and stderr
#                                   are left in $tmp/out and $tmp/err
#   pad_functions N                 print N .pasm functions of 40 instructions
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

# pad_functions N: N functions pad0 .. pad(N-1) of 40 instructions each
# (.pasm), to make a program with much code.
pad_functions() {
    awk -v n="$1" 'BEGIN {
        for (f = 0; f < n; f++) {
            printf ".func pad%d\n", f
            for (i = 0; i < 40; i++)
                printf "    xadd64 x%d, x%d, x%d\n", i % 8, (i + 1) % 8, (i + 2) % 8
            print "    ret\n.end"
        }
    }'
}
