#!/bin/sh
# compare_runtimes_cg.sh - bench/compare_runtimes.sh -c and -C end to end
# with stand-ins: a `valgrind` first on PATH that runs the command and
# writes a cachegrind file whose counts depend on the command, and two
# "runtimes" (wasm3 and WAMR's places) that print their arguments.  Checks
# the options valgrind is given (cache and branch simulation with -c only),
# that NAME.cg.args replaces NAME.args, the Ir table's values, ratios to
# wasm3 and geometric mean, that -S runs the programs with a
# NAME.startup.args with it and lists the others as left out (and -S -t
# times those runs instead, only with -S and never with -c or -C), that a
# missing summary line and a runtime that
# prints something else are refused by name, and that no VM is built with
# -D "".  Environment: BENCH (the bench/ directory).
set -eu
: "${BENCH:?}"
. "$(dirname "$0")/lib.sh"

mkdir -p "$tmp/bin" "$tmp/progs"
# the stand-in valgrind: its options are logged; the command runs; Ir is
# 1000 per word of the command, times 3 for "slow"
cat >"$tmp/bin/valgrind" <<'EOF'
#!/bin/sh
out="" log=""
while :; do
    case $1 in
    --cachegrind-out-file=*) out=${1#*=} ;;
    --log-file=*) log=${1#*=} ;;
    -*) ;;
    *) break ;;
    esac
    echo "$1" >>"$VG_LOG"
    shift
done
"$@" || exit
k=1000
case $1 in *slow) k=3000 ;; esac
ir=$(($# * k))
[ -n "${VG_NO_SUMMARY:-}" ] && ir=""
{
    echo "desc: stand-in"
    echo "cmd: $*"
    echo "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim"
    echo "fn=main"
    echo "0 $ir 1 0 0 2 0 0 3 0 0 4 0 5"
    [ -z "$ir" ] || echo "summary: $ir 1 0 0 2 0 0 3 0 0 4 0 5"
} >"$out"
: >"$log"
EOF
printf '#!/bin/sh\nshift; echo "$@"\n' >"$tmp/bin/fast"
printf '#!/bin/sh\nshift; echo "$@"\n' >"$tmp/bin/slow"
printf '#!/bin/sh\nshift; echo other "$@"\n' >"$tmp/bin/odd"
chmod +x "$tmp/bin/valgrind" "$tmp/bin/fast" "$tmp/bin/slow" "$tmp/bin/odd"
: >"$tmp/progs/p.wasm"
printf 'a\nb\nc\n' >"$tmp/progs/p.args"
printf 'z\n' >"$tmp/progs/p.cg.args" # under valgrind: 3 words (runtime, p.wasm, z)
: >"$tmp/progs/q.wasm"
printf '1\n2\n3\n' >"$tmp/progs/q.args" # 5 words
PATH=$tmp/bin:$PATH
export PATH VG_LOG="$tmp/vg.log"

run() { # run OPTION...: compare_runtimes.sh with wasm3 = fast, WAMR = slow
    expect_status 0 sh "$BENCH/compare_runtimes.sh" -D "" -d "$tmp/progs" -3 "$tmp/bin/fast" \
        -w "$tmp/bin/slow" -W "$tmp/work" "$@"
}

# ---- -c: values, ratios, geometric mean, the simulation options ---------------
: >"$VG_LOG"
run -c
grep -q -e '--cache-sim=yes' "$VG_LOG" || fail "-c: no --cache-sim=yes: $(cat "$VG_LOG")"
grep -q -e '--branch-sim=yes' "$VG_LOG" || fail "-c: no --branch-sim=yes"
grep -q -e '--D1=32768,8,64' "$VG_LOG" || fail "-c: the D1 cache is not fixed"
# p: 3 words under valgrind (p.cg.args), wasm3 3000, WAMR 9000 Ir
grep -q '^p  *0\.000 1\.00x  *0\.000 3\.00x$' "$tmp/out" ||
    fail "-c: the Ir row of p: $(cat "$tmp/out")"
grep -q '^q  *0\.000 1\.00x  *0\.000 3\.00x$' "$tmp/out" || fail "-c: the Ir row of q"
grep -q '^geomean x  *1\.000  *3\.000$' "$tmp/out" || fail "-c: the geometric mean"
grep -q '^Indirect branches mispredicted' "$tmp/out" || fail "-c: no indirect branch table"
[ "$(cat "$tmp/work/out.p.wamr")" = z ] || fail "-c: p.cg.args not used: $(cat "$tmp/work/out.p.wamr")"
[ "$(cat "$tmp/work/out.q.wamr")" = "1 2 3" ] || fail "-c: q.args not used"
grep -q '^summary: 9000 ' "$tmp/work/cg.p.wamr" || fail "-c: cachegrind file not kept"
grep -q 'skipped' "$tmp/out" && fail "-c: something skipped: $(cat "$tmp/out")"

# ---- -C: instructions only ----------------------------------------------------------
: >"$VG_LOG"
run -C
grep -q -e '--cache-sim=no' "$VG_LOG" || fail "-C: no --cache-sim=no"
grep -q -e 'branch-sim' "$VG_LOG" && fail "-C: branch simulation asked for"
grep -q '^Machine instructions' "$tmp/out" || fail "-C: no Ir table"
grep -q 'misses' "$tmp/out" && fail "-C: a miss table: $(cat "$tmp/out")"

# ---- -S: start-up, with NAME.startup.args; programs without one left out ----------
printf 'e\nf\n' >"$tmp/progs/p.startup.args" # 4 words under valgrind
: >"$VG_LOG"
run -S
grep -q -e '--cache-sim=no' "$VG_LOG" || fail "-S: not counted as with -C"
grep -q '^Start-up (NAME.startup.args): Machine instructions' "$tmp/out" ||
    fail "-S: the table's title: $(cat "$tmp/out")"
[ "$(cat "$tmp/work/out.p.wamr")" = "e f" ] || fail "-S: p.startup.args not used"
grep -q '^q ' "$tmp/out" && fail "-S: q has no startup.args but ran"
grep -q 'no NAME.startup.args, left out: q' "$tmp/err" || fail "-S: q not listed: $(cat "$tmp/err")"
# -S -t: the same runs timed, not under valgrind
: >"$VG_LOG"
run -S -t -n 1
[ -s "$VG_LOG" ] && fail "-S -t: valgrind ran: $(cat "$VG_LOG")"
grep -q '^Start-up (NAME.startup.args): Wall time' "$tmp/out" ||
    fail "-S -t: the table's title: $(cat "$tmp/out")"
grep -q '^p  *[0-9.]* 1\.00x ' "$tmp/out" || fail "-S -t: no row for p: $(cat "$tmp/out")"
[ "$(cat "$tmp/work/out.p.wamr")" = "e f" ] || fail "-S -t: p.startup.args not used"
grep -q '^q ' "$tmp/out" && fail "-S -t: q has no startup.args but ran"
expect_status 1 sh "$BENCH/compare_runtimes.sh" -D "" -d "$tmp/progs" -3 "$tmp/bin/fast" \
    -W "$tmp/work" -t
grep -q -e '-t times start-up: it needs -S' "$tmp/err" || fail "-t alone: $(cat "$tmp/err")"
expect_status 1 sh "$BENCH/compare_runtimes.sh" -D "" -d "$tmp/progs" -3 "$tmp/bin/fast" \
    -W "$tmp/work" -S -t -C
grep -q -e 'not with -c or -C' "$tmp/err" || fail "-S -t -C: $(cat "$tmp/err")"
rm "$tmp/progs/p.startup.args"
expect_status 1 sh "$BENCH/compare_runtimes.sh" -D "" -d "$tmp/progs" -3 "$tmp/bin/fast" \
    -W "$tmp/work" -S
grep -q 'no .wasm programs to run' "$tmp/err" || fail "-S, no startup.args: $(cat "$tmp/err")"

# ---- refusals ---------------------------------------------------------------------
VG_NO_SUMMARY=1 expect_status 1 sh "$BENCH/compare_runtimes.sh" -D "" -d "$tmp/progs" \
    -3 "$tmp/bin/fast" -W "$tmp/work" -C
grep -q 'cannot read the counts of wasm3 on p' "$tmp/err" || fail "no summary: $(cat "$tmp/err")"
expect_status 1 sh "$BENCH/compare_runtimes.sh" -D "" -d "$tmp/progs" -3 "$tmp/bin/fast" \
    -w "$tmp/bin/odd" -W "$tmp/work" -C
grep -q 'wamr prints something else than wasm3 for p' "$tmp/err" || fail "odd output: $(cat "$tmp/err")"
echo "compare_runtimes_cg: ok"
