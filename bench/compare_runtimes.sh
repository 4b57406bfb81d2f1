#!/bin/sh
# compare_runtimes.sh - this VM against the reference interpreters, side by
# side: wall-time medians of wasm32-wasi programs under each build of this
# VM (each dispatch mode, baseline and, with -m, macro builds) and, where
# their paths are given, wasm3 and WAMR's fast interpreter (iwasm), runs
# interleaved, with ratios to wasm3 and their geometric means; or, with -c
# or -C, machine instructions counted by cachegrind instead of time.
#
#   sh bench/compare_runtimes.sh [-n RUNS] [-c | -C] [-S [-t]] [-d DIR]... [-m SET.macros]
#                                [-3 WASM3] [-w IWASM] [-D "goto switch tail"]
#                                [-W WORK_DIR]
#
# Programs: every DIR/NAME.wasm (default: build/bench, the suite written
# here; give -d for each directory, third-party programs included), with
# its arguments in NAME.args and the output lines that vary in NAME.ignore
# (bench/program_dir.sh).
# Every runtime's output (stdout and stderr) of a program must be the same
# as the first runtime's, or the script stops saying which; a build of this
# VM that fails stops it too, while wasm3 or WAMR failing on a program (wasm3
# rejects some modules) leaves that program out of its column and says so.
# This VM is built (pulley-run only) into WORK_DIR per dispatch mode (gcc
# for switch and goto, clang for tail), and per mode again with the macro
# ops of -m.  A runtime whose path is not given, or a mode a compiler lacks,
# is skipped and the table says so.  RUNS defaults to 5.
#
# -c runs each runtime on each program once under valgrind --tool=cachegrind
# with its cache simulation, a fixed machine (I1 and D1 32 KiB 8-way, LL
# 8 MiB 16-way, 64-byte lines, whatever the host has), and prints instead
# of times the machine instructions executed (Ir), the I1, D1 and LL
# data misses and the conditional and indirect branches mispredicted (its
# simple branch predictor), each with its ratio to wasm3 and geometric
# means: the same figures on every machine, whatever else runs on it.  -C
# counts the instructions only (no simulation, about 3.5x as fast).  Under
# valgrind a program takes its arguments from NAME.cg.args when there is
# one (a smaller run), else from NAME.args.  Each run's cachegrind file is
# kept as WORK_DIR/cg.NAME.RUNTIME, for cg_annotate (per function).
#
# -S counts start-up: each program that has a NAME.startup.args (arguments
# that make it do next to nothing: an empty script, no rows) runs with
# them under cachegrind as with -C (or -c when given); the others are
# left out and listed.  What a runtime does before and after the program's
# own work is then nearly all it does.  -S -t times those runs instead
# (wall-time medians of RUNS interleaved runs).
set -eu
prog=compare_runtimes.sh
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=bench/program_dir.sh
. "$here/program_dir.sh"
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
runs=5 dirs="" macros="" wasm3="" iwasm="" modes="goto switch tail" work="" cg="" startup=""
startup_time=""
while getopts n:cCStd:m:3:w:D:W:h opt; do
    case $opt in
    n) runs=$OPTARG ;;
    c) cg=yes ;;
    C) cg=no ;;
    S) startup=yes ;;
    t) startup_time=yes ;;
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

# Is LABEL a reference interpreter?  One that fails on a program (wasm3
# rejects some modules) is left out of that program's row, not fatal.
is_reference() { [ "$1" = wasm3 ] || [ "$1" = wamr ]; }

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
no_startup=""
for d in $dirs; do
    for w in "$d"/*.wasm; do
        [ -f "$w" ] || continue
        name=$(basename "$w" .wasm)
        if [ -n "$startup" ] && [ ! -f "$d/$name.startup.args" ]; then
            no_startup="$no_startup $name"
        else
            echo "$d $name" >>"$programs"
        fi
    done
done
[ -z "$no_startup" ] || echo "$prog: no NAME.startup.args, left out:$no_startup" >&2
[ -s "$programs" ] || die "no .wasm programs to run in$dirs"
[ -z "$startup_time" ] || [ -n "$startup" ] || die "-t times start-up: it needs -S"
[ -z "$startup_time" ] || [ -z "$cg" ] || die "-t times start-up: not with -c or -C"
if [ -n "$startup" ] && [ -z "$cg" ] && [ -z "$startup_time" ]; then cg=no; fi

# ---- with -c or -C: instructions and misses under cachegrind, then stop ----
if [ -n "$cg" ]; then
    need_commands valgrind
    program_args_variant=cg
    [ -z "$startup" ] || program_args_variant=startup
    cg_opts="--tool=cachegrind -q --cache-sim=$cg"
    [ "$cg" = no ] || cg_opts="$cg_opts --I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64 --branch-sim=yes"
    counts=$work/counts # name label Ir I1mr D1mr+D1mw DLmr+DLmw Bcm Bim
    : >"$counts"
    rm -f "$work"/out.* "$work"/cg.*
    while read -r d name; do
        while read -r label cmd; do
            echo "$prog: cachegrind: $label on $name" >&2
            out=$work/out.$name.$label cgf=$work/cg.$name.$label
            # shellcheck disable=SC2086 # cg_opts are words
            if ! program_run "$d" "$name" valgrind $cg_opts --log-file="$cgf.log" \
                --cachegrind-out-file="$cgf" "$cmd" >"$out" 2>&1 </dev/null; then
                is_reference "$label" || die "$label failed on $name under valgrind (see $out)"
                echo "$prog: $label fails on $name (see $out): left out of its column" >&2
                echo "$name $label - - - - - -" >>"$counts"
                continue
            fi
            program_filter "$d" "$name" "$out"
            ref=$work/out.$name.reference
            if [ ! -f "$ref" ]; then
                cp "$out" "$ref"
            elif ! cmp -s "$out" "$ref"; then
                echo "$prog: $label prints something else than $(head -1 "$runtimes" | cut -d' ' -f1) for $name:" >&2
                diff "$ref" "$out" | head -5 >&2
                exit 1
            fi
            awk -v name="$name" -v label="$label" -v f="$cgf" '
                /^events:/ { for (i = 2; i <= NF; i++) col[$i] = i }
                /^summary:/ {
                    if (!("Ir" in col)) exit 1
                    for (i = 2; i <= NF; i++) v[i] = $i
                    printf "%s %s %s %s %s %s %s %s\n", name, label, v[col["Ir"]] + 0,
                        ("I1mr" in col) ? v[col["I1mr"]] + 0 : "-",
                        ("D1mr" in col) ? v[col["D1mr"]] + v[col["D1mw"]] : "-",
                        ("DLmr" in col) ? v[col["DLmr"]] + v[col["DLmw"]] : "-",
                        ("Bcm" in col) ? v[col["Bcm"]] + 0 : "-",
                        ("Bim" in col) ? v[col["Bim"]] + 0 : "-"
                    found = 1
                }
                END { if (!found) { printf "%s: no summary line\n", f > "/dev/stderr"; exit 1 } }
            ' "$cgf" >>"$counts" || die "cannot read the counts of $label on $name in $cgf"
        done <"$runtimes"
    done <"$programs"
    labels=$(cut -d' ' -f1 "$runtimes" | tr '\n' ' ')
    # cg_table COLUMN SCALE TITLE: one metric (column 3 = Ir, 4 = I1 misses,
    # 5 = D1 misses, 6 = LL data misses, 7 and 8 = conditional and indirect
    # branches mispredicted) per program and runtime
    cg_table() {
        echo
        echo "$3; x: the ratio to wasm3's"
        awk -v labels="$labels" -v c="$1" -v scale="$2" '
            BEGIN {
                n = split(labels, L, " ")
                for (i = 1; i <= n; i++) if (L[i] == "wasm3") ref = i
                printf "%-14s", "program"
                for (i = 1; i <= n; i++) printf " %14s", L[i]
                printf "\n"
            }
            !($1 in seen) { seen[$1] = 1; order[++rows] = $1 }
            { v[$1, $2] = $c }
            END {
                for (r = 1; r <= rows; r++) {
                    p = order[r]
                    printf "%-14s", p
                    for (i = 1; i <= n; i++) {
                        x = v[p, L[i]]
                        if (ref && x > 0 && v[p, "wasm3"] > 0) {
                            q = x / v[p, "wasm3"]; lg[i] += log(q); m[i]++
                            if (q > worst[i]) worst[i] = q
                            printf " %8.3f %4.2fx", x / scale, q
                        } else if (x == "-") printf " %14s", "-"
                        else printf " %14.3f", x / scale
                    }
                    printf "\n"
                }
                if (!ref) exit
                printf "%-14s", "geomean x"
                for (i = 1; i <= n; i++) if (m[i]) printf " %14.3f", exp(lg[i] / m[i]); else printf " %14s", "-"
                printf "\n%-14s", "worst x"
                for (i = 1; i <= n; i++) if (m[i]) printf " %14.3f", worst[i]; else printf " %14s", "-"
                printf "\n"
            }' "$counts"
    }
    what="Machine instructions executed (Ir, billions), cachegrind"
    [ -z "$startup" ] || what="Start-up (NAME.startup.args): $what"
    cg_table 3 1e9 "$what"
    if [ "$cg" = yes ]; then
        cg_table 4 1e6 "I1 misses (millions; 32 KiB 8-way, 64-byte lines)"
        cg_table 5 1e6 "D1 misses, reads and writes (millions; 32 KiB 8-way)"
        cg_table 6 1e6 "LL data misses (millions; 8 MiB 16-way)"
        cg_table 7 1e6 "Conditional branches mispredicted (millions; cachegrind's simulated predictor)"
        cg_table 8 1e6 "Indirect branches mispredicted (millions; dispatch, calls through tables, returns)"
    fi
    [ -z "$skipped" ] || echo "skipped:$skipped"
    echo "per function: cg_annotate $work/cg.NAME.RUNTIME" >&2
    exit 0
fi

# run_one LABEL COMMAND DIR NAME: time one run, check its output
run_one() {
    label=$1 cmd=$2 d=$3 name=$4
    out=$work/out.$name.$label
    [ ! -f "$work/fails.$name.$label" ] || return 0
    if ! timed program_run "$d" "$name" "$cmd" >"$out" 2>&1 </dev/null; then
        is_reference "$label" || die "$label failed on $name (see $out)"
        echo "$prog: $label fails on $name (see $out): left out of its column" >&2
        : >"$work/fails.$name.$label"
        return 0
    fi
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
rm -f "$work"/time.* "$work"/out.* "$work"/fails.*
[ -z "$startup" ] || program_args_variant=startup
interleave "$runs" run_round

# ---- the table -------------------------------------------------------------
labels=$(cut -d' ' -f1 "$runtimes" | tr '\n' ' ')
table=$work/table # name median... (microseconds), in label order
: >"$table"
while read -r d name; do
    line=$name
    for l in $labels; do
        if [ -s "$work/time.$name.$l" ]; then line="$line $(median "$work/time.$name.$l")"
        else line="$line -"; fi
    done
    echo "$line" >>"$table"
done <"$programs"
echo
what="Wall time, median of $runs interleaved runs (seconds); x: the ratio to wasm3's time"
[ -z "$startup" ] || what="Start-up (NAME.startup.args): $what"
echo "$what"
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
            if ($(i + 1) == "-") { printf " %13s", "fails"; continue }
            t = $(i + 1) / 1e6
            if (ref && $(ref + 1) != "-") {
                x = $(i + 1) / $(ref + 1); lg[i] += log(x); m[i]++
                if (x > worst[i]) worst[i] = x
                printf " %7.3f %4.2fx", t, x
            } else printf " %13.3f", t
        }
        printf "\n"
    }
    END {
        if (!ref) exit
        printf "%-14s", "geomean x"
        for (i = 1; i <= n; i++) if (m[i]) printf " %13.3f", exp(lg[i] / m[i]); else printf " %13s", "-"
        printf "\n%-14s", "worst x"
        for (i = 1; i <= n; i++) if (m[i]) printf " %13.3f", worst[i]; else printf " %13s", "-"
        printf "\n"
    }' "$table"
[ -z "$skipped" ] || echo "skipped:$skipped"
