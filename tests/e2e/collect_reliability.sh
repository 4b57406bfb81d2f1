#!/bin/sh
# collect_reliability.sh - pulley-collect under stress: SIGINT or SIGTERM
# mid-run commits every sample taken, ends the run row and dies of the
# signal; collectors writing one database at once all succeed and lose
# nothing; a file that is not a profile database is refused untouched.
# Environment: PULLEY_COLLECT, SQLITE3, PROGRAMS.
set -eu
: "${PULLEY_COLLECT:?}" "${SQLITE3:?}" "${PROGRAMS:?}"

. "$(dirname "$0")/collect_lib.sh"

# A run that is complete: ended, every sample accounted for, file intact.
check_complete() { # RUN_ID
    [ "$(sql "SELECT end_time IS NOT NULL AND samples_taken > 0
              AND samples_taken = samples_written + samples_dropped
              AND samples_written = (SELECT coalesce(sum(sample_count), 0) FROM sample_chunks
                                     WHERE run_id = $1)
              AND samples_written = (SELECT coalesce(sum(samples), 0) FROM pc_samples
                                     WHERE run_id = $1)
              FROM runs WHERE id = $1")" = 1 ] || fail "run $1 incomplete: $(sql "SELECT * FROM runs WHERE id = $1")"
    [ "$(sql "PRAGMA integrity_check")" = ok ] || fail "integrity_check"
}

# Signals mid-run: the status says killed by the signal, the run is whole.
n=1
for sig in INT:2 TERM:15; do
    number=${sig#*:} sig=${sig%:*}
    "$PULLEY_COLLECT" -o "$db" -- "$PROGRAMS/collect_exit.pasm" 100000000000 \
        >"$tmp/out" 2>"$tmp/err" &
    pid=$!
    sleep 0.5
    kill -s "$sig" "$pid"
    status=0
    wait "$pid" || status=$?
    want=$((128 + number))
    [ "$status" -eq "$want" ] || fail "SIG$sig: status $status, expected $want: $(cat "$tmp/err")"
    grep -q "pulley-collect: [0-9]* samples" "$tmp/err" || fail "SIG$sig: no summary"
    [ "$(sql "SELECT outcome FROM runs WHERE id = $n")" = "signal SIG$sig" ] || fail "SIG$sig outcome"
    check_complete $n
    n=$((n + 1))
done

# Three collectors at once into one database.
rm -f "$db"
for i in 1 2 3; do
    "$PULLEY_COLLECT" -o "$db" --label "c$i" --invoke loops -- "$PROGRAMS/loops.pasm" 2000 \
        >"$tmp/out$i" 2>"$tmp/err$i" &
    eval "pid$i=\$!"
done
for i in 1 2 3; do
    eval "pid=\$pid$i"
    wait "$pid" || fail "concurrent collector $i failed: $(cat "$tmp/err$i")"
    [ "$(cat "$tmp/out$i")" = 3996001000000 ] || fail "collector $i output"
done
[ "$(sql "SELECT count(*) FROM runs")" = 3 ] || fail "concurrent runs: $(sql 'SELECT * FROM runs')"
for i in 1 2 3; do check_complete $i; done

# Not a profile database: refused, untouched.
printf 'precious data, not a database\n' >"$tmp/notes.txt"
cp "$tmp/notes.txt" "$tmp/notes.orig"
status=0
"$PULLEY_COLLECT" -o "$tmp/notes.txt" -- "$PROGRAMS/fib.pasm" >"$tmp/out" 2>"$tmp/err" || status=$?
[ "$status" -eq 1 ] || fail "foreign file: status $status"
grep -q "not a database" "$tmp/err" || fail "foreign file: $(cat "$tmp/err")"
[ ! -s "$tmp/out" ] || fail "the program ran although its database was refused"
cmp -s "$tmp/notes.txt" "$tmp/notes.orig" || fail "foreign file was modified"
echo "collect_reliability: ok"
