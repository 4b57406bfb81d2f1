#!/bin/sh
# measure_overhead.sh - the cost of profiling: each bench/dispatch.sh
# workload and each C benchmark built for wasm32-wasi (BUILD_DIR/bench/*.wasm)
# on the plain VM (pulley-run) and under pulley-collect (the profiling
# build, sampler at 10 kHz), interleaved, RUNS times; prints the median wall
# time of each, their ratio, and stored bytes per sample.
#
#   sh collect/measure_overhead.sh BUILD_DIR [RUNS]     (default 5 runs)
#
# A measurement, not a test: it asserts nothing.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$1
runs=${2:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
workloads="fib.pasm fib 34
loops.pasm loops 7000
memory.pasm sieve 10000000
float.pasm leibniz 30000000"
for wasm in "$build"/bench/*.wasm; do
  case $wasm in */wasm_probe.wasm) continue ;; esac # the build's toolchain probe
  [ -f "$wasm" ] && workloads="$workloads
$(basename "$wasm") _start -"
done

now_ns() { date +%s%N; }
i=0
while [ "$i" -lt "$runs" ]; do
  i=$((i + 1))
  echo "$workloads" | while read -r prog fn args; do
    case $prog in
      *.wasm) path=$build/bench/$prog invoke="" args="" ;;
      *) path=$top/tests/programs/$prog invoke="--invoke=$fn" ;;
    esac
    t0=$(now_ns)
    "$build/interp/pulley-run" $invoke "$path" $args >/dev/null
    t1=$(now_ns)
    "$build/collect/pulley-collect" -o "$tmp/p.db" --label "$prog" $invoke -- \
      "$path" $args >/dev/null 2>>"$tmp/summaries"
    t2=$(now_ns)
    echo "$prog plain $(( (t1 - t0) / 1000 ))" >>"$tmp/times"
    echo "$prog profiled $(( (t2 - t1) / 1000 ))" >>"$tmp/times"
  done
done
awk '
  { t[$1, $2, ++n[$1, $2]] = $3; progs[$1] = 1 }
  function median(p, m,   k, i, j, x, a) {
    k = n[p, m]
    for (i = 1; i <= k; i++) a[i] = t[p, m, i]
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }
    return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  END {
    printf "%-12s %12s %12s %8s\n", "program", "plain s", "profiled s", "ratio"
    g = 0; c = 0
    for (p in progs) {
      a = median(p, "plain") / 1e6; b = median(p, "profiled") / 1e6
      printf "%-12s %12.3f %12.3f %8.3f\n", p, a, b, b / a
      g += log(b / a); c++
    }
    printf "geometric mean ratio: %.3f\n", exp(g / c)
  }' "$tmp/times"
sqlite3 "$tmp/p.db" "SELECT 'bytes per sample: ' || round(1.0 * sum(bytes_stored) / sum(samples_written), 3)
  || ' (' || sum(samples_written) || ' samples, ' || sum(bytes_stored) || ' bytes); per program: '
  || group_concat(b, ', ') FROM (SELECT benchmark || ' ' || round(1.0 * sum(bytes_stored) / sum(samples_written), 3) AS b,
  sum(bytes_stored) AS bytes_stored, sum(samples_written) AS samples_written FROM runs GROUP BY benchmark)"
sqlite3 "$tmp/p.db" "SELECT 'dropped: ' || sum(samples_dropped) || ', ticks missed: ' || sum(ticks_missed) || ', achieved rate: ' || round(1e9 * sum(samples_taken) / sum(sampled_ns)) || ' Hz' FROM runs"
