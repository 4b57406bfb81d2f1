#!/bin/sh
# dispatch.sh - compare the interpreter's dispatch modes on the .pasm
# programs: builds the VM once per mode, runs every workload N times per
# mode (interleaved, so machine noise hits all modes alike), and prints the
# median wall time of each and its ratio to the switch build.
#
#   sh bench/dispatch.sh [RUNS]          (default 5 runs; CSV in bench/results/)
#
# This is a benchmark, not a test: it asserts nothing.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-5}
results=$top/bench/results
mkdir -p "$results"
csv=$results/dispatch.csv

# mode  compiler
modes="switch:gcc goto:gcc goto-clang:clang tail:clang"
# program  function  arguments
workloads="fib.pasm fib 34
loops.pasm loops 7000
memory.pasm sieve 10000000
float.pasm leibniz 30000000"

for m in $modes; do
  mode=${m%%:*} cc=${m#*:}
  echo "building $mode with $cc..." >&2
  CC=$cc sh "$top/scripts/build.sh" "$top/build-bench-$mode" \
    -DPULLEY_DISPATCH="${mode%-clang}" >/dev/null
done

now_ns() { date +%s%N; }
echo "mode,program,function,args,run,seconds" >"$csv"
i=0
while [ "$i" -lt "$runs" ]; do
  i=$((i + 1))
  echo "$workloads" | while read -r prog fn args; do
    for m in $modes; do
      mode=${m%%:*}
      t0=$(now_ns)
      "$top/build-bench-$mode/interp/pulley-run" --invoke "$fn" \
        "$top/tests/programs/$prog" $args >/dev/null
      t1=$(now_ns)
      echo "$mode,$prog,$fn,$args,$i,$(echo "$t0 $t1" | awk '{printf "%.4f", ($2-$1)/1e9}')" >>"$csv"
    done
  done
done

# Median per (mode, program), then a table with the ratio to switch.
awk -F, -v runs="$runs" '
  NR > 1 { key = $2 " " $3 "(" $4 ")"; t[key, $1, ++n[key, $1]] = $6; progs[key] = 1; modes[$1] = 1 }
  function median(key, mode,   k, i, j, tmp, a) {
    k = n[key, mode]
    for (i = 1; i <= k; i++) a[i] = t[key, mode, i]
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { tmp = a[i]; a[i] = a[j]; a[j] = tmp }
    return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  END {
    split("switch goto goto-clang tail", order, " ")
    printf "%-28s", "workload (median of " runs ")"
    for (o = 1; o <= 4; o++) printf " %14s", order[o]
    printf "\n"
    for (p in progs) {
      printf "%-28s", p
      base = median(p, "switch")
      for (o = 1; o <= 4; o++) {
        m = median(p, order[o])
        printf " %7.3fs %5.2fx", m, base / m
      }
      printf "\n"
    }
    printf "(ratio = switch time / mode time: above 1 is faster than switch)\n"
  }' "$csv"
echo "raw times: $csv" >&2
