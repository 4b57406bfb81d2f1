#!/bin/sh
# collect_cli.sh - pulley-collect end to end: the program's output and
# exit status pass through (return, exit, trap); the run row is complete;
# the samples agree with the sampler's own accounting (every deadline
# between the first and the last sample sampled or counted as missed, no
# more deadlines than the sampled time holds, the rate reported is the one
# recorded) - nothing that depends on how busy the machine is; every
# sample is at an instruction start of a registered function or is host
# time; every example query in sql/queries runs; usage errors exit 2.
# Environment: PULLEY_COLLECT, SQLITE3, PROGRAMS, QUERIES.
set -eu
: "${PULLEY_COLLECT:?}" "${SQLITE3:?}" "${PROGRAMS:?}" "${QUERIES:?}"

. "$(dirname "$0")/collect_lib.sh"


# A normal return: results on stdout, the summary on stderr.
run 0 -o "$db" --label first --invoke loops -- "$PROGRAMS/loops.pasm" 2500
[ "$(cat "$tmp/out")" = 9757814062500 ] || fail "loops printed $(cat "$tmp/out")"
grep -q "^pulley-collect: [0-9]* samples .* Hz, sampler [0-9.]*% of a core, [0-9]* bytes .*run 1 in $db\$" "$tmp/err" ||
    fail "no summary line: $(cat "$tmp/err")"
# The sampler's CPU time is measured, within the run's time.
[ "$(sql "SELECT sampler_cpu_ns > 0 AND sampler_cpu_ns <= duration_ns FROM runs WHERE id = 1")" = 1 ] ||
    fail "sampler CPU time: $(sql 'SELECT sampler_cpu_ns, duration_ns FROM runs WHERE id = 1')"
[ "$(sql "SELECT outcome || ' ' || exit_status || ' ' || label || ' ' || benchmark
          FROM runs WHERE id = 1")" = "return 0 first loops.pasm" ] || fail "run row: $(sql 'SELECT * FROM runs')"

# The sampler's accounting.  One VM, one slot: one sample per deadline
# sampled, so the deadlines from the first sample to the last (the
# chunks' first_ns and last_ns are tick x period) are each sampled or
# counted as missed; none is sampled twice; and the deadlines accounted
# for fit in the time sampled.  (A loaded machine makes the sampler miss
# deadlines, which is counted, not wrong; how many it misses is no test.)
sql "SELECT samples_taken, ticks_missed, sampled_ns * sample_hz / 1e9,
            (SELECT (max(last_ns) - min(first_ns)) / (1000000000 / r.sample_hz) + 1
             FROM sample_chunks WHERE run_id = r.id),
            round(1e9 * samples_taken / sampled_ns)
     FROM runs r WHERE id = 1" | {
    IFS='|' read -r taken missed deadlines span rate
    awk -v t="$taken" -v m="$missed" -v e="$deadlines" -v s="$span" \
        'BEGIN { exit !(t > 0 && t <= s && s <= t + m && t + m <= e + 2) }' ||
        fail "$taken samples, $missed missed deadlines, $span deadlines from the first sample" \
             "to the last, $deadlines deadlines in the time sampled"
    # The summary line reports the rate recorded.
    hz=$(sed -n 's/^pulley-collect: .* s, \([0-9]*\) Hz, .*/\1/p' "$tmp/err")
    [ -n "$hz" ] && [ $((hz - ${rate%.*})) -le 1 ] && [ $((${rate%.*} - hz)) -le 1 ] ||
        fail "summary says ${hz:-no} Hz, the run row $rate"
}
[ "$(sql "SELECT samples_taken = samples_written + samples_dropped AND samples_dropped = 0
          AND samples_written = (SELECT sum(sample_count) FROM sample_chunks WHERE run_id = 1)
          AND samples_written = (SELECT sum(samples) FROM pc_samples WHERE run_id = 1)
          AND bytes_stored = (SELECT sum(length(data)) FROM sample_chunks WHERE run_id = 1)
          FROM runs WHERE id = 1")" = 1 ] || fail "sample accounting: $(sql 'SELECT * FROM runs')"
[ "$(sql "SELECT count(*) FROM pc_samples p WHERE NOT (
            (p.function_id IS NULL AND p.pc = 0) OR EXISTS (SELECT 1 FROM instructions i
             WHERE i.function_id = p.function_id AND i.offset = p.offset))")" = 0 ] ||
    fail "samples outside instruction starts"
[ "$(sql "SELECT function FROM hot_functions WHERE run_id = 1 LIMIT 1")" = loops ] ||
    fail "loops is not the hottest function"
[ "$(sql "SELECT count(*) FROM functions WHERE run_id = 1")" = 2 ] || fail "functions not registered"
[ "$(sql "SELECT count(*) FROM opcodes WHERE run_id = 1 AND name = 'xadd64'")" = 1 ] ||
    fail "opcode table not stored"

# exit passes its status through; a second run is appended.
run 3 -o "$db" --freq 2000 -- "$PROGRAMS/collect_exit.pasm" 3000000
[ "$(sql "SELECT outcome || ' ' || exit_status || ' ' || sample_hz FROM runs WHERE id = 2")" = \
  "exit 3 2000" ] || fail "exit run: $(sql 'SELECT * FROM runs WHERE id = 2')"

# A trap exits 134 with the message, and the run is still recorded.
run 134 -o "$db" -- "$PROGRAMS/trap_div.pasm"
grep -q "trap: integer divide by zero" "$tmp/err" || fail "no trap message: $(cat "$tmp/err")"
[ "$(sql "SELECT outcome FROM runs WHERE id = 3")" = "trap: div_by_zero" ] || fail "trap run"
[ "$(sql "SELECT count(*) FROM runs WHERE end_time IS NULL")" = 0 ] || fail "a run was not ended"
[ "$(sql "PRAGMA integrity_check")" = ok ] || fail "integrity_check"
[ -z "$(sql 'PRAGMA foreign_key_check')" ] || fail "foreign keys: $(sql 'PRAGMA foreign_key_check')"

# Every example query runs and answers (call_graph.sql needs exact counts).
run 0 -o "$db" --exact --invoke fib -- "$PROGRAMS/fib.pasm" 15
run 0 -o "$db" --invoke fib -- "$PROGRAMS/fib.pasm" 30
queries() { # MEASURE: every query answers, its rows in MEASURE where it says one
    for q in "$QUERIES"/*.sql; do
        "$SQLITE3" -bail -header "$db" <"$q" >"$tmp/q" 2>&1 || fail "$q: $(cat "$tmp/q")"
        [ "$(wc -l <"$tmp/q")" -ge 2 ] || fail "$q: no rows"
        if head -1 "$tmp/q" | grep -q measure; then
            grep -q "|$1|" "$tmp/q" || fail "$q: no row in $1: $(cat "$tmp/q")"
        fi
    done
}
queries samples
# The latest run exact: the same queries answer in executions, and
# compare_runs compares it with the exact run before (run 4), not with
# the sampled run 5.
run 0 -o "$db" --exact --invoke fib -- "$PROGRAMS/fib.pasm" 18
queries executions
[ "$("$SQLITE3" -bail "$db" <"$QUERIES/compare_runs.sql" | head -1 | cut -d'|' -f1-5)" = \
  "4|6|executions|fib.pasm|fib" ] || fail "compare_runs: $("$SQLITE3" "$db" <"$QUERIES/compare_runs.sql")"
[ "$(sql "SELECT executions = weight AND samples = 0 AND percent = 100.0 FROM hot_functions
          WHERE run_id = 6 AND function = 'fib'")" = 1 ] ||
    fail "hot_functions of an exact run: $(sql 'SELECT * FROM hot_functions WHERE run_id = 6')"

# Usage errors.
run 2 -o "$db"
for bad in 0 -1 -18446744073709551615 1000001 10x ' 5' 99999999999999999999; do
    run 2 --freq "$bad" -- "$PROGRAMS/fib.pasm"
    grep -q "^pulley-collect: --freq needs a rate from 1 to 1000000 Hz" "$tmp/err" ||
        fail "--freq '$bad': $(cat "$tmp/err")"
done
run 1 -o "$db" -- "$tmp/missing.pasm"
run 1 -o "$tmp" -- "$PROGRAMS/fib.pasm"
grep -q "$tmp: cannot open: is a directory, not a profile database" "$tmp/err" ||
    fail "a directory as the database: $(cat "$tmp/err")"
run 0 --help
grep -q "^Usage: pulley-collect" "$tmp/out" || fail "--help"
grep -q "134 after a trap" "$tmp/out" || fail "--help without the exit statuses"
grep -q "DIR\[::GUEST\]" "$tmp/out" || fail "--help without --dir DIR::GUEST"
# A database file it may not write: refused, naming the file and saying
# why, exit 1, the file untouched.  Root writes any file, so as root the
# collect runs as nobody (setpriv), or the case is left out.
ro=$tmp/ro/readonly.db
mkdir "$tmp/ro"
run 0 -o "$ro" --invoke loops -- "$PROGRAMS/loops.pasm" 10
chmod 444 "$ro"
chmod 755 "$tmp" "$tmp/ro"
as=""
[ "$(id -u)" != 0 ] || { command -v setpriv >/dev/null && as="setpriv --reuid=65534 --regid=65534 --clear-groups"; }
if [ "$(id -u)" != 0 ] || [ -n "$as" ]; then
    before=$(cksum < "$ro")
    # shellcheck disable=SC2086
    expect_status 1 $as "$PULLEY_COLLECT" -o "$ro" --invoke loops -- "$PROGRAMS/loops.pasm" 10
    grep -q "^pulley-collect: $ro: the database file is read-only" "$tmp/err" ||
        fail "read-only database: $(cat "$tmp/err")"
    [ "$(cksum < "$ro")" = "$before" ] || fail "read-only database: the file changed"
    # A directory it may not write: a new database cannot be made there,
    # nor can one there be written (SQLite's WAL files go beside it); the
    # message names the directory, not "No such file or directory".
    chmod 666 "$ro"
    chmod 555 "$tmp/ro"
    # shellcheck disable=SC2086
    expect_status 1 $as "$PULLEY_COLLECT" -o "$tmp/ro/new.db" -- "$PROGRAMS/fib.pasm"
    grep -q "^pulley-collect: $tmp/ro/new.db: cannot create the database: directory $tmp/ro: Permission denied" \
        "$tmp/err" || fail "read-only directory, new database: $(cat "$tmp/err")"
    # shellcheck disable=SC2086
    expect_status 1 $as "$PULLEY_COLLECT" -o "$ro" --invoke loops -- "$PROGRAMS/loops.pasm" 10
    grep -q "^pulley-collect: $ro: cannot write the database: its directory $tmp/ro is not writable" \
        "$tmp/err" || fail "read-only directory, writable database: $(cat "$tmp/err")"
    [ "$(cksum < "$ro")" = "$before" ] || fail "read-only directory: the database changed"
    chmod 755 "$tmp/ro"
fi
run 1 -o "$tmp/no/such/dir.db" -- "$PROGRAMS/fib.pasm"
grep -q "^pulley-collect: $tmp/no/such/dir.db: cannot create the database: directory $tmp/no/such: No such file or directory" \
    "$tmp/err" || fail "missing directory: $(cat "$tmp/err")"
echo "collect_cli: ok"
