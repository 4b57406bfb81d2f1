#!/bin/sh
# where_lost.sh - where this VM executes more machine instructions than
# wasm3 on one program: both under callgrind, side by side by area
# (memory accesses, calls and their saves, moves, arithmetic, branches),
# this VM's costliest opcodes beside wasm3's costliest functions, what the
# calls cost, and the estimates behind bench/RESULTS.md's proposals.
# (This VM runs under cachegrind, which gives the same self cost per
# function: callgrind follows its tail-called handlers as nested calls and
# runs out of memory on a long program.)
#
#   sh bench/where_lost.sh -3 WASM3 [-b BUILD_DIR] [-W WORK_DIR] [-t TOP]
#                          PROGRAM.wasm [ARG...]
#
# BUILD_DIR (default build/) must be a tail-dispatch build of this VM
# (clang, -DPULLEY_DISPATCH=tail: every handler its own function
# op_<mnemonic>) with pulley-run, pulley-collect and pulley-collect-exact.
# The program runs three times: pulley-run --translate-all under valgrind
# --tool=cachegrind (the code the counting VM runs: translated whole),
# pulley-collect --exact (executions of every VM instruction), and WASM3
# under callgrind --dump-instr=yes --pop-on-jump (an operation's executions
# are the Ir of its function's first instruction); the outputs of the two
# VMs must be the same (less the lines PROGRAM's NAME.ignore beside it
# matches, as for compare_runtimes.sh).  The callgrind run is the slow one,
# about 150 times the program's time (3 to 4 minutes for Lua or CoreMark
# here): give small arguments where the program allows.  The files stay
# in WORK_DIR (default: a new directory in
# /tmp): vm.cg (cg_annotate), vm.db (SQL), wasm3.cg (callgrind_annotate).  The
# report (markdown tables) is bench/where_lost.py's.
set -eu
prog=where_lost.sh
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
build=$top/build wasm3="" work="" ntop=15
while getopts 3:b:W:t:h opt; do
    case $opt in
    3) wasm3=$OPTARG ;;
    b) build=$OPTARG ;;
    W) work=$OPTARG ;;
    t) ntop=$OPTARG ;;
    h) usage_text; exit 0 ;;
    *) usage_text >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage_error "no program given"
[ -n "$wasm3" ] || usage_error "-3 WASM3 (the path of wasm3) is needed"
check_positive -t "$ntop"
program=$1
shift
[ -f "$program" ] || die "$program: no such file"
[ -x "$wasm3" ] || die "$wasm3 is not an executable"
run=$build/bin/pulley-run
need_built "$run" "$build/bin/pulley-collect" "$build/bin/pulley-collect-exact"
need_commands valgrind nm python3
nm "$run" 2>/dev/null | grep -q ' op_nop$' ||
    die "$run has no op_ handler functions: configure $build with clang and -DPULLEY_DISPATCH=tail"
[ -n "$work" ] || work=$(mktemp -d /tmp/where_lost.XXXXXX)
mkdir -p "$work"
echo "$prog: working in $work" >&2

echo "$prog: this VM under cachegrind" >&2
valgrind -q --tool=cachegrind --cache-sim=no --cachegrind-out-file="$work/vm.cg" \
    "$run" --translate-all "$program" "$@" \
    >"$work/vm.out" 2>"$work/vm.err" </dev/null || die "pulley-run failed under cachegrind (see $work/vm.err)"
echo "$prog: this VM's exact counts" >&2
rm -f "$work/vm.db"
"$build/bin/pulley-collect" --exact -o "$work/vm.db" --label where_lost -- "$program" "$@" \
    >"$work/collect.out" 2>"$work/collect.err" </dev/null ||
    die "pulley-collect --exact failed (see $work/collect.err)"
echo "$prog: wasm3 under callgrind" >&2
valgrind -q --tool=callgrind --dump-instr=yes --pop-on-jump --callgrind-out-file="$work/wasm3.cg" \
    "$wasm3" "$program" "$@" \
    >"$work/wasm3.out" 2>"$work/wasm3.err" </dev/null || die "wasm3 failed under callgrind (see $work/wasm3.err)"
ignore=${program%.wasm}.ignore # the lines that vary, as for compare_runtimes.sh
if [ -f "$ignore" ]; then
    for o in vm wasm3; do
        grep -Ev -f "$ignore" "$work/$o.out" >"$work/$o.kept" || true
        mv "$work/$o.kept" "$work/$o.out"
    done
fi
cmp -s "$work/vm.out" "$work/wasm3.out" ||
    die "wasm3 prints something else than this VM (diff $work/vm.out $work/wasm3.out)"
python3 "$here/where_lost.py" "$work/vm.cg" "$work/vm.db" "$work/wasm3.cg" "$ntop"
