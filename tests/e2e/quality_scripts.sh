#!/bin/sh
# quality_scripts.sh - bench/lib.sh's statistics and timing (median, odd
# and even counts; geomean; Student's t; the log interval; timed;
# interleave), then bench/quality/rediscover.sh and fidelity.sh end to
# end on small wasm benchmarks: they collect, analyse and print a
# well-formed report that agrees with the files they keep (-o): for
# rediscover.sh an exact and a sampled column, the families in the
# baseline as the build's opcode table (pulley-dis --opcodes) says.  Which
# families are found and how well sampling agrees are measurements, not
# asserted here.  Also: every family's classes exist in the real table
# (rediscover.sh exits 3 otherwise), -i reuses a database, -x, -C (the
# handler costs: every proposal predicts its time, each family found
# says it), usage
# errors.  Skipped (77) without the .wasm benchmarks.
# Environment: PULLEY_COLLECT, PULLEY_NGRAMS, PULLEY_DIS, BENCH_DIR,
# QUALITY, PYTHON.
set -eu
: "${PULLEY_COLLECT:?}" "${PULLEY_NGRAMS:?}" "${PULLEY_DIS:?}" "${BENCH_DIR:?}" "${QUALITY:?}" "${PYTHON:?}"
export PULLEY_COLLECT PULLEY_NGRAMS PULLEY_DIS BENCH_DIR PYTHON

. "$(dirname "$0")/lib.sh"

# ---- bench/lib.sh, which every bench and quality script sources -------------
# (before the skip: it needs no benchmark)
lib_check() { # lib_check WANT INPUT FUNCTION: FUNCTION on INPUT (lines) prints WANT
    got=$(printf '%b' "$2" | sh -c '. "$1/lib.sh"; '"$3" sh "$QUALITY/..")
    [ "$got" = "$1" ] || fail "lib.sh $3 of '$(echo "$2" | tr '\n' ' ')': '$got', expected '$1'"
}
lib_check 2 '3\n1\n2\n' median                 # odd count: the middle value
lib_check 2.5 '4\n1\n3\n2\n' median           # even count: the mean of the two middle ones
lib_check 1234567.5 '1234568\n1234567\n' median # no rounding to 6 digits
lib_check 10 '9\n100\n10\n' median             # numbers, not strings, are sorted
lib_check '' '' median
lib_check 4 '2\n8\n' geomean
lib_check 3 '1\n3\n9\n' geomean
lib_check '12.706 2.042 1.96' '' 'awk "$stats_awk"'"'BEGIN { print t975(1), t975(30), t975(31) }'"
# The 95% interval of the geometric mean of 1 and 4: 2 exp(-+12.706 ln(4) / 2).
lib_check '2.0000 0.0003 13363' '' 'awk "$stats_awk"'"'BEGIN { a[1] = 1; a[2] = 4; g = log_interval(a, 2)
    printf \"%.4f %.4f %.0f\", g, ci_lo, ci_hi }'"
lib_check '5 5 5' '' 'awk "$stats_awk"'"'BEGIN { a[1] = 5; g = log_interval(a, 1); print g, ci_lo, ci_hi }'"
lib_check '0 3' '' 'timed true; s1=$timed_status; timed sh -c "exit 3" || echo "$s1 $timed_status"'
lib_check ok '' 'timed sleep 0.2; [ "$timed_us" -ge 200000 ] && [ "$timed_us" -lt 5000000 ] && echo ok'
lib_check 'x: round 1 of 2|1 2' '' 'prog=x; r() { printf "%s " "$1"; }; interleave 2 r 2>&1 >/dev/null | head -1 | tr "\n" "|"; interleave 2 r 2>/dev/null | sed "s/ \$//"'

for b in sha256 sort strings; do
    if [ ! -f "$BENCH_DIR/$b.wasm" ]; then
        echo "SKIP: no $BENCH_DIR/$b.wasm (the wasm32-wasi benchmarks are not built)" >&2
        exit 77
    fi
done

# ---- rediscover.sh ---------------------------------------------------------
expect_status 0 sh "$QUALITY/rediscover.sh" -o "$tmp/red" -k 12 sha256:2 sort:1 strings:1
cp "$tmp/out" "$tmp/report"
grep -q "^Database: $tmp/red/suite.db (runs: label:rediscover; kinds: exact, sampled; samples at 10000 Hz)\$" "$tmp/report" ||
    fail "rediscover header: $(cat "$tmp/report")"
# Up to 12 proposals a column: fewer where a macro build's ops leave less to fuse.
grep -q -E '^Fusion families among the top proposals \(exact: top ([1-9]|1[0-2]), 3 runs, 3 benchmarks; sampled: top ([1-9]|1[0-2]), 3 runs, 3 benchmarks\)$' "$tmp/report" ||
    fail "rediscover: not 3 runs a column, or not 1 to 12 proposals: $(cat "$tmp/report")"
[ "$(grep -c "^rediscover.sh: collecting .*, exact\$" "$tmp/err")" -eq 3 ] || fail "progress: $(cat "$tmp/err")"
[ "$(grep -c "^rediscover.sh: collecting .*, sampled\$" "$tmp/err")" -eq 3 ] || fail "progress: $(cat "$tmp/err")"
for f in suite.db opcodes.json exact.json sampled.json families.json report.txt; do
    [ -s "$tmp/red/$f" ] || fail "rediscover -o kept no $f"
done
cmp -s "$tmp/report" "$tmp/red/report.txt" || fail "report.txt differs from what was printed"

# The table: eight families, each in the baseline or not, and per column a
# rank whose proposal is the one pulley-ngrams gave that rank, or -; the
# exact column's best macro op; the totals; the proposals in no family.
# Every proposal of a column is in a family's rank list or in that
# column's no-family list, not both; the text agrees with families.json.
"$PYTHON" - "$tmp/report" "$tmp/red" <<'EOF' || fail "rediscover report: $(cat "$tmp/report")"
import json, os, re, sys
report = open(sys.argv[1]).read().splitlines()
d = sys.argv[2]
rep = json.load(open(os.path.join(d, "families.json")))
props = {c: {p["rank"]: p["ops"] for p in json.load(open(os.path.join(d, c + ".json")))["proposals"]}
         for c in ("exact", "sampled")}
assert all(1 <= len(p) <= 12 for p in props.values()), props
names = ["compare + branch", "constant + arithmetic", "bounds check + load/store",
         "address + load/store", "frame push + register saves",
         "register restores + frame pop", "argument moves + call", "multiply + add"]
assert [f["family"] for f in rep["families"]] == names, rep["families"]
# the build's table has the _imm ops and the _g32 accesses, none of the others' fused ops
assert [f["family"] for f in rep["families"] if f["in_baseline"]] == names[1:3], rep["families"]
found = {"exact": 0, "sampled": 0}
members = {"exact": set(), "sampled": set()}
for f in rep["families"]:
    rows = [l for l in report if l.startswith(f["family"] + "  ")]
    assert len(rows) == 1, (f["family"], rows)
    cells = rows[0][len(f["family"]):].split()
    assert cells[0] == ("yes" if f["in_baseline"] else "no"), rows
    for k, c in enumerate(("exact", "sampled")):
        col = f["columns"][c]
        if col["found"]:
            assert cells[1 + k] == str(col["rank"]), (rows, col)
            assert props[c][col["rank"]] == col["ops"] and col["rank"] == min(col["ranks"]), col
            assert set(col["ranks"]) <= set(props[c]), col
            members[c] |= set(col["ranks"])
            found[c] += not f["in_baseline"]
        else:
            assert cells[1 + k] == "-" and col["ranks"] == [], (rows, col)
assert found == rep["found"], (found, rep["found"])
assert "Families not in the baseline found: exact %d, sampled %d (of 6)" % (
    found["exact"], found["sampled"]) in report, found
for c in ("exact", "sampled"):
    i = report.index([l for l in report if l.startswith("Proposals in no family (%s): " % c)][0])
    n = int(report[i].split(": ")[1])
    others = []
    for l in report[i + 1:]:
        if l.startswith("Proposals in no family"):
            break
        if re.match(r"^ +[0-9]+  ", l):
            others.append(int(l.split()[0]))
    assert len(others) == n, (c, n, others)
    assert not members[c] & set(others) and members[c] | set(others) == set(props[c]), (c, members, others)
EOF

# The database: three exact and three sampled runs labelled rediscover.
"$PYTHON" - "$tmp/red/suite.db" <<'EOF' || fail "rediscover database"
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
rows = con.execute("SELECT label, exact, exact OR samples_written > 0 FROM runs").fetchall()
assert sorted(rows) == [("rediscover", 0, 1)] * 3 + [("rediscover", 1, 1)] * 3, rows
for e in (0, 1):
    assert {r[0] for r in con.execute("SELECT benchmark FROM runs WHERE exact = ?", (e,))} == \
        {"sha256.wasm", "sort.wasm", "strings.wasm"}
EOF

# -i: the same database analysed again gives the same table.
expect_status 0 sh "$QUALITY/rediscover.sh" -k 12 -i "$tmp/red/suite.db"
sed 1d "$tmp/out" >"$tmp/again"
sed 1d "$tmp/report" | cmp -s - "$tmp/again" || fail "-i gives another report: $(cat "$tmp/out")"
grep -q "^Database: $tmp/red/suite.db (runs: all; kinds: exact, sampled)\$" "$tmp/out" || fail "-i header: $(head -1 "$tmp/out")"
# -x: an exact column only.
expect_status 0 sh "$QUALITY/rediscover.sh" -x -k 5 sha256:1
grep -q '^Fusion families among the top proposals (exact: top [1-5], 1 runs, 1 benchmarks)$' "$tmp/out" ||
    fail "-x: $(cat "$tmp/out")"

# -C: the runs carry the build's handler costs, so every proposal predicts
# the time it saves, and each family found says it beside its dispatches.
printf 'opcode\tper_execution\nnop\t3\nxadd32\t6\nbr_if\t5\nxload32_u_g32\t9\n' >"$tmp/costs.tsv"
expect_status 0 sh "$QUALITY/rediscover.sh" -x -k 5 -C "$tmp/costs.tsv" -o "$tmp/timed" sha256:1
"$PYTHON" - "$tmp/timed" <<'EOF2' || fail "-C: $(cat "$tmp/out")"
import json, os, sys
d = sys.argv[1]
props = json.load(open(os.path.join(d, "exact.json")))["proposals"]
assert props and all(isinstance(p.get("time_saving"), (int, float)) for p in props), props
report = open(os.path.join(d, "report.txt")).read().splitlines()
for f in json.load(open(os.path.join(d, "families.json")))["families"]:
    col = f["columns"]["exact"]
    if col["found"]:
        row = [l for l in report if l.startswith(f["family"] + "  ")][0]
        assert "%.2f%% of time (predicted)" % col["time_saving"] in row, row
EOF2
expect_status 2 sh "$QUALITY/rediscover.sh" -i "$tmp/red/suite.db" -C "$tmp/costs.tsv"
expect_status 1 sh "$QUALITY/rediscover.sh" -C "$tmp/no-costs.tsv" sha256
grep -q "no costs file $tmp/no-costs.tsv" "$tmp/err" || fail "missing costs: $(cat "$tmp/err")"

# Usage errors and a missing benchmark or tool.
expect_status 0 sh "$QUALITY/rediscover.sh" --help
grep -q '^usage: sh bench/quality/rediscover.sh ' "$tmp/out" || fail "rediscover --help"
grep -q '^  -B DIR ' "$tmp/out" || fail "rediscover --help: no -B"
expect_status 2 sh "$QUALITY/rediscover.sh" -k 0 sha256
expect_status 2 sh "$QUALITY/rediscover.sh" -i "$tmp/red/suite.db" sha256
expect_status 2 sh "$QUALITY/rediscover.sh" -x -s sha256
expect_status 2 sh "$QUALITY/rediscover.sh" -q
expect_status 1 sh "$QUALITY/rediscover.sh" no_such_benchmark
grep -q "no $BENCH_DIR/no_such_benchmark.wasm" "$tmp/err" || fail "missing benchmark: $(cat "$tmp/err")"
expect_status 1 sh "$QUALITY/rediscover.sh" -c "$tmp/no-collector" sha256
grep -q "no pulley-collect at $tmp/no-collector" "$tmp/err" || fail "missing collector: $(cat "$tmp/err")"
expect_status 1 sh "$QUALITY/rediscover.sh" -d "$tmp/no-dis" sha256
grep -q "no pulley-dis at $tmp/no-dis" "$tmp/err" || fail "missing pulley-dis: $(cat "$tmp/err")"

# ---- fidelity.sh -----------------------------------------------------------
expect_status 0 sh "$QUALITY/fidelity.sh" -o "$tmp/fid" sha256:2
cp "$tmp/out" "$tmp/report"
cmp -s "$tmp/report" "$tmp/fid/report.txt" || fail "fidelity report.txt differs from what was printed"
grep -q '^Sampled vs exact proposals: top 20 of each, matched by opcode sequence$' "$tmp/report" ||
    fail "fidelity header: $(cat "$tmp/report")"
num='(-?[01]\.[0-9]{3}|n/a)'
grep -Eq "^sha256 +[1-9][0-9]* +[1-9][0-9]* +[0-9]+/[0-9]+ +[0-9]+ +$num +$num +$num +$num +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2} +[0-9]\.[0-9]{3}\$" "$tmp/report" ||
    fail "fidelity row: $(cat "$tmp/report")"

# The row agrees with the proposals kept: the overlap is the number of
# opcode sequences in both lists; the exact % the exact list's last
# cumulative saving; the database has one sampled and one exact run.
"$PYTHON" - "$tmp/fid/sha256" "$tmp/report" <<'EOF' || fail "fidelity files: $(cat "$tmp/report")"
import json, os, re, sqlite3, sys
d = sys.argv[1]
seqs = lambda f: [" + ".join(p["ops"]) for p in json.load(open(os.path.join(d, f)))["proposals"]]
s, e = seqs("sampled.json"), seqs("exact.json")
assert 1 <= len(s) <= 20 and 1 <= len(e) <= 20, (len(s), len(e))
row = [l for l in open(sys.argv[2]) if l.startswith("sha256 ")][0].split()
assert row[3] == "%d/%d" % (len(s), len(e)), (row, len(s), len(e))
assert row[4] == "%d" % len(set(s) & set(e)), (row, set(s) & set(e))
exact = json.load(open(os.path.join(d, "exact.json")))["proposals"]
assert row[9] == "%.2f" % exact[-1]["cumulative"], row
assert "test" in json.load(open(os.path.join(d, "sampled.json"))), "no --test result"
con = sqlite3.connect(os.path.join(d, "profile.db"))
runs = con.execute("SELECT label, exact FROM runs ORDER BY id").fetchall()
assert runs == [("sampled", 0), ("exact", 1)], runs
assert con.execute("SELECT count(*) FROM exec_counts").fetchone()[0] > 0
EOF

expect_status 0 sh "$QUALITY/fidelity.sh" --help
grep -q '^usage: sh bench/quality/fidelity.sh ' "$tmp/out" || fail "fidelity --help"
expect_status 2 sh "$QUALITY/fidelity.sh" -f x sha256
expect_status 1 sh "$QUALITY/fidelity.sh" -n "$tmp/no-ngrams" sha256
grep -q "no pulley-ngrams at $tmp/no-ngrams" "$tmp/err" || fail "missing pulley-ngrams: $(cat "$tmp/err")"
echo "quality_scripts: ok"
