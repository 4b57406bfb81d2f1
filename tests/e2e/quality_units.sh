#!/bin/sh
# quality_units.sh - the classifiers of bench/quality on hand-written inputs.
# families.py: on a hand-written opcode table, every fusion family is
# recognised by the classes of its elements (adjacent, through its
# "between" elements, through an operand link of the pattern, into an
# access's address operand, a run of register saves), near misses are not
# (wrong order, a foreign element between, a missing part, an add whose
# sum is stored rather than addressed); a family whose fused op the table
# has is in the baseline and gets no hints; pieces of a family are hinted,
# never counted; the best op's saving of dispatches, and of time where the
# proposals predict it; columns and --top; errors; a family whose class the table
# lacks is status 3.  With the build's real table (pulley-dis --opcodes)
# every family's classes exist (status 0), and which families the baseline
# has is what the table says.
# fidelity.py: overlap and rank correlations of two proposal lists whose
# values are worked out by hand, identical and disjoint lists, errors.
# Environment: QUALITY (bench/quality), PYTHON (a Python 3), PULLEY_DIS.
set -eu
: "${QUALITY:?}" "${PYTHON:?}" "${PULLEY_DIS:?}"

. "$(dirname "$0")/lib.sh"
command -v "$PYTHON" >/dev/null 2>&1 || fail "no Python at $PYTHON"
families=$QUALITY/families.py
fidelity=$QUALITY/fidelity.py

# ---- families.py ---------------------------------------------------------
# table FILE [NAME:CLASS:OPERANDS:ROLES ...]: a hand-written opcode table
# (pulley-dis --opcodes' form) of the rows below, a row given replacing
# the one of its name (CLASS "-": none).
table() {
    t_file=$1
    shift
    "$PYTHON" - "$t_file" "$@" <<'EOF'
import json, sys
rows = """xlt64_s compare x,x,x w,r,r
xeq32 compare x,x,x w,r,r
xgt32_u_imm compare x,x,s32 w,r
br_if cond_branch x,rel32 r
br_if_not cond_branch x,rel32 r
xconst8 const x,s8 w
xadd32 add x,x,x w,r,r
xadd64 add x,x,x w,r,r
xadd32_imm add x,x,s32 w,r
xsub32 add x,x,x w,r,r
xmul32 multiply x,x,x w,r,r
xmul64 multiply x,x,x w,r,r
xbxor32 int_alu x,x,x w,r,r
bcheck32 bounds_check x,u32 r
heap_base heap x w
xload32_u load x,x,off32 w,r
xload64 load x,x,off32 w,r
xstore32 store x,x,off32 r,r
xload32_u_g32 heap_load x,x,off32 w,r
xstore32_g32 heap_store x,x,off32 r,r
push_frame frame_push - -
pop_frame frame_pop - -
xpush register_save x r
xpop register_restore x w
xmov move x,x w,r
call call func -
ret return - -""".splitlines()
ops = [tuple(r.split()) for r in rows]
for extra in sys.argv[2:]:
    name, cls, operands, roles = extra.split(":")
    ops = [o for o in ops if o[0] != name] + [(name, cls, operands or "-", roles or "-")]
words = lambda s: "" if s == "-" else " ".join(s.split(","))
out = [{"name": n, "class": c, "operands": words(o), "roles": words(r), "macro": None}
       for n, c, o, r in ops if c != "-"]
json.dump({"isa_hash": "0", "classes": sorted({o["class"] for o in out}), "opcodes": out},
          open(sys.argv[1], "w"))
EOF
}
table "$tmp/table.json"

# Proposals 1-8, 12, 17, 20 belong to families; the others are near misses.
cat >"$tmp/proposals.json" <<'EOF'
{"runs": [{"db": "x.db", "id": 1, "benchmark": "a.wasm", "exact": false}], "benchmarks": 1,
 "proposals": [
  {"rank": 1, "ops": ["xlt64_s", "br_if_not"], "carries": [{"from_part": 1, "from_operand": 0, "to_part": 2, "to_operand": 0}], "saving": 9.5, "time_saving": 3.25},
  {"rank": 2, "ops": ["xconst8", "xadd32"], "carries": [{"from_part": 1, "from_operand": 0, "to_part": 2, "to_operand": 2}], "saving": 8},
  {"rank": 3, "ops": ["bcheck32", "xadd64", "xload32_u"], "carries": [{"from_part": 2, "from_operand": 0, "to_part": 3, "to_operand": 1}], "saving": 7},
  {"rank": 4, "ops": ["push_frame", "xpush", "xpush"], "carries": [], "saving": 6},
  {"rank": 5, "ops": ["xmov", "xmov", "call"], "carries": [], "saving": 5},
  {"rank": 6, "ops": ["xmul64", "xadd64"], "carries": [{"from_part": 1, "from_operand": 0, "to_part": 2, "to_operand": 1}], "saving": 4},
  {"rank": 7, "ops": ["xpop", "xpop", "pop_frame", "ret"], "carries": [], "saving": 3},
  {"rank": 8, "ops": ["xgt32_u_imm", "br_if"], "carries": [{"from_part": 1, "from_operand": 0, "to_part": 2, "to_operand": 0}], "saving": 2},
  {"rank": 9, "ops": ["xmul32", "xmov", "xadd32"], "carries": [], "saving": 1},
  {"rank": 10, "ops": ["xadd32", "br_if"], "carries": [{"from_part": 1, "from_operand": 0, "to_part": 2, "to_operand": 0}], "saving": 1},
  {"rank": 11, "ops": ["xadd32", "xconst8"], "carries": [], "saving": 1},
  {"rank": 12, "ops": ["xpush", "xpush", "xpush"], "carries": [], "saving": 1},
  {"rank": 13, "ops": ["xadd32", "xstore32"], "carries": [{"from_part": 1, "from_operand": 0, "to_part": 2, "to_operand": 1}], "saving": 1},
  {"rank": 14, "ops": ["xmov", "xadd32", "call"], "carries": [], "saving": 1},
  {"rank": 15, "ops": ["xpop", "ret"], "carries": [], "saving": 1},
  {"rank": 16, "ops": ["xmul32", "xbxor32"], "carries": [{"from_part": 1, "from_operand": 0, "to_part": 2, "to_operand": 1}], "saving": 1},
  {"rank": 17, "ops": ["xadd32", "xload32_u_g32"], "carries": [{"from_part": 1, "from_operand": 0, "to_part": 2, "to_operand": 1}], "saving": 1},
  {"rank": 18, "ops": ["xmov", "xmov"], "carries": [], "saving": 1},
  {"rank": 19, "ops": ["xeq32", "xmov", "br_if"], "carries": [], "saving": 1},
  {"rank": 20, "ops": ["xeq32", "xmov", "br_if"], "carries": [{"from_part": 1, "from_operand": 0, "to_part": 3, "to_operand": 0}], "saving": 1},
  {"rank": 21, "ops": ["bcheck32", "xadd64"], "carries": [], "saving": 1}
 ]}
EOF
# The first five proposals alone: a second column.
"$PYTHON" -c 'import json, sys
d = json.load(open(sys.argv[1])); d["proposals"] = d["proposals"][:5]
json.dump(d, open(sys.argv[2], "w"))' "$tmp/proposals.json" "$tmp/five.json"

expect_status 0 "$PYTHON" "$families" --opcodes "$tmp/table.json" --format json \
    exact="$tmp/proposals.json" sampled="$tmp/five.json"
cp "$tmp/out" "$tmp/families.json"
"$PYTHON" - "$tmp/families.json" <<'EOF' || fail "families.py --format json: $(cat "$tmp/families.json")"
import json, sys
rep = json.load(open(sys.argv[1]))
want = {"compare + branch": [1, 8, 20], "constant + arithmetic": [2],
        "bounds check + load/store": [3], "address + load/store": [3, 17],
        "frame push + register saves": [4, 12], "register restores + frame pop": [7],
        "argument moves + call": [5], "multiply + add": [6]}
got = {f["family"]: f["columns"]["exact"]["ranks"] for f in rep["families"]}
assert got == want, got
base = {f["family"]: f["in_baseline"] for f in rep["families"]}
assert base == {k: k in ("constant + arithmetic", "bounds check + load/store") for k in want}, base
ops = {f["family"]: f["baseline_ops"] for f in rep["families"]}
assert ops["constant + arithmetic"] == ["xgt32_u_imm", "xadd32_imm"], ops
assert ops["bounds check + load/store"] == ["xload32_u_g32", "xstore32_g32"], ops
best = {f["family"]: (f["columns"]["exact"]["rank"], f["columns"]["exact"]["matched"])
        for f in rep["families"]}
assert best["frame push + register saves"] == (4, "push_frame>xpush"), best
assert best["address + load/store"] == (3, "xadd64>xload32_u"), best
saves = {f["family"]: (f["columns"]["exact"]["saving"], f["columns"]["exact"]["time_saving"])
         for f in rep["families"]}
assert saves["compare + branch"] == (9.5, 3.25), saves   # time: where the runs had costs
assert saves["multiply + add"] == (4, None), saves
assert rep["not_in_baseline"] == 6 and rep["found"] == {"exact": 6, "sampled": 4}, rep["found"]
sampled = {f["family"]: f["columns"]["sampled"]["rank"] for f in rep["families"]}
assert sampled["compare + branch"] == 1 and sampled["multiply + add"] is None, sampled
un = [p["rank"] for p in rep["unclassified"]["exact"]]
assert un == [9, 10, 11, 13, 14, 15, 16, 18, 19, 21], un
partial = {p["rank"]: sorted(p["partial"]) for p in rep["unclassified"]["exact"]}
assert partial[18] == ["argument moves + call"], partial  # moves without the call
assert partial[21] == [], partial    # no hints towards what the baseline has
assert partial[13] == [] and partial[16] == [] and partial[14] == [], partial
assert [c["proposals"] for c in rep["columns"]] == [21, 5], rep["columns"]
EOF

expect_status 0 "$PYTHON" "$families" --opcodes "$tmp/table.json" \
    exact="$tmp/proposals.json" sampled="$tmp/five.json"
grep -q '^Fusion families among the top proposals (exact: top 21, 1 runs, 1 benchmarks; sampled: top 5, 1 runs, 1 benchmarks)$' "$tmp/out" ||
    fail "text header: $(cat "$tmp/out")"
grep -Eq '^compare \+ branch +no +1 +1  xlt64_s \+ br_if_not \(xlt64_s>br_if_not\), saves 9\.50% of dispatches, 3\.25% of time \(predicted\)$' "$tmp/out" ||
    fail "text compare + branch row: $(cat "$tmp/out")"
grep -Eq '^multiply \+ add +no +6 +-  xmul64 \+ xadd64 .*, saves 4\.00% of dispatches$' "$tmp/out" ||
    fail "text multiply row: $(cat "$tmp/out")"
grep -Eq '^constant \+ arithmetic +yes +2 +2 ' "$tmp/out" || fail "text baseline row: $(cat "$tmp/out")"
grep -q '^in the baseline: bounds check + load/store (xload32_u_g32, xstore32_g32)$' "$tmp/out" ||
    fail "text baseline ops: $(cat "$tmp/out")"
grep -q '^Families not in the baseline found: exact 6, sampled 4 (of 6)$' "$tmp/out" ||
    fail "text total: $(cat "$tmp/out")"
grep -q '^Proposals in no family (exact): 10$' "$tmp/out" || fail "text unclassified: $(cat "$tmp/out")"
grep -Eq '^ +18  xmov \+ xmov +1\.00  argument moves \+ call \(ends before call\)$' "$tmp/out" ||
    fail "text partial: $(cat "$tmp/out")"

# A table whose conditional branch compares two registers has compare +
# branch in the baseline; one without a frame pop cannot tell that family
# (status 3, before any proposal is read).
table "$tmp/brcmp.json" br_if_xeq32:cond_branch:x,x,rel32:r,r
expect_status 0 "$PYTHON" "$families" --opcodes "$tmp/brcmp.json" --format json "$tmp/proposals.json"
"$PYTHON" -c 'import json, sys
f = {f["family"]: f for f in json.load(open(sys.argv[1]))["families"]}["compare + branch"]
assert f["in_baseline"] and f["baseline_ops"] == ["br_if_xeq32"], f' "$tmp/out" ||
    fail "a compare-and-branch op: $(cat "$tmp/out")"
table "$tmp/nopop.json" pop_frame:-::
expect_status 3 "$PYTHON" "$families" --opcodes "$tmp/nopop.json" "$tmp/missing.json"
grep -q '^families.py: family register restores + frame pop: no opcode of the table is of class frame_pop ' "$tmp/err" ||
    fail "a family without opcodes: $(cat "$tmp/err")"

# --top 5 leaves out the multiply + add at rank 6; stdin works.
expect_status 0 "$PYTHON" "$families" --opcodes "$tmp/table.json" --top 5 - <"$tmp/proposals.json"
grep -Eq '^multiply \+ add +no +-  -$' "$tmp/out" || fail "--top 5: $(cat "$tmp/out")"
grep -q '^Families not in the baseline found: proposals 4 (of 6)$' "$tmp/out" || fail "--top 5 total: $(cat "$tmp/out")"

# The build's own table: every family's classes exist (status 0), the
# immediate forms are compares, and the baseline has exactly what its
# table says: constant + arithmetic (the _imm ops) and bounds check +
# load/store (the _g32 accesses), nothing of the other six.
expect_status 0 "$PYTHON" "$families" --dis "$PULLEY_DIS" --list
[ "$(grep -c '^family ' "$tmp/out")" -eq 8 ] || fail "--list: $(cat "$tmp/out")"
grep -Eq '^family constant \+ arithmetic .* in the baseline as: .*xadd32_imm' "$tmp/out" ||
    fail "--list constant: $(cat "$tmp/out")"
grep -Eq '^family bounds check \+ load/store .* in the baseline as: .*xload32_u_g32' "$tmp/out" ||
    fail "--list bounds: $(cat "$tmp/out")"
[ "$(grep -c 'in the baseline as: -$' "$tmp/out")" -eq 6 ] || fail "--list not in the baseline: $(cat "$tmp/out")"
"$PULLEY_DIS" --opcodes >"$tmp/real.json"
cat >"$tmp/real_props.json" <<'EOF'
{"runs": [], "benchmarks": 1, "proposals": [
  {"rank": 1, "ops": ["xgt32_u_imm", "br_if"], "carries": []},
  {"rank": 2, "ops": ["xpop", "xpop", "xpop", "xpop"], "carries": []},
  {"rank": 3, "ops": ["fmul64", "fadd64"], "carries": [{"from_part": 1, "from_operand": 0, "to_part": 2, "to_operand": 2}]},
  {"rank": 4, "ops": ["fadd64", "fstore64_g32"], "carries": [{"from_part": 1, "from_operand": 0, "to_part": 2, "to_operand": 1}]}]}
EOF
expect_status 0 "$PYTHON" "$families" --opcodes "$tmp/real.json" --format json "$tmp/real_props.json"
"$PYTHON" - "$tmp/out" <<'EOF' || fail "the real table: $(cat "$tmp/out")"
import json, sys
rep = json.load(open(sys.argv[1]))
got = {f["family"]: f["columns"]["proposals"]["ranks"] for f in rep["families"]}
assert got["compare + branch"] == [1], got
assert got["register restores + frame pop"] == [2], got
assert got["multiply + add"] == [3], got
assert got["address + load/store"] == [], got   # the sum is the value stored
assert [p["rank"] for p in rep["unclassified"]["proposals"]] == [4], rep["unclassified"]
EOF

# Errors: bad JSON, no proposals, no table, a bad table, bad --top, two
# columns of one name, a pulley-dis that fails.
echo '{"proposals": [' >"$tmp/bad.json"
expect_status 1 "$PYTHON" "$families" --opcodes "$tmp/table.json" "$tmp/bad.json"
grep -q "^families.py: $tmp/bad.json: " "$tmp/err" || fail "bad json: $(cat "$tmp/err")"
echo '{"ngrams": []}' >"$tmp/none.json"
expect_status 1 "$PYTHON" "$families" --opcodes "$tmp/table.json" "$tmp/none.json"
grep -q 'no "proposals" list' "$tmp/err" || fail "no proposals: $(cat "$tmp/err")"
expect_status 2 "$PYTHON" "$families" "$tmp/proposals.json"
expect_status 1 "$PYTHON" "$families" --opcodes "$tmp/none.json" "$tmp/proposals.json"
grep -q 'no "opcodes" list' "$tmp/err" || fail "bad table: $(cat "$tmp/err")"
expect_status 2 "$PYTHON" "$families" --opcodes "$tmp/table.json" --top 0 "$tmp/proposals.json"
expect_status 2 "$PYTHON" "$families" --opcodes "$tmp/table.json" a="$tmp/proposals.json" a="$tmp/five.json"
expect_status 1 "$PYTHON" "$families" --opcodes "$tmp/table.json" "$tmp/missing.json"
expect_status 1 "$PYTHON" "$families" --dis false "$tmp/proposals.json"
grep -q '^families.py: false: false --opcodes exited with status 1' "$tmp/err" || fail "--dis false: $(cat "$tmp/err")"

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
