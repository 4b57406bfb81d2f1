#!/bin/sh
# where_lost_report.sh - bench/where_lost.py on known inputs: exact counts
# of a .pasm program (main calls leaf a million times; leaf calls nothing
# but saves a register) from pulley-collect --exact, a cachegrind file of
# "this VM" with set costs per handler, and a callgrind file of "wasm3"
# (--dump-instr) with one operation.  Checks the places of pushes, pops
# and moves, the frames of invocations that call nothing, the areas,
# wasm3's executions from its entry instruction, and the refusals (no
# file, no exact run, no addresses).
# The program is collected --no-fuse: a macro build would fuse it and
# change the counts the checks know.
# Environment: PULLEY_COLLECT, BENCH (the bench/ directory), PYTHON.
set -eu
: "${PULLEY_COLLECT:?}" "${BENCH:?}" "${PYTHON:?}"
. "$(dirname "$0")/lib.sh"

cat >"$tmp/p.pasm" <<'EOF'
.func main -> i64
    push_frame
    xpush x16
    xpush x17
    xconst32 x16, 1000000
    xconst8 x17, 1
loop:
    xmov x0, x16                ; an argument
    call leaf
    xmov x2, x0                 ; a result
    xsub64 x16, x16, x17
    br_if x16, loop
    xconst8 x0, 0
    xpop x17
    xpop x16
    pop_frame
    ret
.end

.func leaf i64 -> i64
    push_frame
    xpush x16
    xmov x16, x0                ; the parameter to its home
    xadd32 x0, x16, x16
    xpop x16
    pop_frame
    ret
.end
EOF
expect_status 0 "$PULLEY_COLLECT" --exact --no-fuse -o "$tmp/p.db" -- "$tmp/p.pasm"

# this VM: Ir per handler = executions x a set cost per execution, and
# 1000000 outside the handlers
n=1000000
{
    echo "events: Ir"
    echo "fn=op_push_frame"; echo "0 $((12 * (n + 1)))"
    echo "fn=op_xpush"; echo "0 $((9 * (n + 2)))"
    echo "fn=op_xpop"; echo "0 $((11 * (n + 2)))"
    echo "fn=op_pop_frame"; echo "0 $((14 * (n + 1)))"
    echo "fn=op_xmov"; echo "0 $((7 * 3 * n))"
    echo "fn=op_call"; echo "0 $((13 * n))"
    echo "fn=op_ret"; echo "0 $((20 * (n + 1)))"
    echo "fn=op_xadd32"; echo "0 $((9 * n))"
    echo "fn=op_xsub64"; echo "0 $((9 * n))"
    echo "fn=op_br_if"; echo "0 $((7 * n))"
    echo "fn=op_xconst8"; echo "0 12"
    echo "fn=op_xconst32"; echo "0 6"
    echo "fn=main"; echo "0 $n"
} >"$tmp/vm.cg"
# wasm3: op_Call entered a million times (its first address), 50 Ir each
cat >"$tmp/wasm3.cg" <<'EOF'
version: 1
positions: instr
events: Ir
fn=op_Call
0x1000 1000000
0x1004 49000000
fn=main
0x2000 10
EOF

expect_status 0 "$PYTHON" "$BENCH/where_lost.py" "$tmp/vm.cg" "$tmp/p.db" "$tmp/wasm3.cg" 4
out=$(cat "$tmp/out")
has() { # has TEXT: the report holds the line TEXT
    printf '%s\n' "$out" | grep -qxF "$1" || fail "no line '$1' in: $out"
}
has "This VM: 0.126 G machine instructions (Ir), 12.0 M VM instructions, 10.50 Ir each (10.42 in handlers)"
has "Calls in this VM: 1.00 M executed; per place of a push, pop or move:"
has "| saves: callee-saved registers, prologue | 1.00 | 8.33% | 0.010 | 10.0 |"
has "| saves: callee-saved registers, epilogue | 1.00 | 8.33% | 0.010 | 10.0 |"
has "| moves: arguments before a call | 1.00 | 8.33% | 0.007 | 7.0 |"
has "| moves: results after a call | 1.00 | 8.33% | 0.007 | 7.0 |"
has "| moves: parameters to their homes (prologue) | 1.00 | 8.33% | 0.007 | 7.0 |"
has "wasm3: call, entry, return (and the memcpy/memset they make): 0.050 G Ir, 50.0 per call (1.00 M calls)"
# leaf: push_frame, xpush, xmov, then xpop, pop_frame: 5 instructions,
# 12 + 9 + 7 + 11 + 14 = 53 Ir per invocation, none of which calls
has "| leaf | 1000000 | 0 | 1 | 5 | 53.0 |"
has "| calls: register saves (push/pop) | 2.0 | 0.020 | 10.0 | 0.0 | 0.000 | 0.0 | +0.020 | +26% |"
printf '%s\n' "$out" | grep -q '^| main |' && fail "main makes a call per invocation: $out"

# ---- refusals -------------------------------------------------------------------
expect_status 1 "$PYTHON" "$BENCH/where_lost.py" "$tmp/vm.cg" "$tmp/none.db" "$tmp/wasm3.cg"
grep -q "none.db: no such file" "$tmp/err" || fail "missing db: $(cat "$tmp/err")"
expect_status 0 "$PULLEY_COLLECT" --no-fuse -o "$tmp/sampled.db" -- "$tmp/p.pasm"
expect_status 1 "$PYTHON" "$BENCH/where_lost.py" "$tmp/vm.cg" "$tmp/sampled.db" "$tmp/wasm3.cg"
grep -q "sampled.db: no run with exact counts" "$tmp/err" || fail "no exact run: $(cat "$tmp/err")"
printf 'events: Ir\nfn=op_Call\n0 50\n' >"$tmp/flat.cg"
expect_status 1 "$PYTHON" "$BENCH/where_lost.py" "$tmp/vm.cg" "$tmp/p.db" "$tmp/flat.cg"
grep -q "flat.cg: no instruction addresses" "$tmp/err" || fail "no addresses: $(cat "$tmp/err")"
echo "where_lost_report: ok"
