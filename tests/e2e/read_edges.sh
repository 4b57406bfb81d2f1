#!/bin/sh
# read_edges.sh - pulley-ngrams and pulley-report read profiles honestly:
#   - a profile in a directory the reader cannot write (another user's, an
#     archived artefact) is read, and nothing is left beside it;
#   - a byte changed in the stored instructions is found: the run is
#     refused naming it and its function, or left out with --skip-damaged;
#   - a function row without a name damages its run, named by its row;
#   - runs that did not finish (SIGKILL), ended without an outcome or hold
#     no samples are left out by default, each named with its reason, and
#     read when selected by id;
#   - run selection is explicit: an id that names no run, a bare id with
#     two databases and label: beside --train are errors; a database given
#     twice is read once;
#   - pulley-report on a full disk (a file size limit) names the reason,
#     exits 1 and leaves the previous report untouched.
# Environment: PULLEY_COLLECT, PULLEY_NGRAMS, PULLEY_REPORT, SQLITE3, PROGRAMS.
set -eu
: "${PULLEY_COLLECT:?}" "${PULLEY_NGRAMS:?}" "${PULLEY_REPORT:?}" "${SQLITE3:?}" "${PROGRAMS:?}"

. "$(dirname "$0")/lib.sh"
db=$tmp/profile.db
sql() { "$SQLITE3" -bail "$db" "$1"; }

collect() { # ARGS...: a run of loops.pasm into $db
    "$PULLEY_COLLECT" --no-fuse -o "$db" "$@" >/dev/null 2>"$tmp/collect" ||
        fail "pulley-collect $*: $(cat "$tmp/collect")"
}
collect --label a --invoke loops -- "$PROGRAMS/loops.pasm" 3000
collect --label b --invoke loops -- "$PROGRAMS/loops.pasm" 3000

# ---- a read-only directory of another user ---------------------------------
# As root the reader is "nobody" (root may write anywhere); otherwise the
# directory's own permissions keep this user out.
mkdir "$tmp/archive"
cp "$db" "$tmp/archive/profile.db"
chmod 755 "$tmp"
chmod 555 "$tmp/archive"
chmod 444 "$tmp/archive/profile.db"
as_reader() {
    if [ "$(id -u)" -eq 0 ]; then
        setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"
    else
        "$@"
    fi
}
for tool in "$PULLEY_NGRAMS" "$PULLEY_REPORT --text"; do
    status=0
    # shellcheck disable=SC2086 # $tool is a command and its option
    as_reader $tool "$tmp/archive/profile.db" >"$tmp/out" 2>"$tmp/err" || status=$?
    [ "$status" -eq 0 ] || fail "read-only: $tool: status $status: $(cat "$tmp/err")"
    grep -q "loops" "$tmp/out" || fail "read-only: $tool printed nothing about loops"
done
[ "$(ls "$tmp/archive")" = profile.db ] || fail "read-only: left $(ls "$tmp/archive")"
chmod 755 "$tmp/archive"

# ---- a changed byte ---------------------------------------------------------
cp "$db" "$tmp/damaged.db"
# The first "xadd64 x" in the file is the text of an instruction row (opcode
# names stand alone); make it "xadd65 x".
at=$(grep -obUa 'xadd64 x' "$tmp/damaged.db" | head -1 | cut -d: -f1)
[ -n "$at" ] || fail "no instruction text in the profile"
printf 5 | dd of="$tmp/damaged.db" bs=1 seek=$((at + 5)) conv=notrunc 2>/dev/null
[ "$("$SQLITE3" "$tmp/damaged.db" 'PRAGMA quick_check')" = ok ] ||
    fail "the flip broke the file's structure: the test wants a change SQLite cannot see"
for tool in "$PULLEY_NGRAMS" "$PULLEY_REPORT --text"; do
    # shellcheck disable=SC2086
    expect_status 1 $tool "$tmp/damaged.db"
    grep -q "damaged.db: run [12] is damaged: function loops: .*checksum" "$tmp/err" ||
        fail "damaged: $tool said: $(cat "$tmp/err")"
    # shellcheck disable=SC2086
    expect_status 0 $tool "$tmp/damaged.db" --skip-damaged
    grep -q "left out run [12] of $tmp/damaged.db: it is damaged: function loops" "$tmp/err" ||
        fail "--skip-damaged: $tool said: $(cat "$tmp/err")"
done

# ---- a function without a name; a run closed without an outcome ------------
# The schema says NOT NULL; a file written otherwise (by hand, another
# writer) is damage named by its row, not "not an error".
cp "$db" "$tmp/noname.db"
"$SQLITE3" "$tmp/noname.db" "PRAGMA writable_schema = ON;
    UPDATE sqlite_master SET sql = replace(sql, 'name      TEXT NOT NULL', 'name      TEXT')
    WHERE type = 'table' AND name = 'functions'" || fail "cannot drop NOT NULL"
"$SQLITE3" "$tmp/noname.db" "UPDATE functions SET name = NULL WHERE id =
    (SELECT min(id) FROM functions WHERE run_id = 2)" || fail "cannot set a NULL name"
nid=$("$SQLITE3" "$tmp/noname.db" "SELECT id FROM functions WHERE name IS NULL")
for tool in "$PULLEY_NGRAMS" "$PULLEY_REPORT --text"; do
    # shellcheck disable=SC2086
    expect_status 1 $tool "$tmp/noname.db"
    grep -q "noname.db: run 2 is damaged: functions row $nid: its name is NULL" "$tmp/err" ||
        fail "NULL name: $tool said: $(cat "$tmp/err")"
done
cp "$db" "$tmp/nooutcome.db"
"$SQLITE3" "$tmp/nooutcome.db" "UPDATE runs SET outcome = NULL WHERE id = 2"
expect_status 0 "$PULLEY_NGRAMS" "$tmp/nooutcome.db"
grep -q "left out run 2 of $tmp/nooutcome.db: it has no recorded outcome (it ended without one)" \
    "$tmp/err" || fail "run closed without an outcome: $(cat "$tmp/err")"

# ---- runs that did not finish or hold no samples ----------------------------
# Run 3 is killed once it has committed samples; run 4 ends before its
# first sample is due (1 Hz).
"$PULLEY_COLLECT" --no-fuse -o "$db" --freq 200 --invoke loops -- "$PROGRAMS/loops.pasm" 2000000000 \
    >/dev/null 2>&1 &
pid=$!
i=0
until [ "$("$SQLITE3" -cmd '.timeout 10000' "$db" \
           "SELECT count(*) FROM sample_chunks WHERE run_id = 3" 2>/dev/null)" = 1 ]; do
    i=$((i + 1))
    [ $i -le 600 ] || { kill -9 $pid; fail "run 3: no chunk after a minute"; }
    sleep 0.1
done
kill -9 $pid
wait $pid || true
collect --freq 1 --invoke loops -- "$PROGRAMS/loops.pasm" 10
[ "$(sql 'SELECT samples_written FROM runs WHERE id = 4')" = 0 ] || fail "run 4 has samples"
expect_status 0 "$PULLEY_NGRAMS" "$db"
grep -q "left out run 3 of $db: it did not finish (killed, or still running)" "$tmp/err" ||
    fail "killed run: $(cat "$tmp/err")"
grep -q "left out run 4 of $db: it has no samples" "$tmp/err" || fail "empty run: $(cat "$tmp/err")"
grep -q "(2 runs, 1 benchmarks)" "$tmp/out" || fail "default selection: $(head -3 "$tmp/out")"
expect_status 0 "$PULLEY_REPORT" --text "$db" --runs 3
! grep -q "left out" "$tmp/err" || fail "--runs 3 left something out: $(cat "$tmp/err")"

# ---- explicit selection -------------------------------------------------------
expect_status 1 "$PULLEY_NGRAMS" "$db" --runs 1,99
grep -q "has no run 99" "$tmp/err" || fail "--runs 1,99: $(cat "$tmp/err")"
cp "$db" "$tmp/other.db"
expect_status 1 "$PULLEY_NGRAMS" "$db" "$tmp/other.db" --runs 1
grep -q "say which one (DB:1)" "$tmp/err" || fail "bare id, two databases: $(cat "$tmp/err")"
expect_status 0 "$PULLEY_NGRAMS" "$db" "$tmp/other.db" --runs "$tmp/other.db:2"
grep -q "(1 runs, 1 benchmarks)" "$tmp/out" || fail "DB:ID: $(head -3 "$tmp/out")"
expect_status 0 "$PULLEY_NGRAMS" "$db" "$tmp/../$(basename "$tmp")/profile.db"
grep -q "given twice: read once" "$tmp/err" || fail "same database twice: $(cat "$tmp/err")"
grep -q "(2 runs, 1 benchmarks)" "$tmp/out" || fail "same database twice: $(head -3 "$tmp/out")"
expect_status 2 "$PULLEY_NGRAMS" "$db" --runs label:a --train a --test b
expect_status 0 "$PULLEY_NGRAMS" "$db" --runs kind:sampled --train a --test b
expect_status 1 "$PULLEY_NGRAMS" "$db" --train a --test nosuch
grep -q "no run is labelled 'nosuch'" "$tmp/err" || fail "--test nosuch: $(cat "$tmp/err")"
expect_status 1 "$PULLEY_NGRAMS" "$db" --train nosuch --test b
grep -q "no run is labelled 'nosuch'" "$tmp/err" || fail "--train nosuch: $(cat "$tmp/err")"

# ---- a full disk under pulley-report -----------------------------------------
# A report of 200 functions of 40 instructions, all executed (an exact run),
# is over 1 MB; the file size limit (512 KiB or 1 MiB, as the shell counts
# blocks) leaves room for the database's 32 KiB shared-memory file only.
{
    awk 'BEGIN {
        print ".func main\n    push_frame"
        for (f = 0; f < 200; f++) printf "    call pad%d\n", f
        print "    pop_frame\n    ret\n.end"
    }'
    pad_functions 200
} >"$tmp/wide.pasm"
"$PULLEY_COLLECT" --no-fuse --exact -o "$tmp/wide.db" -- "$tmp/wide.pasm" >/dev/null 2>"$tmp/err" ||
    fail "collecting wide.pasm: $(cat "$tmp/err")"
expect_status 0 "$PULLEY_REPORT" "$tmp/wide.db" --threshold 0 --functions 1000 -o "$tmp/whole.html"
[ "$(wc -c <"$tmp/whole.html")" -gt 1100000 ] || fail "the report is not over 1 MB"
echo "the previous report" >"$tmp/report.html"
status=0
(ulimit -f 1024 && exec "$PULLEY_REPORT" "$tmp/wide.db" --threshold 0 --functions 1000 \
    -o "$tmp/report.html") >"$tmp/out" 2>"$tmp/err" || status=$?
[ "$status" -eq 1 ] || fail "report on a full disk: status $status: $(cat "$tmp/err")"
grep -q "report.html: File too large" "$tmp/err" || fail "report on a full disk: $(cat "$tmp/err")"
[ "$(cat "$tmp/report.html")" = "the previous report" ] || fail "the previous report was lost"
[ "$(ls "$tmp" | grep -c 'report.html')" = 1 ] || fail "a partial report was left: $(ls "$tmp")"
echo "read_edges: ok"
