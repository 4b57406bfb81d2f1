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
# shellcheck source=bench/lib.sh
. "$top/bench/lib.sh"
case ${1:-} in -h | --help) usage_text; exit 0 ;; esac
runs=${1:-5}
check_positive RUNS "$runs"
prefix=${BUILD_PREFIX:-$top/build-countbench}
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
    build_variant "$prefix-$mode-$v" pulley-run -DCMAKE_C_COMPILER="$cc" \
      -DPULLEY_DISPATCH="$mode" -DPULLEY_COUNT=$flag || die "building $mode $v failed"
  done
done

csv=$(mktemp)
round() {
  echo "$workloads" | while read -r program fn args; do
    for m in $modes; do
      for v in plain count; do
        mode=${m%%:*}
        # shellcheck disable=SC2086 # the arguments are words
        timed "$prefix-$mode-$v/bin/pulley-run" --invoke "$fn" \
          "$top/tests/programs/$program" $args >/dev/null || die "$mode $v failed on $program"
        echo "$mode-$v,$program $fn $args,$timed_us" >>"$csv"
      done
    done
  done
}
interleave "$runs" round

awk -F, -v modes="$modes" "$stats_awk"'
  { k = $2 SUBSEP $1; t[k, ++n[k]] = $3 / 1e6; progs[$2] = 1 }
  function med(k,   i, a) {
    for (i = 1; i <= n[k]; i++) a[i] = t[k, i]
    return median(a, n[k])
  }
  END {
    nm = split(modes, ms, " ")
    for (p in progs)
      for (o = 1; o <= nm; o++) {
        mode = ms[o]; sub(/:.*/, "", mode)
        a = med(p SUBSEP mode "-plain"); b = med(p SUBSEP mode "-count")
        printf "%-28s %-5s plain %7.3fs  count %7.3fs  %5.2fx\n", p, mode, a, b, b / a
        lg[mode] += log(b / a); cnt[mode]++
      }
    for (m in lg) printf "geometric mean slowdown %-5s %5.2fx\n", m, exp(lg[m] / cnt[m])
  }' "$csv"
rm -f "$csv"
