#!/bin/sh
# collect_exact.sh - `pulley-collect --exact` end to end: the run is made by
# the counting build (pulley-collect-exact), its row says so (exact = 1,
# build flags "count", 0 samples), and exec_counts / edge_counts hold
# exactly what the program must execute: every instruction of loops.pasm's
# nested loops and its back edges, computed from the loop bound; a .wasm
# loop's back edge and loop head from its trip count.  Without --exact the
# count tables stay empty.
# Environment: PULLEY_COLLECT, SQLITE3, PROGRAMS, WAT2WASM.
set -eu
: "${PULLEY_COLLECT:?}" "${SQLITE3:?}" "${PROGRAMS:?}" "${WAT2WASM:?}"

. "$(dirname "$0")/collect_lib.sh"


# ---- loops.pasm: loops(n), n = 37 ----------------------------------------
n=37
run 0 -o "$db" --exact --label exact --invoke loops -- "$PROGRAMS/loops.pasm" $n
[ "$(cat "$tmp/out")" = $(((n * (n - 1) / 2) * (n * (n - 1) / 2))) ] ||
    fail "loops printed $(cat "$tmp/out")"
grep -q "^pulley-collect: 0 samples .*run 1 in $db\$" "$tmp/err" ||
    fail "no summary line: $(cat "$tmp/err")"
[ "$(sql "SELECT exact, samples_taken, samples_written, samples_dropped, outcome, exit_status,
                 label, build_flags LIKE '% count%'
          FROM runs WHERE id = 1")" = "1|0|0|0|return|0|exact|1" ] ||
    fail "run row: $(sql 'SELECT * FROM runs')"

# What loops(n) must execute, instruction by instruction (in code order):
#   3 setup; outer head (xlt, br_if_not) n+1; xconst8 j n;
#   inner head (xlt, br_if_not) n(n+1); body (xmul, xadd, xadd, jump) n^2;
#   next_i (xadd, jump) n; done (xmov, ret) 1.
o=$((n + 1)) i=$((n * (n + 1))) b=$((n * n))
expected="1 1 1 $o $o $n $i $i $b $b $b $b $n $n 1 1"
got=$(sql "SELECT group_concat(count, ' ') FROM (
             SELECT coalesce(e.count, 0) AS count FROM instructions i
             JOIN functions f ON f.id = i.function_id AND f.run_id = 1 AND f.name = 'loops'
             LEFT JOIN exec_counts e ON e.function_id = i.function_id AND e.offset = i.offset
             ORDER BY i.offset)")
[ "$got" = "$expected" ] || fail "loops exec counts: $got, expected $expected"
# No count outside an instruction start, nothing for the uncalled main.
[ "$(sql "SELECT count(*) FROM exec_counts e WHERE run_id = 1 AND NOT EXISTS
          (SELECT 1 FROM instructions i WHERE i.function_id = e.function_id
           AND i.offset = e.offset)")" = 0 ] || fail "exec counts off instruction starts"
[ "$(sql "SELECT count(*) FROM exec_counts e JOIN functions f ON f.id = e.function_id
          WHERE e.run_id = 1 AND f.name = 'main'")" = 0 ] || fail "main has counts"

# The taken edges: the inner back edge n^2 times, the outer back edge n
# times, the inner loop's exit n times, the outer loop's exit once;
# written as (from, to) instruction numbers.
edges=$(sql "WITH ins AS (
               SELECT i.function_id, i.offset,
                      row_number() OVER (ORDER BY i.offset) - 1 AS k
               FROM instructions i JOIN functions f ON f.id = i.function_id
               WHERE f.run_id = 1 AND f.name = 'loops')
             SELECT group_concat(a.k || '>' || b.k || '=' || e.count, ' ') FROM (
               SELECT * FROM edge_counts WHERE run_id = 1 ORDER BY from_offset) e
             JOIN ins a ON a.function_id = e.function_id AND a.offset = e.from_offset
             JOIN ins b ON b.function_id = e.function_id AND b.offset = e.to_offset")
want="4>14=1 7>12=$n 11>6=$b 13>3=$n"
[ "$edges" = "$want" ] || fail "loops edges: $edges, expected $want"
[ "$(sql "SELECT count(*) FROM edge_counts WHERE run_id = 1")" = 4 ] ||
    fail "extra edges: $(sql 'SELECT * FROM edge_counts')"

# ---- main: calls loops(100); counts of both functions ----------------------
run 0 -o "$db" --exact -- "$PROGRAMS/loops.pasm"
[ "$(cat "$tmp/out")" = 24502500 ] || fail "main printed $(cat "$tmp/out")"
[ "$(sql "SELECT group_concat(name || ':' || c, ' ') FROM (
            SELECT f.name, sum(e.count) AS c FROM exec_counts e
            JOIN functions f ON f.id = e.function_id WHERE e.run_id = 2
            GROUP BY f.name ORDER BY f.name)")" = \
  "loops:$((3 + 2 * 101 + 100 + 2 * 100 * 101 + 4 * 100 * 100 + 2 * 100 + 2)) main:5" ] ||
    fail "run 2 counts: $(sql 'SELECT * FROM exec_counts WHERE run_id = 2')"
# The opcode profile view sums them.
[ "$(sql "SELECT executions FROM opcode_profile WHERE run_id = 2 AND name = 'xmul64'")" = 10000 ] ||
    fail "opcode_profile: $(sql 'SELECT * FROM opcode_profile WHERE run_id = 2')"

# ---- a trap: the counts up to it are recorded (the trapping instruction
# counts: it started) -----------------------------------------------------
run 2 -o "$db" --exact -- "$PROGRAMS/trap_div.pasm"
[ "$(sql "SELECT outcome FROM runs WHERE id = 3")" = "trap: div_by_zero" ] ||
    fail "run 3: $(sql 'SELECT * FROM runs WHERE id = 3')"
[ "$(sql "SELECT group_concat(f.name || '@' || e.offset, ' ') FROM exec_counts e
          JOIN functions f ON f.id = e.function_id
          WHERE e.run_id = 3 AND f.name = 'percent' AND e.offset >= 6")" = "percent@6" ] ||
    fail "trap counts: $(sql 'SELECT * FROM exec_counts WHERE run_id = 3')"

# ---- without --exact: no counts -------------------------------------------
run 0 -o "$db" --freq 1000 --invoke loops -- "$PROGRAMS/loops.pasm" 20
[ "$(sql "SELECT exact FROM runs WHERE id = 4")" = 0 ] || fail "run 4 is exact"
[ "$(sql "SELECT (SELECT count(*) FROM exec_counts WHERE run_id = 4) +
                 (SELECT count(*) FROM edge_counts WHERE run_id = 4)")" = 0 ] ||
    fail "a sampled run has exact counts"

# ---- a .wasm loop of 1237 trips ---------------------------------------------
cat >"$tmp/loop.wat" <<'WAT'
(module
  (func $count (param $n i32) (result i32)
    (local $i i32) (local $s i32)
    (block $done
      (loop $top
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $s (i32.add (local.get $s) (local.get $i)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $top)))
    (local.get $s))
  (func (export "_start")
    (drop (call $count (i32.const 1237)))))
WAT
"$WAT2WASM" --debug-names "$tmp/loop.wat" -o "$tmp/loop.wasm" || fail "wat2wasm loop.wat"
run 0 -o "$db" --exact -- "$tmp/loop.wasm"
[ "$(sql "SELECT exact || outcome FROM runs WHERE id = 5")" = 1return ] ||
    fail "run 5: $(sql 'SELECT * FROM runs WHERE id = 5')"
# Exactly one backward edge in count, taken 1237 times; one exit, once;
# the loop head ran 1238 times.
[ "$(sql "SELECT group_concat((e.to_offset < e.from_offset) || ':' || e.count, ' ') FROM (
            SELECT e.* FROM edge_counts e JOIN functions f ON f.id = e.function_id
            WHERE e.run_id = 5 AND f.name = 'count' ORDER BY e.to_offset < e.from_offset) e")" = \
  "0:1 1:1237" ] || fail "wasm edges: $(sql 'SELECT * FROM edge_counts WHERE run_id = 5')"
[ "$(sql "SELECT max(e.count) FROM exec_counts e JOIN functions f ON f.id = e.function_id
          WHERE e.run_id = 5 AND f.name = 'count'")" = 1238 ] ||
    fail "wasm loop head: $(sql 'SELECT * FROM exec_counts WHERE run_id = 5')"

[ "$(sql 'PRAGMA integrity_check')" = ok ] || fail "integrity_check"
echo "collect_exact: ok"
