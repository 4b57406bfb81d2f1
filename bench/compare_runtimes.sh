#!/bin/sh
# compare_runtimes.sh - this VM against the reference interpreters, side by
# side: wall-time medians of wasm32-wasi programs under each build of this
# VM (each dispatch mode, baseline and, with -m, macro builds) and, where
# their paths are given, wasm3 and WAMR's fast interpreter (iwasm), runs
# interleaved, with ratios to wasm3 and their geometric means.
#
#   sh bench/compare_runtimes.sh [-n RUNS] [-d DIR]... [-m SET.macros]
#                                [-3 WASM3] [-w IWASM] [-D "goto switch tail"]
#                                [-W WORK_DIR]
#
# Programs: every DIR/NAME.wasm (default: build/bench, the suite written
# here; give -d for each directory, third-party programs included), with
# its arguments in NAME.args and the output lines that vary in NAME.ignore
# (bench/program_dir.sh).
# Every runtime's output (stdout and stderr) of a program must be the same
# as the first runtime's, or the script stops saying which.
# This VM is built (pulley-run only) into WORK_DIR per dispatch mode (gcc
# for switch and goto, clang for tail), and per mode again with the macro
# ops of -m.  A runtime whose path is not given, or a mode a compiler lacks,
# is skipped and the table says so.  RUNS defaults to 5.
set -eu
prog=compare_runtimes.sh
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=bench/program_dir.sh
. "$here/program_dir.sh"
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
runs=5 dirs="" macros="" wasm3="" iwasm="" modes="goto switch tail" work=""
while getopts n:d:m:3:w:D:W:h opt; do
    case $opt in
    n) runs=$OPTARG ;;
    d) dirs="$dirs $(cd "$OPTARG" && pwd)" ;;
    m) macros=$(cd "$(dirname "$OPTARG")" && pwd)/$(basename "$OPTARG") ;;
    3) wasm3=$OPTARG ;;
    w) iwasm=$OPTARG ;;
    D) modes=$OPTARG ;;
    W) work=$OPTARG ;;
    h) usage_text; exit 0 ;;
    *) usage_text >&2; exit 2 ;;
    esac
done
check_positive -n "$runs"
[ -n "$dirs" ] || dirs=$top/build/bench
[ -n "$work" ] || work=$(mktemp -d /tmp/compare_runtimes.XXXXXX)
mkdir -p "$work"
work=$(cd "$work" && pwd)
log=$work/log
echo "$prog: working in $work" >&2

# ---- the runtimes: "label command..." lines ---------------------------------
runtimes=$work/runtimes
: >"$runtimes"
skipped=""
build_vm() { # build_vm LABEL MODE [MACROS]
    cc=gcc
    [ "$2" = tail ] && cc=clang
    command -v "$cc" >/dev/null || { skipped="$skipped $1 (no $cc)"; return 0; }
    dir=$work/vm-$1
    if [ ! -x "$dir/bin/pulley-run" ]; then
        echo "$prog: building $1" >&2
        if ! build_variant "$dir" pulley-run -DCMAKE_C_COMPILER="$cc" -DPULLEY_DISPATCH="$2" \
                 -DPULLEY_MACROS="${3:-}"; then
            skipped="$skipped $1 (does not build, see $log)"
            return 0
        fi
    fi
    echo "$1 $dir/bin/pulley-run" >>"$runtimes"
}
for mode in $modes; do build_vm "base-$mode" "$mode"; done
if [ -n "$macros" ]; then
    for mode in $modes; do build_vm "macro-$mode" "$mode" "$macros"; done
fi
if [ -n "$wasm3" ] && [ -x "$wasm3" ]; then echo "wasm3 $wasm3" >>"$runtimes"; else skipped="$skipped wasm3"; fi
if [ -n "$iwasm" ] && [ -x "$iwasm" ]; then echo "wamr $iwasm" >>"$runtimes"; else skipped="$skipped wamr"; fi
[ -s "$runtimes" ] || die "no runtime to run"

# ---- the programs ----------------------------------------------------------
programs=$work/programs # "dir name" lines
: >"$programs"
for d in $dirs; do
    for w in "$d"/*.wasm; do
        [ -f "$w" ] && echo "$d $(basename "$w" .wasm)" >>"$programs"
    done
done
[ -s "$programs" ] || die "no .wasm programs in$dirs"

# run_one LABEL COMMAND DIR NAME: time one run, check its output
run_one() {
    label=$1 cmd=$2 d=$3 name=$4
    out=$work/out.$name.$label
    timed program_run "$d" "$name" "$cmd" >"$out" 2>&1 </dev/null || die "$label failed on $name (see $out)"
    echo "$timed_us" >>"$work/time.$name.$label"
    program_filter "$d" "$name" "$out"
    ref=$work/out.$name.reference
    if [ ! -f "$ref" ]; then
        cp "$out" "$ref"
    elif ! cmp -s "$out" "$ref"; then
        echo "$prog: $label prints something else than $(head -1 "$runtimes" | cut -d' ' -f1) for $name:" >&2
        diff "$ref" "$out" | head -5 >&2
        exit 1
    fi
}
run_round() {
    while read -r d name; do
        while read -r label cmd; do run_one "$label" "$cmd" "$d" "$name"; done <"$runtimes"
    done <"$programs"
}
rm -f "$work"/time.* "$work"/out.*
interleave "$runs" run_round

# ---- the table -------------------------------------------------------------
labels=$(cut -d' ' -f1 "$runtimes" | tr '\n' ' ')
table=$work/table # name median... (microseconds), in label order
: >"$table"
while read -r d name; do
    line=$name
    for l in $labels; do line="$line $(median "$work/time.$name.$l")"; done
    echo "$line" >>"$table"
done <"$programs"
echo
echo "Wall time, median of $runs interleaved runs (seconds); x: the ratio to wasm3's time"
awk -v labels="$labels" '
    BEGIN {
        n = split(labels, L, " ")
        for (i = 1; i <= n; i++) if (L[i] == "wasm3") ref = i
        printf "%-14s", "program"
        for (i = 1; i <= n; i++) printf " %13s", L[i]
        printf "\n"
    }
    {
        printf "%-14s", $1
        for (i = 1; i <= n; i++) {
            t = $(i + 1) / 1e6
            if (ref) { x = $(i + 1) / $(ref + 1); lg[i] += log(x); if (x > worst[i]) worst[i] = x
                       printf " %7.3f %4.2fx", t, x }
            else printf " %13.3f", t
        }
        printf "\n"; rows++
    }
    END {
        if (!ref || !rows) exit
        printf "%-14s", "geomean x"
        for (i = 1; i <= n; i++) printf " %13.3f", exp(lg[i] / rows)
        printf "\n%-14s", "worst x"
        for (i = 1; i <= n; i++) printf " %13.3f", worst[i]
        printf "\n"
    }' "$table"
[ -z "$skipped" ] || echo "skipped:$skipped"
