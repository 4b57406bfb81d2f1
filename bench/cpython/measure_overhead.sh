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
prog=measure_overhead
# shellcheck source=bench/lib.sh
. "$here/../lib.sh"
build=$here/../../build rounds=5
while getopts B:n:h opt; do
    case $opt in
        B) build=$OPTARG ;;
        n) rounds=$OPTARG ;;
        h) usage_text; exit 0 ;;
        *) usage_text >&2; exit 2 ;;
    esac
done
check_positive -n "$rounds"
# The interpreter itself, not a wrapper in front of it (a pyenv shim costs
# a few hundred milliseconds per start, which would hide the adapter's cost).
py=$("${PYTHON:-python3}" -c 'import sys; print(sys.executable)') ||
    die "cannot run ${PYTHON:-python3}"
adapter=$(cd "$build/adapters/cpython" 2>/dev/null && pwd) || die "no CPython adapter in $build"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

round() {
    grep -v -e '^#' -e '^$' "$here/workloads" | while read -r w script args; do
        for mode in plain frames trace exact; do
            rm -f "$work/p.db"
            case $mode in
                plain) set -- "$py" ;;
                frames) set -- env PYTHONPATH="$adapter" "$py" -m pulleyprof -o "$work/p.db" ;;
                *) set -- env PYTHONPATH="$adapter" "$py" -m pulleyprof "--$mode" -o "$work/p.db" ;;
            esac
            # shellcheck disable=SC2086 # the arguments are words
            set -- "$@" "$here/$script" $args
            timed "$@" </dev/null >/dev/null 2>"$work/err" || die "$mode $w failed: $(cat "$work/err")"
            echo "$w $mode $timed_us" >> "$work/times"
        done
    done
}
interleave "$rounds" round
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
