#!/bin/sh
# count_overhead.sh - the counting build's (PULLEY_COUNT) slowdown against
# the plain build, on the dispatch.sh workloads: builds pulley-run both ways
# for each dispatch mode, runs every workload N times per build
# (interleaved), and prints the median wall times and their ratio.
#
#   sh bench/count_overhead.sh [RUNS] [MODES]   (default 5; "goto:gcc tail:clang")
#
# Builds go to $BUILD_PREFIX-MODE-{plain,count} (default build-countbench).
#
# This is a benchmark, not a test: it asserts nothing.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-5}
modes=${2:-"goto:gcc tail:clang"}
workloads="fib.pasm fib 34
loops.pasm loops 7000
memory.pasm sieve 10000000
float.pasm leibniz 30000000"

for m in $modes; do
  mode=${m%%:*} cc=${m#*:}
  for v in plain count; do
    echo "building $mode $v with $cc..." >&2
    flag=OFF; [ $v = count ] && flag=ON
    dir=${BUILD_PREFIX:-$top/build-countbench}-$mode-$v
    CC=$cc cmake -S "$top" -B "$dir" -DCMAKE_BUILD_TYPE=Release \
      -DPULLEY_DISPATCH="$mode" -DPULLEY_COUNT=$flag >/dev/null
    cmake --build "$dir" --target pulley-run -j "$(nproc)" >/dev/null
  done
done

csv=$(mktemp)
now_ns() { date +%s%N; }
i=0
while [ "$i" -lt "$runs" ]; do
  i=$((i + 1))
  echo "$workloads" | while read -r prog fn args; do
    for m in $modes; do
      for v in plain count; do
        mode=${m%%:*}
        t0=$(now_ns)
        "${BUILD_PREFIX:-$top/build-countbench}-$mode-$v/interp/pulley-run" --invoke "$fn" \
          "$top/tests/programs/$prog" $args >/dev/null
        t1=$(now_ns)
        echo "$mode-$v,$prog $fn $args,$(echo "$t0 $t1" | awk '{printf "%.4f", ($2-$1)/1e9}')" >>"$csv"
      done
    done
  done
done

awk -F, -v modes="$modes" '
  { k = $2 SUBSEP $1; t[k, ++n[k]] = $3; progs[$2] = 1 }
  function median(k,   c, i, j, tmp, a) {
    c = n[k]
    for (i = 1; i <= c; i++) a[i] = t[k, i]
    for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (a[j] < a[i]) { tmp = a[i]; a[i] = a[j]; a[j] = tmp }
    return c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
  }
  END {
    nm = split(modes, ms, " ")
    for (p in progs)
      for (o = 1; o <= nm; o++) {
        mode = ms[o]; sub(/:.*/, "", mode)
        a = median(p SUBSEP mode "-plain"); b = median(p SUBSEP mode "-count")
        printf "%-28s %-5s plain %7.3fs  count %7.3fs  %5.2fx\n", p, mode, a, b, b / a
        lg[mode] += log(b / a); cnt[mode]++
      }
    for (m in lg) printf "geometric mean slowdown %-5s %5.2fx\n", m, exp(lg[m] / cnt[m])
  }' "$csv"
rm -f "$csv"
