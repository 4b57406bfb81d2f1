#!/bin/sh
# collect_reliability.sh - pulley-collect under stress: SIGINT or SIGTERM
# mid-run (once a first chunk of samples is committed, however long a busy
# machine takes to get there) commits every sample taken, ends the run row
# and dies of the signal; collectors writing one database at once all
# succeed and lose nothing; a file that is not a profile database is
# refused untouched.
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

# Wait until run $1 has committed a sample chunk (the sampler and the
# writer are at work), at most a minute.
wait_for_chunk() {
    i=0
    until [ "$("$SQLITE3" -cmd '.timeout 10000' "$db" \
               "SELECT count(*) > 0 FROM sample_chunks WHERE run_id = $1" 2>/dev/null)" = 1 ]; do
        i=$((i + 1))
        [ $i -le 600 ] || fail "run $1: no sample chunk after a minute: $(cat "$tmp/err")"
        kill -0 "$2" 2>/dev/null || fail "run $1: the collector ended early: $(cat "$tmp/err")"
        sleep 0.1
    done
}

# Signals mid-run: the status says killed by the signal, the run is whole.
# The rate is raised so that the first chunk (BUFFER_SAMPLES samples) comes
# within a second or two.
n=1
for sig in INT:2 TERM:15; do
    number=${sig#*:} sig=${sig%:*}
    "$PULLEY_COLLECT" -o "$db" --freq 20000 -- "$PROGRAMS/collect_exit.pasm" 100000000000 \
        >"$tmp/out" 2>"$tmp/err" &
    pid=$!
    wait_for_chunk $n $pid
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

# Three collectors at once into one database (each VM runs long enough,
# ~0.1 s of CPU, for its sampler to take samples however busy the machine).
rm -f "$db"
k=4000
for i in 1 2 3; do
    "$PULLEY_COLLECT" -o "$db" --label "c$i" --invoke loops -- "$PROGRAMS/loops.pasm" $k \
        >"$tmp/out$i" 2>"$tmp/err$i" &
    eval "pid$i=\$!"
done
for i in 1 2 3; do
    eval "pid=\$pid$i"
    wait "$pid" || fail "concurrent collector $i failed: $(cat "$tmp/err$i")"
    [ "$(cat "$tmp/out$i")" = $(((k * (k - 1) / 2) * (k * (k - 1) / 2))) ] ||
        fail "collector $i output $(cat "$tmp/out$i")"
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
