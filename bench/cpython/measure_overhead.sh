#!/bin/sh
# measure_overhead.sh - what the CPython adapter costs: each workload of
# this directory run under plain python3, under `python3 -m pulleyprof`
# sampling at 10 kHz, and counting every instruction (--exact), the three
# interleaved, N rounds; prints the median wall time of each and its ratio
# to plain python3, and the geometric means.  A benchmark, not a test.
#
#   sh bench/cpython/measure_overhead.sh [-B BUILD] [-n ROUNDS]
#
# Environment: PYTHON (default python3; CPython 3.11).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../../build rounds=5
while getopts B:n:h opt; do
    case $opt in
        B) build=$OPTARG ;;
        n) rounds=$OPTARG ;;
        h) sed -n '2,10p' "$0"; exit 0 ;;
        *) exit 2 ;;
    esac
done
py=${PYTHON:-python3}
adapter=$(cd "$build/adapters/cpython" && pwd) ||
    { echo "measure_overhead: no CPython adapter in $build" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

workloads="objects.py numeric.py strings.py parser.py recursion.py stdlib_modules.py:tomllib
stdlib_modules.py:difflib stdlib_modules.py:textwrap stdlib_modules.py:fractions
stdlib_modules.py:statistics"
now() { date +%s%N; }
for r in $(seq "$rounds"); do
    for w in $workloads; do
        script=${w%%:*} arg=
        [ "$script" = "$w" ] || arg=${w#*:}
        for mode in plain sampled exact; do
            rm -f "$work/p.db"
            case $mode in
                plain) set -- "$py" "$here/$script" ;;
                sampled) set -- env PYTHONPATH="$adapter" "$py" -m pulleyprof -o "$work/p.db" "$here/$script" ;;
                exact) set -- env PYTHONPATH="$adapter" "$py" -m pulleyprof --exact -o "$work/p.db" "$here/$script" ;;
            esac
            t0=$(now)
            "$@" $arg >/dev/null 2>"$work/err" ||
                { echo "measure_overhead: $mode $w failed: $(cat "$work/err")" >&2; exit 1; }
            echo "$w $mode $(( ($(now) - t0) / 1000 ))" >> "$work/times"
        done
    done
    echo "measure_overhead: round $r of $rounds" >&2
done
"$py" - "$work/times" <<'PY'
import math, statistics, sys
t = {}
for line in open(sys.argv[1]):
    w, mode, us = line.split()
    t.setdefault(w, {}).setdefault(mode, []).append(int(us) / 1e6)
print("%-30s %9s %9s %9s %8s %8s" % ("workload", "plain s", "sampled s", "exact s", "sampled", "exact"))
logs = {"sampled": [], "exact": []}
for w, m in t.items():
    med = {k: statistics.median(v) for k, v in m.items()}
    r = {k: med[k] / med["plain"] for k in logs}
    for k in logs:
        logs[k].append(math.log(r[k]))
    print("%-30s %9.3f %9.3f %9.3f %7.2fx %7.2fx" % (w, med["plain"], med["sampled"], med["exact"],
                                                     r["sampled"], r["exact"]))
print("%-30s %29s %7.2fx %7.2fx" % ("geometric mean", "",
      *(math.exp(sum(v) / len(v)) for v in logs.values())))
PY
