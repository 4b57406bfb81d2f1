#!/bin/sh
# measure_overhead.sh - what the CPython adapter costs: each workload of
# this directory (listed in workloads) run under plain python3 and under
# `python3 -m pulleyprof` sampling at 10 kHz by reading frames (the
# default), sampling through opcode events (--trace), and counting every
# instruction (--exact), the four interleaved, N rounds; prints the median
# wall time of each and its ratio to plain python3, and the geometric
# means.  A benchmark, not a test.
#
#   sh bench/cpython/measure_overhead.sh [-B BUILD] [-n ROUNDS]
#
# Environment: PYTHON (default python3; CPython 3.11); what it starts
# (sys.executable) is timed, without any wrapper script in front of it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../../build rounds=5
while getopts B:n:h opt; do
    case $opt in
        B) build=$OPTARG ;;
        n) rounds=$OPTARG ;;
        h) sed -n '2,13p' "$0"; exit 0 ;;
        *) exit 2 ;;
    esac
done
# The interpreter itself, not a wrapper in front of it (a pyenv shim costs
# a few hundred milliseconds per start, which would hide the adapter's cost).
py=$("${PYTHON:-python3}" -c 'import sys; print(sys.executable)') ||
    { echo "measure_overhead: cannot run ${PYTHON:-python3}" >&2; exit 1; }
adapter=$(cd "$build/adapters/cpython" && pwd) ||
    { echo "measure_overhead: no CPython adapter in $build" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

now() { date +%s%N; }
for r in $(seq "$rounds"); do
    grep -v -e '^#' -e '^$' "$here/workloads" | while read -r w script args; do
        for mode in plain frames trace exact; do
            rm -f "$work/p.db"
            case $mode in
                plain) set -- "$py" ;;
                frames) set -- env PYTHONPATH="$adapter" "$py" -m pulleyprof -o "$work/p.db" ;;
                *) set -- env PYTHONPATH="$adapter" "$py" -m pulleyprof "--$mode" -o "$work/p.db" ;;
            esac
            set -- "$@" "$here/$script" $args
            t0=$(now)
            "$@" </dev/null >/dev/null 2>"$work/err" ||
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
modes = ["frames", "trace", "exact"]
print("%-12s %8s %8s %8s %8s %8s %8s %8s" % ("workload", "plain s", *(m + " s" for m in modes),
                                              *modes))
logs = {m: [] for m in modes}
for w, m in t.items():
    med = {k: statistics.median(v) for k, v in m.items()}
    r = {k: med[k] / med["plain"] for k in modes}
    for k in modes:
        logs[k].append(math.log(r[k]))
    print("%-12s %8.3f %8.3f %8.3f %8.3f %7.2fx %7.2fx %7.2fx" % (
        w, med["plain"], *(med[k] for k in modes), *(r[k] for k in modes)))
print("%-12s %35s %7.2fx %7.2fx %7.2fx" % ("geometric mean", "",
      *(math.exp(sum(v) / len(v)) for v in logs.values())))
PY
