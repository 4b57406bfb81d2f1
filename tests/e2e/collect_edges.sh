#!/bin/sh
# collect_edges.sh - pulley-collect where a CI pipeline puts it, never
# reporting a lost profile as a success:
#   - a file size limit (RLIMIT_FSIZE, a full disk for this process) hit
#     while the functions are stored: exit 1, a message saying what was
#     lost, and a run row marked incomplete, never "return";
#   - stdout closed by its reader (`| head -1`): the program sees EPIPE on
#     its write, as it would natively, and the run is recorded whole;
#   - an empty --output is refused (SQLite would open a temporary
#     database and the data would be gone);
#   - SIGKILL loses at most about a second of samples: a chunk is
#     committed once its oldest sample is a second old, however low the
#     rate;
#   - a sample rate far above what the sampler achieves is warned about.
# Environment: PULLEY_COLLECT, SQLITE3, WAT2WASM, WAT (tests/wasm).
set -eu
: "${PULLEY_COLLECT:?}" "${SQLITE3:?}" "${WAT2WASM:?}" "${WAT:?}"

. "$(dirname "$0")/collect_lib.sh"

# A program with much code: 3000 functions of 40 instructions (several MB
# of stored instructions), and a main that spins for its argument's rounds.
{
    printf '.func main i64\n    xconst8 x1, 1\nspin:\n    br_if_not x0, done\n'
    printf '    xsub64 x0, x0, x1\n    jump spin\ndone:\n    ret\n.end\n'
    pad_functions 3000
} >"$tmp/big.pasm"

# ---- a full disk -----------------------------------------------------------
# 2048 blocks (1 or 2 MiB, as the shell counts them): room for the schema,
# the run row and the opcode table, not for the instructions.  pulley-collect
# takes SIGXFSZ as the error it is rather than dying of it.
status=0
(ulimit -f 2048 && exec "$PULLEY_COLLECT" --no-fuse -o "$db" -- "$tmp/big.pasm" 1000) \
    >"$tmp/out" 2>"$tmp/err" || status=$?
[ "$status" -eq 1 ] || fail "file size limit: status $status, expected 1: $(cat "$tmp/err")"
grep -q "run 1 in $db is incomplete: .*not stored" "$tmp/err" ||
    fail "file size limit: no message saying what was lost: $(cat "$tmp/err")"
outcome=$(sql "SELECT coalesce(outcome, 'NULL') FROM runs WHERE id = 1")
case $outcome in
    NULL | "incomplete: "*"(return)") ;;
    *) fail "file size limit: the run row says '$outcome'" ;;
esac
[ "$(sql "SELECT exit_status FROM runs WHERE id = 1")" = 0 ] || fail "the program's status is kept"
# The catalog is written a few hundred functions per transaction (so that
# sample chunks need not wait for all of it): the functions stored before
# the disk filled are whole, each with its instructions and checksum.
[ "$(sql "SELECT count(*) FROM functions f WHERE run_id = 1 AND (checksum IS NULL OR
          (SELECT count(*) FROM instructions i WHERE i.function_id = f.id)
            <> CASE name WHEN 'main' THEN 5 ELSE 41 END)")" = 0 ] ||
    fail "file size limit: a function half stored: $(sql "SELECT name, checksum, (SELECT count(*) FROM instructions i WHERE i.function_id = f.id) FROM functions f WHERE run_id = 1 LIMIT 3")"
[ "$(sql "SELECT count(*) < 3001 FROM functions WHERE run_id = 1")" = 1 ] ||
    fail "file size limit: every function stored, nothing was lost"
[ "$(sql "PRAGMA integrity_check")" = ok ] || fail "file size limit: integrity_check"
# The same run without the limit is stored whole.
run 0 -o "$db" -- "$tmp/big.pasm" 1000
[ "$(sql "SELECT outcome || ' ' || (SELECT count(*) FROM functions WHERE run_id = 2)
          FROM runs WHERE id = 2")" = "return 3001" ] || fail "run 2: $(sql 'SELECT * FROM runs')"

# ---- a closed pipe ---------------------------------------------------------
"$WAT2WASM" "$WAT/wasi_chatter.wat" -o "$tmp/chatter.wasm" || fail "wat2wasm wasi_chatter.wat"
rm -f "$db"
{
    status=0
    "$PULLEY_COLLECT" -o "$db" -- "$tmp/chatter.wasm" 2>"$tmp/err" || status=$?
    echo $status >"$tmp/status"
} | head -1 >"$tmp/out"
[ "$(cat "$tmp/out")" = chatter ] || fail "closed pipe: printed '$(cat "$tmp/out")'"
# 64: the program got WASI's EPIPE from fd_write and exited with it.
[ "$(cat "$tmp/status")" = 64 ] || fail "closed pipe: status $(cat "$tmp/status"): $(cat "$tmp/err")"
[ "$(sql "SELECT outcome || ' ' || exit_status || ' ' || (end_time IS NOT NULL)
          || ' ' || (SELECT count(*) > 0 FROM functions WHERE run_id = 1) FROM runs")" = "exit 64 1 1" ] ||
    fail "closed pipe: run row $(sql 'SELECT * FROM runs')"

# ---- an empty output name --------------------------------------------------
expect_status 2 "$PULLEY_COLLECT" -o '' -- "$tmp/big.pasm" 1
grep -q -- "--output needs a file name" "$tmp/err" || fail "-o '': $(cat "$tmp/err")"
[ ! -s "$tmp/out" ] || fail "-o '': the program ran"

# ---- SIGKILL ---------------------------------------------------------------
# At 100 Hz a buffer (16384 samples) would take 164 s to fill: the first
# chunk must come after about a second, holding about a second of samples.
rm -f "$db"
"$PULLEY_COLLECT" --no-fuse -o "$db" --freq 100 -- "$tmp/big.pasm" 100000000000 \
    >"$tmp/out" 2>"$tmp/err" &
pid=$!
i=0
# (At least one: on a loaded machine the second may be there by the time
# this looks.)
until [ "$("$SQLITE3" -cmd '.timeout 10000' "$db" \
           "SELECT count(*) >= 1 FROM sample_chunks WHERE run_id = 1" 2>/dev/null)" = 1 ]; do
    i=$((i + 1))
    [ $i -le 600 ] || { kill -9 $pid; fail "SIGKILL: no chunk after a minute"; }
    kill -0 $pid 2>/dev/null || fail "SIGKILL: the collector ended early: $(cat "$tmp/err")"
    sleep 0.1
done
kill -9 $pid
wait $pid || true
# The chunk covers about a second: its first and last sample less than
# 1.2 s apart, at most 120 samples; the run never ended.
[ "$(sql "SELECT sample_count <= 120 AND last_ns - first_ns < 1200000000 FROM sample_chunks
          WHERE run_id = 1 AND seq = 0")" = 1 ] ||
    fail "SIGKILL: the first chunk is not about a second: $(sql 'SELECT run_id, seq, sample_count, first_ns, last_ns FROM sample_chunks')"
[ "$(sql "SELECT outcome IS NULL AND end_time IS NULL FROM runs WHERE id = 1")" = 1 ] ||
    fail "SIGKILL: $(sql 'SELECT * FROM runs')"
# ---- a rate the sampler cannot keep ----------------------------------------
# Whatever the machine achieves, the warning comes exactly when the summary's
# rate is under half the rate asked for.  The collector judges the rate only
# over runs of a tenth of a second or more (the first ticks' jitter), so the
# program spins for several tenths here, and the test says so if it did not.
run 0 -o "$db" --freq 1000000 -- "$tmp/big.pasm" 300000000
hz=$(sed -n 's/.* s, \([0-9]*\) Hz,.*/\1/p' "$tmp/err")
secs=$(sed -n 's/.* in \([0-9.]*\) s, .*/\1/p' "$tmp/err")
[ -n "$hz" ] && [ -n "$secs" ] || fail "--freq 1000000: no summary: $(cat "$tmp/err")"
awk -v s="$secs" 'BEGIN { exit !(s >= 0.1) }' ||
    fail "--freq 1000000: the run took $secs s, too short to judge the rate"
if [ "$hz" -lt 500000 ]; then
    grep -q "warning: sampled at $hz Hz of the 1000000 Hz asked for" "$tmp/err" ||
        fail "--freq 1000000 achieved $hz Hz without a warning: $(cat "$tmp/err")"
else
    ! grep -q warning "$tmp/err" || fail "a warning at $hz Hz: $(cat "$tmp/err")"
fi
echo "collect_edges: ok"
