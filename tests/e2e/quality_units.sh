#!/bin/sh
# quality_units.sh - the classifiers of bench/quality on hand-written inputs.
# families.py: every fusion family is recognised (adjacent, through its
# "between" elements, or through an operand link of the pattern), and
# near misses are not (wrong order, a foreign element between, a missing
# part); pieces of a family are hinted, never counted; --top; errors; an
# opcode class that matches no opcode of a database is reported (status 3).
# fidelity.py: overlap and rank correlations of two proposal lists whose
# values are worked out by hand, identical and disjoint lists, errors.
# Environment: QUALITY (bench/quality), PYTHON (a Python 3).
set -eu
: "${QUALITY:?}" "${PYTHON:?}"

. "$(dirname "$0")/lib.sh"
command -v "$PYTHON" >/dev/null 2>&1 || fail "no Python at $PYTHON"
families=$QUALITY/families.py
fidelity=$QUALITY/fidelity.py

# ---- families.py ---------------------------------------------------------
# Proposals 1-8, 20, 21 belong to families; the others are near misses.
cat >"$tmp/proposals.json" <<'EOF'
{"runs": [{"db": "x.db", "id": 1, "benchmark": "a.wasm", "exact": false}], "benchmarks": 1,
 "proposals": [
  {"rank": 1, "ops": ["xlt64_s", "br_if_not"], "pattern": "1.a>2.a dead", "carries": [{"from_part": 1, "from_operand": 0, "to_part": 2, "to_operand": 0, "share": 1, "dead": 1}], "saving": 9.5},
  {"rank": 2, "ops": ["xconst8", "xadd32"], "pattern": "1.a>2.c dead, 1.imm:u8", "carries": [{"from_part": 1, "from_operand": 0, "to_part": 2, "to_operand": 2, "share": 1, "dead": 1}], "saving": 8},
  {"rank": 3, "ops": ["bcheck32", "xadd64", "xload32_u"], "pattern": "2.a>3.b dead", "carries": [{"from_part": 2, "from_operand": 0, "to_part": 3, "to_operand": 1, "share": 1, "dead": 1}], "saving": 7},
  {"rank": 4, "ops": ["push_frame", "xpush", "xpush"], "pattern": "", "carries": [], "saving": 6},
  {"rank": 5, "ops": ["xmov", "xmov", "call"], "pattern": "", "carries": [], "saving": 5},
  {"rank": 6, "ops": ["xmul64", "xadd64"], "pattern": "1.a>2.b dead", "carries": [{"from_part": 1, "from_operand": 0, "to_part": 2, "to_operand": 1, "share": 1, "dead": 1}], "saving": 4},
  {"rank": 7, "ops": ["xpop", "xpop", "pop_frame", "ret"], "pattern": "", "carries": [], "saving": 3},
  {"rank": 8, "ops": ["xconst8", "xmov", "xsub32"], "pattern": "1.a>3.c dead", "carries": [{"from_part": 1, "from_operand": 0, "to_part": 3, "to_operand": 2, "share": 1, "dead": 1}], "saving": 2},
  {"rank": 9, "ops": ["xmul32", "xmov", "xadd32"], "pattern": "", "carries": [], "saving": 1},
  {"rank": 10, "ops": ["xadd32", "br_if"], "pattern": "1.a>2.a dead", "carries": [{"from_part": 1, "from_operand": 0, "to_part": 2, "to_operand": 0, "share": 1, "dead": 1}], "saving": 1},
  {"rank": 11, "ops": ["xadd32", "xconst8"], "pattern": "", "carries": [], "saving": 1},
  {"rank": 12, "ops": ["bcheck32", "xadd64"], "pattern": "", "carries": [], "saving": 1},
  {"rank": 13, "ops": ["xbxor32", "xload32_u"], "pattern": "", "carries": [], "saving": 1},
  {"rank": 14, "ops": ["xmov", "xadd32", "call"], "pattern": "", "carries": [], "saving": 1},
  {"rank": 15, "ops": ["xpush", "xpush"], "pattern": "", "carries": [], "saving": 1},
  {"rank": 16, "ops": ["xmul32", "xsub32"], "pattern": "1.a>2.b dead", "carries": [{"from_part": 1, "from_operand": 0, "to_part": 2, "to_operand": 1, "share": 1, "dead": 1}], "saving": 1},
  {"rank": 17, "ops": ["xconst8", "xstore32"], "pattern": "1.a>2.b dead", "carries": [{"from_part": 1, "from_operand": 0, "to_part": 2, "to_operand": 1, "share": 1, "dead": 1}], "saving": 1},
  {"rank": 18, "ops": ["xload64", "xmov"], "pattern": "", "carries": [], "saving": 1},
  {"rank": 19, "ops": ["xeq32", "xmov", "br_if"], "pattern": "", "carries": [], "saving": 1},
  {"rank": 20, "ops": ["xeq32", "xmov", "br_if"], "pattern": "1.a>3.a dead", "carries": [{"from_part": 1, "from_operand": 0, "to_part": 3, "to_operand": 0, "share": 1, "dead": 1}], "saving": 1},
  {"rank": 21, "ops": ["xconst8", "xlt32_u", "br_if"], "pattern": "1.a>2.c dead, 2.a>3.a dead", "carries": [{"from_part": 1, "from_operand": 0, "to_part": 2, "to_operand": 2, "share": 1, "dead": 1}, {"from_part": 2, "from_operand": 0, "to_part": 3, "to_operand": 0, "share": 1, "dead": 1}], "saving": 1}
 ]}
EOF

expect_status 0 "$PYTHON" "$families" --format json "$tmp/proposals.json"
cp "$tmp/out" "$tmp/families.json"
"$PYTHON" - "$tmp/families.json" <<'EOF' || fail "families.py --format json: $(cat "$tmp/families.json")"
import json, sys
rep = json.load(open(sys.argv[1]))
want = {"compare + branch": [1, 20, 21], "constant + arithmetic": [2, 8, 21],
        "bounds check + load/store": [3], "frame push + register saves": [4, 7],
        "argument moves + call": [5], "multiply + add": [6]}
got = {f["family"]: f["ranks"] for f in rep["families"]}
assert got == want, got
best = {f["family"]: (f["found"], f["rank"], f["ops"]) for f in rep["families"]}
assert best["frame push + register saves"] == (True, 4, ["push_frame", "xpush", "xpush"]), best
matched = {f["family"]: f["matched"] for f in rep["families"]}
assert matched["constant + arithmetic"] == "xconst8>xadd32", matched
assert rep["found"] == 6 and rep["proposals"] == 21, rep
unclassified = [p["rank"] for p in rep["unclassified"]]
assert unclassified == list(range(9, 20)), unclassified
partial = {p["rank"]: sorted(p["partial"]) for p in rep["unclassified"]}
assert partial[12] == ["bounds check + load/store"], partial   # ends before the load
assert partial[15] == ["frame push + register saves"], partial  # saves without push_frame
assert partial[11] == [] and partial[16] == [] and partial[14] == [], partial
EOF

expect_status 0 "$PYTHON" "$families" "$tmp/proposals.json"
grep -q '^Fusion families among the top 21 proposals (1 runs, 1 benchmarks)$' "$tmp/out" ||
    fail "text header: $(cat "$tmp/out")"
grep -Eq '^compare \+ branch +yes +1 +xlt64_s \+ br_if_not +xlt64_s>br_if_not +1,20,21$' "$tmp/out" ||
    fail "text compare + branch row: $(cat "$tmp/out")"
grep -q '^Families found: 6 of 6$' "$tmp/out" || fail "text total: $(cat "$tmp/out")"
grep -q '^Proposals in no family: 11$' "$tmp/out" || fail "text unclassified: $(cat "$tmp/out")"
grep -Eq '^ +12  bcheck32 \+ xadd64 +1\.00  bounds check \+ load/store \(ends before load-store\)$' "$tmp/out" ||
    fail "text partial: $(cat "$tmp/out")"

# --top 5 leaves out the multiply + add at rank 6; stdin works.
expect_status 0 "$PYTHON" "$families" --top 5 - <"$tmp/proposals.json"
grep -Eq '^multiply \+ add +no +- ' "$tmp/out" || fail "--top 5: $(cat "$tmp/out")"
grep -q '^Families found: 5 of 6$' "$tmp/out" || fail "--top 5 total: $(cat "$tmp/out")"

# Errors: bad JSON, no proposals, bad --top.
echo '{"proposals": [' >"$tmp/bad.json"
expect_status 1 "$PYTHON" "$families" "$tmp/bad.json"
grep -q "^families.py: $tmp/bad.json: " "$tmp/err" || fail "bad json: $(cat "$tmp/err")"
echo '{"ngrams": []}' >"$tmp/none.json"
expect_status 1 "$PYTHON" "$families" "$tmp/none.json"
grep -q 'no "proposals" list' "$tmp/err" || fail "no proposals: $(cat "$tmp/err")"
expect_status 2 "$PYTHON" "$families" --top 0 "$tmp/proposals.json"
expect_status 1 "$PYTHON" "$families" "$tmp/missing.json"

# --db: a database whose ISA lacks most classes' opcodes -> warnings, status 3;
# one that has them all -> status 0; a file that is no database -> status 1.
"$PYTHON" - "$tmp/few.db" "$tmp/all.db" <<'EOF' || fail "making the opcode databases"
import sqlite3, sys
few = ["xadd32", "br_if", "xeq32", "xconst8"]
every = few + ["bcheck32", "xload32_u", "push_frame", "xpush", "xpop", "pop_frame",
               "xmov", "call", "xmul64", "xadd64"]
for path, names in ((sys.argv[1], few), (sys.argv[2], every)):
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE opcodes (run_id INTEGER, id INTEGER, name TEXT)")
    con.executemany("INSERT INTO opcodes VALUES (1, ?, ?)", enumerate(names))
    con.commit()
    con.close()
EOF
expect_status 3 "$PYTHON" "$families" --db "$tmp/few.db" "$tmp/proposals.json"
grep -q '^warning: opcode class bounds-check (bcheck(32|64)) matches no opcode in ' "$tmp/out" ||
    fail "--db warnings: $(cat "$tmp/out")"
grep -q '^warning: opcode class compare ' "$tmp/out" && fail "xeq32 is a compare: $(cat "$tmp/out")"
expect_status 0 "$PYTHON" "$families" --db "$tmp/all.db" "$tmp/proposals.json"
grep -q '^warning' "$tmp/out" && fail "--db with every class: $(cat "$tmp/out")"
echo "not a database at all, not at all" >"$tmp/foreign.db"
expect_status 1 "$PYTHON" "$families" --db "$tmp/foreign.db" "$tmp/proposals.json"
grep -q "^families.py: $tmp/foreign.db: cannot read its opcodes table" "$tmp/err" ||
    fail "--db foreign: $(cat "$tmp/err")"

# ---- fidelity.py ---------------------------------------------------------
# proposals FILE SEQ...: a pulley-ngrams JSON with these sequences ranked
# 1, 2, ... (a sequence is ops joined by '+').
proposals() {
    p_file=$1
    shift
    "$PYTHON" - "$p_file" "$@" <<'EOF'
import json, sys
props = [{"rank": i + 1, "ops": s.split("+"), "pattern": "", "saving": 1.0,
          "cumulative": float(i + 1)} for i, s in enumerate(sys.argv[2:])]
json.dump({"runs": [], "benchmarks": 1, "proposals": props}, open(sys.argv[1], "w"))
EOF
}
# Sampled A B C D, exact B A C E (top 4): common A, B, C with ranks
# (1,2,3) and (2,1,3): rho = 1 - 6*2/(3*8) = 0.5, tau = (2-1)/3;
# union A..E, a missing rank being 5: (1,2,3,4,5) and (2,1,3,5,4):
# rho = 1 - 6*4/(5*24) = 0.8, tau = (8-2)/10 = 0.6.
mkdir -p "$tmp/fid/bench1" "$tmp/fid/same" "$tmp/fid/apart"
proposals "$tmp/fid/bench1/sampled.json" xeq32+br_if xconst8+xadd32 bcheck32+xadd64 xmov+xmov
proposals "$tmp/fid/bench1/exact.json" xconst8+xadd32 xeq32+br_if bcheck32+xadd64 xmul32+xadd32
proposals "$tmp/fid/same/sampled.json" a+b c+d e+f
proposals "$tmp/fid/same/exact.json" a+b c+d e+f
proposals "$tmp/fid/apart/sampled.json" a+b c+d
proposals "$tmp/fid/apart/exact.json" e+f g+h
expect_status 0 "$PYTHON" "$fidelity" --top 4 --format json "$tmp/fid/bench1" "$tmp/fid/same" "$tmp/fid/apart"
"$PYTHON" - "$tmp/out" <<'EOF' || fail "fidelity.py --format json: $(cat "$tmp/out")"
import json, sys
rows = {r["benchmark"]: r for r in json.load(open(sys.argv[1]))["benchmarks"]}
close = lambda a, b: a is not None and abs(a - b) < 1e-9
b = rows["bench1"]
assert b["overlap"] == 3, b
assert close(b["spearman_common"], 0.5) and close(b["kendall_common"], 1 / 3), b
assert close(b["spearman_union"], 0.8) and close(b["kendall_union"], 0.6), b
assert b["only_sampled"] == ["xmov + xmov"] and b["only_exact"] == ["xmul32 + xadd32"], b
assert close(b["exact_removed"], 4.0), b
s = rows["same"]
assert s["overlap"] == 3 and close(s["spearman_common"], 1) and close(s["kendall_union"], 1), s
a = rows["apart"]
assert a["overlap"] == 0 and a["spearman_common"] is None and a["kendall_common"] is None, a
# union ab cd ef gh: (1,2,3,3) and (3,3,1,2): 4 discordant pairs, one tie
# in each list: tau-b = -4 / sqrt(5 * 5)
assert close(a["kendall_union"], -0.8), a
EOF
expect_status 0 "$PYTHON" "$fidelity" --top 4 "$tmp/fid/bench1" "$tmp/fid/apart"
grep -Eq '^bench1 +n/a +n/a +4/4 +3 +0\.500 +0\.333 +0\.800 +0\.600 +4\.00 +n/a +n/a$' "$tmp/out" ||
    fail "fidelity text row: $(cat "$tmp/out")"
grep -Eq '^apart +n/a +n/a +2/2 +0 +n/a +n/a ' "$tmp/out" || fail "fidelity disjoint row: $(cat "$tmp/out")"
grep -q '^mean ' "$tmp/out" || fail "fidelity mean row: $(cat "$tmp/out")"
grep -q '^bench1: only sampled: xmov + xmov$' "$tmp/out" || fail "fidelity differences: $(cat "$tmp/out")"

# The sampled list measured on the exact run ("test", from --train/--test).
"$PYTHON" - "$tmp/fid/bench1/sampled.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["test"] = {"label": "exact", "runs": 1, "benchmarks": 1, "removed": 3.0}
json.dump(d, open(sys.argv[1], "w"))
EOF
expect_status 0 "$PYTHON" "$fidelity" --top 4 "$tmp/fid/bench1"
grep -Eq '^bench1 .* 4\.00 +3\.00 +0\.750$' "$tmp/out" || fail "fidelity test column: $(cat "$tmp/out")"

# Errors.
mkdir -p "$tmp/fid/empty"
expect_status 1 "$PYTHON" "$fidelity" "$tmp/fid/empty"
grep -q "^fidelity.py: $tmp/fid/empty: " "$tmp/err" || fail "missing files: $(cat "$tmp/err")"
expect_status 2 "$PYTHON" "$fidelity" --top 0 "$tmp/fid/bench1"
expect_status 2 "$PYTHON" "$fidelity"
echo "quality_units: ok"
