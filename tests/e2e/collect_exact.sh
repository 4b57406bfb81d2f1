#!/bin/sh
# collect_exact.sh - `pulley-collect --exact` end to end: the run is made by
# the counting build (pulley-collect-exact), its row says so (exact = 1,
# build flags "count", 0 samples; its summary line counts executions), and exec_counts / edge_counts hold
# exactly what the program must execute: every instruction of loops.pasm's
# nested loops and its back edges, computed from the loop bound; every
# call and return of fib.pasm, between main and fib and from fib to
# itself, computed from the Fibonacci numbers; a .wasm loop's back edge,
# loop head, call and return from its trip count.  Without --exact the
# count tables stay empty.  A schema version 1 database (made from its
# schema text, collect_schema_v1.sql) is migrated when a run is appended:
# its rows kept, its edges given their function as target, its tables then
# the same as a new database's; a newer one is refused untouched.
# Environment: PULLEY_COLLECT, SQLITE3, PROGRAMS, WAT2WASM.
set -eu
: "${PULLEY_COLLECT:?}" "${SQLITE3:?}" "${PROGRAMS:?}" "${WAT2WASM:?}"

. "$(dirname "$0")/collect_lib.sh"

# ---- loops.pasm: loops(n), n = 37 ----------------------------------------
n=37
run 0 -o "$db" --exact --label exact --invoke loops -- "$PROGRAMS/loops.pasm" $n
[ "$(cat "$tmp/out")" = $(((n * (n - 1) / 2) * (n * (n - 1) / 2))) ] ||
    fail "loops printed $(cat "$tmp/out")"
# The summary counts what ran: the sum of the exact counts, not samples.
executed=$(sql "SELECT sum(count) FROM exec_counts WHERE run_id = 1")
grep -q "^pulley-collect: $executed instructions executed (exact counts) in [0-9.]* s, run 1 in $db\$" "$tmp/err" ||
    fail "no summary line of $executed executions: $(cat "$tmp/err")"
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

# ---- fib.pasm: main calls fib(20), which calls itself ------------------------
# Every taken transfer as "function#instruction opcode > function#instruction
# = count" (instructions numbered in code order).  fib(20) makes 2 fib(21) - 1
# calls in all: fib(21) - 1 of them (n >= 2) call twice and return to after
# each call site, fib(21) (n < 2) take br_if to the ret; main calls once and
# fib returns to main once.
run 0 -o "$db" --exact -- "$PROGRAMS/fib.pasm"
[ "$(cat "$tmp/out")" = 6765 ] || fail "fib printed $(cat "$tmp/out")"
a=0 b=1 k=0
while [ $k -lt 21 ]; do t=$((a + b)) a=$b b=$t k=$((k + 1)); done # a = fib(21)
leaves=$a inner=$((a - 1))
transfers=$(sql "WITH ins AS (
                   SELECT i.function_id, i.offset, o.name AS op,
                          row_number() OVER (PARTITION BY i.function_id ORDER BY i.offset) - 1 AS k
                   FROM instructions i JOIN functions f ON f.id = i.function_id
                   JOIN opcodes o ON o.run_id = f.run_id AND o.id = i.opcode WHERE f.run_id = 3)
                 SELECT group_concat(t, ', ') FROM (
                   SELECT f.name || '#' || a.k || ' ' || a.op || ' > ' || g.name || '#' || b.k
                          || '=' || e.count AS t
                   FROM edge_counts e
                   JOIN functions f ON f.id = e.function_id
                   JOIN functions g ON g.id = e.to_function_id
                   JOIN ins a ON a.function_id = e.function_id AND a.offset = e.from_offset
                   JOIN ins b ON b.function_id = e.to_function_id AND b.offset = e.to_offset
                   WHERE e.run_id = 3 ORDER BY f.name, a.k, g.name, b.k)")
want="fib#2 br_if > fib#18=$leaves, fib#9 call > fib#0=$inner, fib#13 call > fib#0=$inner,"
want="$want fib#18 ret > fib#10=$inner, fib#18 ret > fib#14=$inner, fib#18 ret > main#3=1,"
want="$want main#2 call > fib#0=1"
[ "$transfers" = "$want" ] || fail "fib transfers: $transfers, expected $want"
# Every edge is stored (none unmapped), between instruction starts.
[ "$(sql "SELECT counts_unmapped FROM runs WHERE id = 3")" = 0 ] ||
    fail "unmapped counts: $(sql 'SELECT * FROM runs WHERE id = 3')"
[ "$(sql "SELECT count(*) FROM edge_counts WHERE run_id = 3")" = 7 ] ||
    fail "fib edges: $(sql 'SELECT * FROM edge_counts WHERE run_id = 3')"

# ---- a trap: the counts up to it are recorded (the trapping instruction
# counts: it started) -----------------------------------------------------
run 134 -o "$db" --exact -- "$PROGRAMS/trap_div.pasm"
[ "$(sql "SELECT outcome FROM runs WHERE id = 4")" = "trap: div_by_zero" ] ||
    fail "run 4: $(sql 'SELECT * FROM runs WHERE id = 4')"
[ "$(sql "SELECT group_concat(f.name || '@' || e.offset, ' ') FROM exec_counts e
          JOIN functions f ON f.id = e.function_id
          WHERE e.run_id = 4 AND f.name = 'percent' AND e.offset >= 7")" = "percent@7" ] ||
    fail "trap counts: $(sql 'SELECT * FROM exec_counts WHERE run_id = 4')"

# ---- without --exact: no counts -------------------------------------------
run 0 -o "$db" --freq 1000 --invoke loops -- "$PROGRAMS/loops.pasm" 20
[ "$(sql "SELECT exact FROM runs WHERE id = 5")" = 0 ] || fail "run 5 is exact"
[ "$(sql "SELECT (SELECT count(*) FROM exec_counts WHERE run_id = 5) +
                 (SELECT count(*) FROM edge_counts WHERE run_id = 5)")" = 0 ] ||
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
  (func $start (export "_start")
    (drop (call $count (i32.const 1237)))))
WAT
"$WAT2WASM" --debug-names "$tmp/loop.wat" -o "$tmp/loop.wasm" || fail "wat2wasm loop.wat"
run 0 -o "$db" --exact -- "$tmp/loop.wasm"
[ "$(sql "SELECT exact || outcome FROM runs WHERE id = 6")" = 1return ] ||
    fail "run 6: $(sql 'SELECT * FROM runs WHERE id = 6')"
# Inside count: exactly one backward edge, taken 1237 times; one exit,
# once; the loop head ran 1238 times.
[ "$(sql "SELECT group_concat((e.to_offset < e.from_offset) || ':' || e.count, ' ') FROM (
            SELECT e.* FROM edge_counts e JOIN functions f ON f.id = e.function_id
            WHERE e.run_id = 6 AND f.name = 'count' AND e.to_function_id = e.function_id
            ORDER BY e.to_offset < e.from_offset) e")" = \
  "0:1 1:1237" ] || fail "wasm edges: $(sql 'SELECT * FROM edge_counts WHERE run_id = 6')"
[ "$(sql "SELECT max(e.count) FROM exec_counts e JOIN functions f ON f.id = e.function_id
          WHERE e.run_id = 6 AND f.name = 'count'")" = 1238 ] ||
    fail "wasm loop head: $(sql 'SELECT * FROM exec_counts WHERE run_id = 6')"
# Between the functions: start's call to count's first instruction, once;
# count's return to the instruction after that call, once; nothing else.
[ "$(sql "SELECT group_concat(t, ' ') FROM (
            SELECT f.name || ':' || o.name || '>' || g.name || ':' ||
                   CASE WHEN e.to_offset = 0 THEN 'entry'
                        WHEN e.to_offset = (SELECT c.offset + c.length FROM edge_counts x
                                            JOIN instructions c ON c.function_id = x.function_id
                                                 AND c.offset = x.from_offset
                                            WHERE x.run_id = 6 AND x.function_id = e.to_function_id
                                                  AND x.to_function_id = e.function_id)
                        THEN 'after-call' ELSE e.to_offset END || '=' || e.count AS t
            FROM edge_counts e
            JOIN functions f ON f.id = e.function_id
            JOIN functions g ON g.id = e.to_function_id
            JOIN instructions i ON i.function_id = e.function_id AND i.offset = e.from_offset
            JOIN opcodes o ON o.run_id = 6 AND o.id = i.opcode
            WHERE e.run_id = 6 AND e.to_function_id <> e.function_id ORDER BY f.name)")" = \
  "count:ret>start:after-call=1 start:call>count:entry=1" ] ||
    fail "wasm calls: $(sql 'SELECT * FROM edge_counts WHERE run_id = 6')"

[ "$(sql 'PRAGMA integrity_check')" = ok ] || fail "integrity_check"

# ---- a schema version 1 database: migrated when a run is appended ----------
# Made from the version 1 schema text, with one run of that time: an edge,
# a dzv1-zlib sample chunk (written by the version 1 collector), opcode
# rows without roles (version 3 states them; the migration reads them
# from the semantics, as the analysis did before).
fresh=$db db=$tmp/v1.db
"$SQLITE3" -bail "$db" <"$(dirname "$0")/collect_schema_v1.sql" || fail "version 1 schema"
old_chunk=78DA63676262626160626E38D0F0819FA31D448299079CB63B75821800AD3A0D26
sql "INSERT INTO runs (id, command_line, start_time, sample_hz, exact, isa_name, isa_hash,
                       collector)
       VALUES (1, 'old', '2025-01-01T00:00:00.000Z', 10000, 1, 'pulley', '0', 'old');
     INSERT INTO modules VALUES (1, 1, 'old.pbc');
     INSERT INTO functions VALUES (1, 1, 1, 0, 'old', 4096, 8, zeroblob(8));
     INSERT INTO edge_counts VALUES (1, 1, 4, 0, 7);
     INSERT INTO opcodes VALUES
       (1, 1, 'xadd32', 'XXX', 'x x x', 3, 0, '', 'x[a] = u32(x[b] + x[c])'),
       (1, 2, 'xstore8', 'XX_OFF', 'x x off32', 7, 4, 'traps', 'm8[x[a] + imm] = u8(x[b])'),
       (1, 3, 'fload64', 'FX_OFF', 'f x off32', 7, 4, 'traps', 'f[a].f64 = m64[x[b] + imm]'),
       (1, 4, 'ret', 'NONE', '', 1, 6, 'term traps', 'pc = lr'),
       (1, 5, 'trap', 'TRAPC', 'trap', 2, 6, 'term traps', 'stop with trap kind imm'),
       (1, 6, 'xeq32', 'XXX', 'x x x', 3, 0, '', 'x[a] = u32(x[b]) == u32(x[c])'),
       (1, 7, 'xselect', 'XXXX', 'x x x x', 4, 0, '', 'x[a] = x[b].32 != 0 ? x[c] : x[d]'),
       (1, 8, 'br_if', 'X_REL', 'x rel32', 6, 1, 'branch', 'if x[a].32 != 0: pc += imm');
     INSERT INTO sample_chunks (run_id, seq, encoding, sample_count, first_ns, last_ns,
                                raw_bytes, data)
       VALUES (1, 0, 'dzv1-zlib', 7, 0, 0, 33, x'$old_chunk')"
[ "$(sql 'PRAGMA user_version')" = 1 ] || fail "not a version 1 database"
run 0 -o "$db" --exact -- "$PROGRAMS/fib.pasm"
# fib(32) runs for about 0.15 s, long enough to be sampled on a loaded
# machine (fib(25), 6 ms, once got no sample at all under CI).
run 0 -o "$db" --freq 2000 --invoke fib -- "$PROGRAMS/fib.pasm" 32
[ "$(sql 'PRAGMA user_version')" = 10 ] || fail "not migrated: version $(sql 'PRAGMA user_version')"
# Version 9's table of implicit register ranges is there, with none of Pulley's.
[ "$(sql 'SELECT count(*) FROM register_ranges')" = 0 ] || fail "register_ranges after migration"
# The old run's rows carry no operands and say so; the new runs' rows do.
[ "$(sql "SELECT group_concat(id || ':' || operands_stored || ':' ||
                              coalesce(functions_cut_short, 'null'), ' ') FROM runs")" = \
  "1:0:null 2:1:0 3:1:0" ] || fail "migrated operands_stored: $(sql 'SELECT * FROM runs')"
[ "$(sql "SELECT count(*) FROM instructions i JOIN functions f ON f.id = i.function_id
          WHERE f.run_id = 1 AND i.regs IS NOT NULL")" = 0 ] || fail "old rows got operands"
[ "$(sql "SELECT count(*) = sum(i.regs IS NOT NULL AND i.imms IS NOT NULL AND i.targets IS NOT NULL)
          FROM instructions i JOIN functions f ON f.id = i.function_id WHERE f.run_id = 3")" = 1 ] ||
    fail "new rows without operands"
[ "$(sql "SELECT group_concat(name || ':' || roles || ':' || flags, ',') FROM
          (SELECT * FROM opcodes WHERE run_id = 1 ORDER BY id)")" = \
  "xadd32:w r r:0,xstore8:r r:4,fload64:w r:4,ret::22,trap::6,xeq32:w r r:0,xselect:w r r r:0,br_if:r:1" ] ||
    fail "migrated roles: $(sql 'SELECT name, roles, flags FROM opcodes WHERE run_id = 1')"
[ "$(sql "SELECT flag_names FROM opcodes WHERE run_id = 1 AND name = 'ret'")" = "term traps return" ] ||
    fail "migrated flag names"
# The old run's opcodes name no wide form; the new runs' narrow constants do.
[ "$(sql "SELECT count(*) FROM opcodes WHERE run_id = 1 AND wide_form IS NOT NULL")" = 0 ] ||
    fail "migrated wide forms"
[ "$(sql "SELECT w.name FROM opcodes o JOIN opcodes w ON w.run_id = o.run_id AND w.id = o.wide_form
          WHERE o.run_id = 3 AND o.name = 'xconst8'")" = xconst64 ] ||
    fail "stored wide form: $(sql "SELECT * FROM opcodes WHERE run_id = 3 AND wide_form IS NOT NULL")"
# No run stores costs: the old ones had none, the new ones were not given any.
[ "$(sql "SELECT count(*) FROM opcodes WHERE cost IS NOT NULL")" = 0 ] &&
[ "$(sql "SELECT count(*) FROM runs WHERE dispatch_cost IS NOT NULL")" = 0 ] ||
    fail "costs from nowhere: $(sql 'SELECT id, dispatch_cost FROM runs')"
# --costs stores a cost file's costs with the opcode table, nop's as the
# dispatch cost; a file naming no opcode of the build is refused, by line.
printf '# costs\nopcode\texecutions\tper_execution\nnop\t1\t5.5\nxadd64\t1\t8.25\n' >"$tmp/costs.tsv"
run 0 -o "$db" --costs "$tmp/costs.tsv" --invoke fib -- "$PROGRAMS/fib.pasm" 10
[ "$(sql "SELECT group_concat(name || ':' || cost, ' ') FROM (SELECT * FROM opcodes
          WHERE run_id = 4 AND cost IS NOT NULL ORDER BY name)")" = "nop:5.5 xadd64:8.25" ] ||
    fail "stored costs: $(sql 'SELECT name, cost FROM opcodes WHERE cost IS NOT NULL')"
[ "$(sql "SELECT dispatch_cost FROM runs WHERE id = 4")" = 5.5 ] || fail "stored dispatch cost"
printf 'opcode\tper_execution\nnop\t5\nxadd65\t3\n' >"$tmp/bad.tsv"
run 1 -o "$db" --costs "$tmp/bad.tsv" --invoke fib -- "$PROGRAMS/fib.pasm" 10
grep -q "bad.tsv: line 3: an opcode of no row" "$tmp/err" || fail "bad cost file: $(cat "$tmp/err")"
printf 'opcode\tper_execution\nxadd64\t3\n' >"$tmp/bad.tsv"
run 1 -o "$db" --costs "$tmp/bad.tsv" --invoke fib -- "$PROGRAMS/fib.pasm" 10
grep -q "no cost for nop" "$tmp/err" || fail "cost file without nop: $(cat "$tmp/err")"
# The old rows are kept; the old edge goes to its own function; the old
# run's unmapped count is unknown; the new runs are whole.
[ "$(sql "SELECT run_id, function_id, from_offset, to_offset, count, to_function_id
          FROM edge_counts WHERE run_id = 1")" = "1|1|4|0|7|1" ] ||
    fail "migrated edge: $(sql 'SELECT * FROM edge_counts WHERE run_id = 1')"
[ "$(sql "SELECT group_concat(id || ':' || coalesce(counts_unmapped, 'null'), ' ')
          FROM runs")" = "1:null 2:0 3:0 4:0" ] || fail "migrated runs: $(sql 'SELECT * FROM runs')"
[ "$(sql "SELECT count(*) FROM edge_counts WHERE run_id = 2 AND to_function_id <> function_id")" = 2 ] ||
    fail "appended run's calls: $(sql 'SELECT * FROM edge_counts WHERE run_id = 2')"
# The old chunk is untouched; the new run's chunks are dzv2-rc.
[ "$(sql "SELECT encoding || ' ' || hex(data) FROM sample_chunks WHERE run_id = 1")" = \
  "dzv1-zlib $old_chunk" ] || fail "old chunk changed"
[ "$(sql "SELECT count(*) = sum(encoding = 'dzv2-rc' AND hex(substr(data, 1, 1)) = '02')
          AND sum(sample_count) = (SELECT samples_written FROM runs WHERE id = 3)
          AND count(*) > 0 FROM sample_chunks WHERE run_id = 3")" = 1 ] ||
    fail "new chunks: $(sql 'SELECT id, encoding, sample_count FROM sample_chunks')"
# Its tables, views, columns, keys, references and indexes are now those
# of a new database.
layout() {
    "$SQLITE3" -bail "$1" "
      SELECT m.type, m.name, t.wr, p.cid, p.name, p.type, p.\"notnull\", p.pk
      FROM sqlite_schema m JOIN pragma_table_list t ON t.name = m.name
      JOIN pragma_table_info(m.name) p WHERE m.type IN ('table', 'view')
      UNION ALL
      SELECT m.type, m.name, m.tbl_name, p.seqno, p.name, NULL, NULL, NULL
      FROM sqlite_schema m JOIN pragma_index_info(m.name) p WHERE m.type = 'index'
      UNION ALL
      SELECT 'reference', m.name, p.\"table\", p.id, p.\"from\", p.\"to\", NULL, NULL
      FROM sqlite_schema m JOIN pragma_foreign_key_list(m.name) p WHERE m.type = 'table'
      ORDER BY 1, 2, 4, 5"
}
layout "$fresh" >"$tmp/fresh.layout" && layout "$db" >"$tmp/migrated.layout" ||
    fail "cannot list the tables"
[ -s "$tmp/fresh.layout" ] || fail "no layout"
diff "$tmp/fresh.layout" "$tmp/migrated.layout" >"$tmp/layout.diff" ||
    fail "migrated database differs from a new one: $(cat "$tmp/layout.diff")"
[ "$(sql 'PRAGMA integrity_check')" = ok ] || fail "migrated integrity_check"
[ -z "$(sql 'PRAGMA foreign_key_check')" ] || fail "foreign keys: $(sql 'PRAGMA foreign_key_check')"

# ---- a database of a newer version: refused untouched ---------------------
db=$tmp/v99.db
sql "PRAGMA application_id = 1347833168; PRAGMA user_version = 99;
     CREATE TABLE runs (id INTEGER PRIMARY KEY)"
cp "$db" "$tmp/v99.orig"
run 1 -o "$db" --exact -- "$PROGRAMS/fib.pasm"
grep -q "newer" "$tmp/err" || fail "newer database: $(cat "$tmp/err")"
[ ! -s "$tmp/out" ] || fail "the program ran although its database was refused"
cmp -s "$db" "$tmp/v99.orig" || fail "the newer database was modified"
echo "collect_exact: ok"
