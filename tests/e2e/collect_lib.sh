# collect_lib.sh - shared by the pulley-collect end-to-end scripts (sourced,
# not run): a temporary directory with the profile database, and helpers.
#   fail MESSAGE          report and exit 1
#   run STATUS ARGS...    pulley-collect ARGS exits with STATUS, stdout and
#                         stderr in $tmp/out and $tmp/err, no sanitizer report
#   sql QUERY             one value from the database
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
db=$tmp/profile.db

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

run() {
    want=$1
    shift
    status=0
    "$PULLEY_COLLECT" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
    if grep -q -e 'Sanitizer' -e 'runtime error' "$tmp/err"; then
        fail "$*: sanitizer report: $(cat "$tmp/err")"
    fi
    [ "$status" -eq "$want" ] || fail "$*: exit status $status, expected $want: $(cat "$tmp/err")"
}

sql() { "$SQLITE3" -bail "$db" "$1"; }
