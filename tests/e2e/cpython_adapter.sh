#!/bin/sh
# cpython_adapter.sh - CPython 3.11 profiled through libpulleyprof by the
# adapter (adapters/cpython): the script runs as under plain python3 (its
# output and exit status), the run stores CPython's opcode table and every
# code object met, decoded as CPython's dis module decodes it (lengths,
# arguments, jump targets); exact counts are exact; a script that raises
# still leaves a whole profile; pulley-ngrams and pulley-report read it.
#
# Environment: ADAPTER (the build's adapters/cpython), PYTHON (the Python
# it was built for), PULLEY_NGRAMS, PULLEY_REPORT; PYTHON_PRELOAD, in a
# sanitizer build, the sanitizer runtime python3 must load first.
set -eu
. "$(dirname "$0")/lib.sh"

if [ -n "${PYTHON_PRELOAD:-}" ]; then # only python3 gets it, not the tools
    printf '#!/bin/sh\nLD_PRELOAD=%s ASAN_OPTIONS=detect_leaks=0 exec %s "$@"\n' \
        "$PYTHON_PRELOAD" "$PYTHON" > "$tmp/python"
    chmod +x "$tmp/python"
    PYTHON=$tmp/python
fi

export PYTHONPATH="$ADAPTER"
db=$tmp/py.db
sql() { sqlite3 "$db" "$1"; }

cat > "$tmp/work.py" <<'PY'
import sys

def total(n):
    s = 0
    for i in range(n):
        if i % 3 == 0:
            s += i
    return s

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

print(total(int(sys.argv[1])), fib(18))
if len(sys.argv) > 2:
    sys.exit(int(sys.argv[2]))
PY

expect_status 0 "$PYTHON" "$tmp/work.py" 1000
plain=$(cat "$tmp/out")
expect_status 0 "$PYTHON" -m pulleyprof -o "$db" "$tmp/work.py" 1000
[ "$(cat "$tmp/out")" = "$plain" ] || fail "sampled output $(cat "$tmp/out"), plain $plain"
grep -q "[0-9] samples.* in [0-9.]* s, run 1 in $db" "$tmp/err" || fail "summary: $(cat "$tmp/err")"
expect_status 0 "$PYTHON" -m pulleyprof --exact -o "$db" "$tmp/work.py" 1000
[ "$(cat "$tmp/out")" = "$plain" ] || fail "exact output $(cat "$tmp/out"), plain $plain"
grep -q "instructions executed (exact counts)" "$tmp/err" || fail "summary: $(cat "$tmp/err")"

# The run rows and CPython's opcode table.
[ "$(sql "SELECT group_concat(isa_name || ' ' || exact || ' ' || outcome || ' ' || exit_status
          || ' ' || operands_stored || ' ' || functions_cut_short, ',') FROM runs")" = \
  "cpython-3.11 0 return 0 1 0,cpython-3.11 1 return 0 1 0" ] || fail "runs: $(sql 'SELECT * FROM runs')"
[ "$(sql "SELECT group_concat(name || ':' || length || ':' || flags || ':' || operands, ' ') FROM
          opcodes WHERE run_id = 2 AND name IN ('LOAD_FAST', 'BINARY_OP', 'CALL', 'RETURN_VALUE',
          'JUMP_BACKWARD') ORDER BY id")" = \
  "RETURN_VALUE:2:18: BINARY_OP:4:64:arg LOAD_FAST:2:0:arg JUMP_BACKWARD:2:3:arg CALL:10:72:arg" ] ||
    fail "opcode rows: $(sql "SELECT * FROM opcodes WHERE run_id = 2 AND name LIKE '%FAST'")"
# Adaptive: exactly the opcodes with inline cache entries.
"$PYTHON" - "$db" <<'PY' || fail "adaptive opcodes differ from those with inline caches"
import opcode, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
stored = {n for n, in db.execute("SELECT name FROM opcodes WHERE run_id = 2 AND flags & 64"
                                 " AND flag_names LIKE '%adaptive%'")}
assert stored == {opcode.opname[op] for op, n in enumerate(opcode._inline_cache_entries) if n}, stored
PY

# Every instruction of total() and fib() as dis decodes it: offset, name,
# argument, jump target.
"$PYTHON" - "$tmp/work.py" "$db" <<'PY' || fail "rows differ from dis"
import dis, sqlite3, sys
src = open(sys.argv[1]).read()
module = compile(src, sys.argv[1], "exec")
db = sqlite3.connect(sys.argv[2])
for code in [c for c in module.co_consts if hasattr(c, "co_code")]:
    want = []
    for ins in dis.get_instructions(code):
        target = str(ins.argval) if ins.opcode in dis.hasjrel + dis.hasjabs else ""
        imms = str(ins.arg) if ins.arg is not None else ""
        want.append((ins.offset, ins.opname, imms, target))
    got = [(off, text.split()[0], imms, targets) for off, text, imms, targets in db.execute(
        "SELECT i.offset, i.text, i.imms, i.targets FROM instructions i JOIN functions f"
        " ON f.id = i.function_id WHERE f.run_id = 2 AND f.name LIKE ? ORDER BY i.offset",
        (code.co_name + " (%",))]
    assert got == want, (code.co_name, got, want)
PY
# Exact counts: the loop of total(1000) tests its condition 1000 times.
[ "$(sql "SELECT c.count FROM exec_counts c JOIN instructions i
          ON i.function_id = c.function_id AND i.offset = c.offset
          JOIN functions f ON f.id = c.function_id
          WHERE c.run_id = 2 AND f.name LIKE 'total (%' AND i.text LIKE 'FOR_ITER%'")" = 1001 ] ||
    fail "FOR_ITER count: $(sql 'SELECT * FROM exec_counts WHERE run_id = 2 LIMIT 20')"
# A call is reported at its RESUME, which gets no opcode event of its own:
# fib(18) is entered 8361 times, and so runs its RESUME and what follows.
[ "$(sql "SELECT group_concat(c.count, ' ') FROM exec_counts c JOIN instructions i
          ON i.function_id = c.function_id AND i.offset = c.offset
          JOIN functions f ON f.id = c.function_id
          WHERE c.run_id = 2 AND f.name LIKE 'fib (%' AND c.offset <= 2 ORDER BY c.offset")" = \
  "8361 8361" ] || fail "fib's entry counts: $(sql 'SELECT * FROM exec_counts WHERE run_id = 2')"

# Exit statuses pass through; an exception still leaves a whole run (with
# --trace, every code object run is registered, however short-lived).
expect_status 3 "$PYTHON" -m pulleyprof -o "$db" "$tmp/work.py" 10 3
printf 'def boom():\n    raise ValueError("no")\nboom()\n' > "$tmp/raise.py"
expect_status 1 "$PYTHON" -m pulleyprof --trace -o "$db" "$tmp/raise.py"
grep -q "ValueError: no" "$tmp/err" || fail "no traceback: $(cat "$tmp/err")"
[ "$(sql "SELECT group_concat(outcome || ':' || exit_status, ',') FROM runs WHERE id > 2")" = \
  "exit:3,exception: ValueError:1" ] || fail "outcomes: $(sql 'SELECT id, outcome FROM runs')"
[ "$(sql "SELECT count(*) FROM functions WHERE run_id = 4 AND name LIKE 'boom (%'")" = 1 ] ||
    fail "the raising run lost its functions"
expect_status 2 "$PYTHON" -m pulleyprof -o "$db"
expect_status 2 "$PYTHON" -m pulleyprof -o "$db" "$tmp/missing.py"
grep -q "no such script" "$tmp/err" || fail "missing script: $(cat "$tmp/err")"

# Sampling frames (the default): no trace function runs; the sampler reads
# the instruction CPython records in the frame, the code of the frames on
# the stack is registered when samples land in it, and every sample that
# names a function is at one of its instructions.
cat > "$tmp/spin.py" <<'PY'
def spin(n):
    s = 0
    for i in range(n):
        s += i * i
    return s

print(spin(3000000))
PY
expect_status 0 "$PYTHON" "$tmp/spin.py"
plain=$(cat "$tmp/out")
fdb=$tmp/frames.db
expect_status 0 "$PYTHON" -m pulleyprof -o "$fdb" "$tmp/spin.py"
[ "$(cat "$tmp/out")" = "$plain" ] || fail "frames output $(cat "$tmp/out"), plain $plain"
fsql() { sqlite3 "$fdb" "$1"; }
[ "$(fsql "SELECT build_flags || ':' || outcome FROM runs")" = "cpython sampled frames:return" ] ||
    fail "frames run: $(fsql 'SELECT * FROM runs')"
[ "$(fsql "SELECT 10 * sum(s.samples) > 8 * (SELECT sum(samples) FROM pc_samples)
           FROM pc_samples s JOIN functions f ON f.id = s.function_id
           WHERE f.name LIKE 'spin (%'")" = 1 ] ||
    fail "spin() has too few of the samples: $(fsql 'SELECT * FROM hot_functions')"
# Samples in code that was gone before it could be registered are stored
# without a function, and the summary says how many.
lost=$(fsql "SELECT coalesce(sum(samples), 0) FROM pc_samples WHERE function_id IS NULL AND pc != 0")
if [ "$lost" -gt 0 ]; then
    grep -q "($lost in code gone before the run ended" "$tmp/err" || fail "summary: $(cat "$tmp/err")"
else
    ! grep -q "code gone" "$tmp/err" || fail "summary: $(cat "$tmp/err")"
fi
[ "$(fsql "SELECT count(*) FROM pc_samples s WHERE s.function_id IS NOT NULL AND NOT EXISTS
           (SELECT 1 FROM instructions i WHERE i.function_id = s.function_id
            AND i.offset = s.offset)")" = 0 ] ||
    fail "samples between instructions: $(fsql 'SELECT * FROM pc_samples LIMIT 20')"

# The readers, on an ISA they were not written for.  CPython rewrites its
# instructions with inline caches as the program runs (specialization): the
# table marks them adaptive, and no n-gram holds one unless asked for.
check_ngrams() { # INCLUDE_ADAPTIVE(0/1)
    "$PYTHON" - "$tmp/out" "$1" <<'PY' || fail "pulley-ngrams: $(cat "$tmp/out")"
import json, opcode, sys
doc = json.load(open(sys.argv[1]))
include = sys.argv[2] == "1"
adaptive = {opcode.opname[op] for op, n in enumerate(opcode._inline_cache_entries) if n}
assert doc["shares"] == "exact" and doc["proposals"], doc
assert doc["choice"]["adaptive"]["ran"] > 0 and doc["choice"]["adaptive"]["mined"] == include, doc
for p in doc["proposals"]:
    assert len(p["ops"]) == 2 and all(op in opcode.opmap for op in p["ops"]), p
grams = [set(g["sequence"].split(" + ")) for g in doc["ngrams"]]
assert any(g & adaptive for g in grams) == include, grams
PY
}
expect_status 0 "$PULLEY_NGRAMS" "$db" --runs 2 --max-n 2 --top 5 --ngrams 500 --format json --quiet
check_ngrams 0
expect_status 0 "$PULLEY_NGRAMS" "$db" --runs 2 --max-n 2 --top 5 --ngrams 500 --format json --quiet \
    --include-adaptive
check_ngrams 1
expect_status 0 "$PULLEY_NGRAMS" "$db" --runs 2 --max-n 2 --quiet
grep -q "adaptive opcodes (rewritten in place by the interpreter at run time) ran" "$tmp/out" ||
    fail "pulley-ngrams text: $(cat "$tmp/out")"
expect_status 0 "$PULLEY_REPORT" "$db" --runs 2 --quiet -o "$tmp/report.html"
grep -q "adaptive opcodes (rewritten in place by the interpreter at run time) ran" \
    "$tmp/report.html" || fail "pulley-report says nothing of the adaptive opcodes"
# --emit-macros writes CPython's proposals as a .macros file in its own
# mnemonics, the file naming the instruction set.
expect_status 0 "$PULLEY_NGRAMS" "$db" --runs 2 --max-n 2 --top 5 --emit-macros "$tmp/set.macros"
grep -q "^# Instruction set: cpython-3.11$" "$tmp/set.macros" ||
    fail "--emit-macros: $(cat "$tmp/set.macros")"
"$PYTHON" - "$tmp/set.macros" <<'PY' || fail "--emit-macros: $(cat "$tmp/set.macros")"
import opcode, sys
parts = [l.split()[1] for l in open(sys.argv[1]) if l.strip().startswith("part ")]
assert len(parts) >= 4 and all(p in opcode.opmap for p in parts), parts
PY
expect_status 0 "$PULLEY_REPORT" "$fdb" --text
grep -q "spin (spin.py:1)" "$tmp/out" && grep -q "LOAD_FAST" "$tmp/out" ||
    fail "pulley-report: $(cat "$tmp/out")"
echo "cpython_adapter: ok"
