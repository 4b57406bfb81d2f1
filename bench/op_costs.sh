#!/bin/sh
# op_costs.sh - what each opcode's handler costs, in machine instructions
# per execution, in a build of the VM:
#
#   sh bench/op_costs.sh [-v] [-p PENALTY] [-b BUILD_DIR] [-o OUT.tsv] [PROGRAM...]
#
# The build (default build/) uses tail-call dispatch (clang,
# -DPULLEY_DISPATCH=tail), where every opcode's handler is its own
# function op_<mnemonic>, its dispatch and inlined helpers included, so
# callgrind's self cost of that function is what the opcode cost; or
# computed goto (-DPULLEY_DISPATCH=goto, the default with GCC), where a
# handler is the interpreter's code from its label (read from the
# dispatch tables in the binary) to the next handler's, counted per
# instruction address (callgrind --dump-instr=yes).  A switch build has
# no table of labels and is refused.  Each PROGRAM runs
# once under valgrind --tool=callgrind (pulley-run) and once on the
# counting VM (pulley-collect --exact), both fused as the VM runs by
# default (a macro build fuses) and translated whole before running (the
# counting VM always is; pulley-run with --translate-all), so the two run
# the same code; a handler's
# instructions over its executions, summed over the programs, is its cost.
# The handler of the escape byte (escape_) is shared among the extended
# opcodes, one escape per execution.  Code a handler calls out of line
# (host calls, libm) is not its cost.
#
# A PROGRAM is NAME or NAME:ARG, NAME a benchmark of bench/ (run as
# BUILD_DIR/bench/NAME.wasm) or a .wasm or .pasm file, ARG its one
# argument.  The default calibration set is the whole suite at small
# scales (2% to 33% of their default scales), under a minute on the 2-core
# development machine (each program's two runs go side by side):
#   bitops:1 nbody:2000 mandel:160 stream:1 trees:1 recurse:5 json:4
#   strings:2 sha256:3 sort:1 minivm:1 lz77:1 matmul:1 pidigits:1
# plus, always, a probe of a loop of nops (the suite runs none), whose nop
# row alone is kept: nop's cost is one dispatch, which readers of the file
# (pulley-collect --costs) take as the dispatch cost.
#
# Writes OUT (default: stdout) as tab-separated lines under a header,
#   opcode  executions  instructions  per_execution
# one per opcode that ran, by name; prints to stderr per program the
# machine instructions counted in all, those in handlers, the share
# outside them (start-up, translation, host calls), the VM instructions
# run, and the model error: the sum over opcodes of executions x
# per_execution against the handler instructions counted, in percent.
# -v adds the per-program cost of the 15 most executed opcodes.
#
# -p PENALTY adds PENALTY to every cost, nop's included: what a dispatch
# costs in time beyond its instructions (mispredicted indirect jumps, a
# pipeline refilled), in instructions' worth, so that the costs predict
# wall time rather than instructions on the machine it was calibrated on
# (analyze/README.md, "Time"; bench/RESULTS.md says how it was fitted).
# Default 0: machine instructions, the same on every machine.
set -eu
prog=op_costs.sh
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
build=$top/build out=- verbose="" penalty=0
defaults="bitops:1 nbody:2000 mandel:160 stream:1 trees:1 recurse:5 json:4
strings:2 sha256:3 sort:1 minivm:1 lz77:1 matmul:1 pidigits:1"
usage() {
    echo "usage: sh bench/op_costs.sh [-v] [-p PENALTY] [-b BUILD_DIR] [-o OUT.tsv] [PROGRAM...]" >&2
    exit 2
}
while getopts b:o:p:vh opt; do
    case $opt in
    b) build=$OPTARG ;;
    o) out=$OPTARG ;;
    v) verbose=-v ;;
    p) penalty=$OPTARG ;;
    h) usage_text; exit 0 ;;
    *) usage ;;
    esac
done
shift $((OPTIND - 1))
case $penalty in '' | *[!0-9.]* | *.*.*) echo "$prog: -p needs a number of instructions, as 4.5" >&2; exit 2 ;; esac
# shellcheck disable=SC2086 # the default set is words
[ $# -gt 0 ] || set -- $defaults

run=$build/bin/pulley-run
collect=$build/bin/pulley-collect
need_built "$run" "$collect" "$collect-exact"
command -v valgrind >/dev/null || die "valgrind is missing (apt-get install valgrind)"
command -v nm >/dev/null || die "nm is missing (apt-get install binutils)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dump=""
if ! nm "$run" 2>/dev/null | grep -q ' op_nop$'; then
    if ! nm "$run" 2>/dev/null | grep -q ' primary_\.[0-9]*$'; then
        echo "$prog: $run has neither op_ handler functions (tail dispatch) nor a table of" \
            "labels (computed goto): configure it with -DPULLEY_DISPATCH=tail or goto" >&2
        exit 1
    fi
    echo "$run" >"$work/binary" # computed goto: handlers by address
    dump=--dump-instr=yes
fi

# Resolve every program first, so a missing one stops us before any run.
for p in "$@"; do
    name=${p%%:*}
    case $name in */* | *.wasm | *.pasm) file=$name ;; *) file=$build/bench/$name.wasm ;; esac
    [ -f "$file" ] || { echo "$prog: $file is missing (program $p)" >&2; exit 1; }
done

# The nop probe: 800,000 nops, 8 to a loop iteration.
cat >"$work/nop.pasm" <<'EOF'
.func main -> i64
    xconst32 x0, 100000
    xconst8 x1, 1
loop:
    nop
    nop
    nop
    nop
    nop
    nop
    nop
    nop
    xsub64 x0, x0, x1
    br_if x0, loop
    ret
.end
EOF

# measure LABEL FILE [ARG]: the two runs of one program, side by side.
measure() {
    label=$1 file=$2
    shift 2
    echo "$prog: running $label" >&2
    "$collect" --exact -o "$work/$label.db" --label "$label" -- "$file" "$@" \
        >/dev/null 2>"$work/$label.collect.err" &
    pid=$!
    # --pop-on-jump: a tail jump to a function's entry is a call to
    # callgrind; without it its call stack grows by one entry per dispatch.
    st=0
    valgrind -q --tool=callgrind --pop-on-jump $dump --callgrind-out-file="$work/$label.cg" \
        "$run" --translate-all "$file" "$@" >/dev/null 2>"$work/$label.cg.err" || st=$?
    if [ $st -ne 0 ]; then
        kill $pid 2>/dev/null || :
        cat "$work/$label.cg.err" >&2
        echo "$prog: $label failed under callgrind (status $st)" >&2
        exit 1
    fi
    wait $pid || { cat "$work/$label.collect.err" >&2; echo "$prog: $label failed in pulley-collect --exact" >&2; exit 1; }
}

labels=""
for p in "$@"; do
    name=${p%%:*} arg=""
    case $p in *:*) arg=${p#*:} ;; esac
    case $name in */* | *.wasm | *.pasm) file=$name ;; *) file=$build/bench/$name.wasm ;; esac
    label=$(basename "$name" | sed 's/\.[a-z]*$//; s/[^A-Za-z0-9_.-]/_/g')
    while [ -e "$work/$label.cg" ]; do label=$label.2; done
    if [ -n "$arg" ]; then measure "$label" "$file" "$arg"; else measure "$label" "$file"; fi
    labels="$labels $label"
done
measure nop-probe "$work/nop.pasm"

# shellcheck disable=SC2086 # labels are words
python3 "$here/op_costs.py" $verbose "$penalty" "$work" "$out" $labels nop-probe
