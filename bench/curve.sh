#!/bin/sh
# curve.sh - the held-out curve: what automatically chosen macro ops save
# on programs they were not chosen from, from K = 8 to 512 ops.
#
#   sh bench/curve.sh [-k "8 16 32 64 128 256 512"] [-n RUNS] [-b BUILD_DIR]
#                     [-w WORK_DIR] [-c COSTS.tsv] [-d DIR] [-p "PROGRAM ..."]
#                     [-o PREFIX]
#
# Runs bench/closed_loop.sh (leave-one-out over the benchmark suite, and
# with -d the programs of DIR chosen on the whole suite) for every K, then
# prints per K and fold design, as geometric means over the held-out
# programs: the dispatches removed (predicted; the measured equal them,
# closed_loop.sh checks it), the time saved as predicted from the build's
# costs and as measured on one binary (1 - ops x, the macro VM fused
# against itself unfused) with a 95% interval over the programs (Student's
# t on the logarithms), the time saved per dispatch removed, and the
# interpreter's code bytes (the .text of the macro VM's pulley-run, median
# over its folds).  PREFIX.csv gets the same rows and PREFIX.png a plot of
# them (python3 with matplotlib); default PREFIX: WORK_DIR/curve.
# Options -n -b -w -c -d -p are closed_loop.sh's.
set -eu
prog=curve.sh
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
ks="8 16 32 64 128 256 512" runs=3 build=$here/../build work="" costs="" dir="" prefix="" programs=""
while getopts k:n:b:w:c:d:p:o:h opt; do
    case $opt in
    k) ks=$OPTARG ;;
    n) runs=$OPTARG ;;
    b) build=$OPTARG ;;
    w) work=$OPTARG ;;
    c) costs=$OPTARG ;;
    d) dir=$OPTARG ;;
    p) programs=$OPTARG ;;
    o) prefix=$OPTARG ;;
    h) usage_text; exit 0 ;;
    *) usage_error "unknown option" ;;
    esac
done
[ -n "$work" ] || work=$(mktemp -d /tmp/curve.XXXXXX)
mkdir -p "$work"
work=$(cd "$work" && pwd)
[ -n "$prefix" ] || prefix=$work/curve
# shellcheck disable=SC2086 # optional words
sh "$here/closed_loop.sh" -k "$ks" -n "$runs" -b "$build" -w "$work" -s "" \
    ${costs:+-c "$costs"} ${dir:+-d "$dir"} ${programs:+-p "$programs"} >"$work/closed_loop.txt"

text_bytes() { size -A "$1" | awk '$1 == ".text" { print $2 }'; }
echo "K,design,programs,dispatches_pct,time_pred_pct,time_meas_pct,time_meas_lo,time_meas_hi,time_per_dispatch,code_bytes" >"$prefix.csv"
for k in $ks; do
    for design in loo ext; do
        rows=$work/rows-k$k-$design.txt
        [ -s "$rows" ] || continue
        # shellcheck disable=SC2119 # median reads stdin
        bytes=$(for vm in "$work/vms/k$k-$design"*; do text_bytes "$vm/bin/pulley-run"; done | median)
        # rows: program pred% base_disp macro_disp base_B macro_B time% base macro
        #       time_x lo hi unfused_x lo hi ops_x lo hi
        awk -v k="$k" -v d="$design" -v bytes="$bytes" "$stats_awk"'
            { n++; ld += log($4 / $3); if ($7 != "-") lp += log(1 - $7 / 100); else untimed = 1
              o[n] = $16 }
            END {
                ops = log_interval(o, n) # the ops x: geometric mean, ci_lo, ci_hi
                disp = 100 * (1 - exp(ld / n)); meas = 100 * (1 - ops)
                pred = untimed ? "" : sprintf("%.2f", 100 * (1 - exp(lp / n)))
                per = disp > 0 ? meas / disp : 0
                printf "%s,%s,%d,%.2f,%s,%.2f,%.2f,%.2f,%.3f,%s\n", k, d, n, disp, pred, meas,
                       100 * (1 - ci_hi), 100 * (1 - ci_lo), per, bytes
            }' "$rows" >>"$prefix.csv"
    done
done
awk -F, 'NR == 1 { printf "%5s %-6s %8s %12s %11s %11s %15s %10s %11s\n", "K", "folds", "programs",
                          "dispatches%", "time pred%", "time meas%", "meas 95%", "t/disp", "code bytes"; next }
         { pred = $5 == "" ? "-" : $5
           printf "%5s %-6s %8s %12s %11s %11s %17s %10s %11s\n", $1, $2, $3, $4, pred, $6,
                  "[" $7 ", " $8 "]", $9, $10 }' "$prefix.csv"
# The first Python with matplotlib (Debian's python3-matplotlib is for
# /usr/bin/python3, which another python3 on the PATH may hide).
plotted=""
for py in python3 /usr/bin/python3; do
    if "$py" -c 'import matplotlib' 2>/dev/null; then
        "$py" "$here/plot_curve.py" "$prefix.csv" "$prefix.png" && echo "plot: $prefix.png" && plotted=1
        break
    fi
done
[ -n "$plotted" ] || echo "$prog: no python3 with matplotlib: no plot" >&2
echo "closed_loop.sh's tables: $work/closed_loop.txt"
