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
# shellcheck source=bench/lib.sh
. "$top/bench/lib.sh"
case ${1:-} in -h | --help) usage_text; exit 0 ;; esac
runs=${1:-5}
check_positive RUNS "$runs"
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
  build_variant "$top/build-bench-$mode" pulley-run -DCMAKE_C_COMPILER="$cc" \
    -DPULLEY_DISPATCH="${mode%-clang}" || die "building $mode failed"
done

echo "mode,program,function,args,run,seconds" >"$csv"
round() {
  echo "$workloads" | while read -r program fn args; do
    for m in $modes; do
      mode=${m%%:*}
      # shellcheck disable=SC2086 # the arguments are words
      timed "$top/build-bench-$mode/bin/pulley-run" --invoke "$fn" \
        "$top/tests/programs/$program" $args >/dev/null || die "$mode failed on $program"
      echo "$mode,$program,$fn,$args,$1,$(awk -v us="$timed_us" 'BEGIN { printf "%.4f", us / 1e6 }')" >>"$csv"
    done
  done
}
interleave "$runs" round

# Median per (mode, program), then a table with the ratio to switch.
awk -F, -v runs="$runs" "$stats_awk"'
  NR > 1 { key = $2 " " $3 "(" $4 ")"; t[key, $1, ++n[key, $1]] = $6; progs[key] = 1; modes[$1] = 1 }
  function med(key, mode,   i, a) {
    for (i = 1; i <= n[key, mode]; i++) a[i] = t[key, mode, i]
    return median(a, n[key, mode])
  }
  END {
    split("switch goto goto-clang tail", order, " ")
    printf "%-28s", "workload (median of " runs ")"
    for (o = 1; o <= 4; o++) printf " %14s", order[o]
    printf "\n"
    for (p in progs) {
      printf "%-28s", p
      base = med(p, "switch")
      for (o = 1; o <= 4; o++) {
        m = med(p, order[o])
        printf " %7.3fs %5.2fx", m, base / m
      }
      printf "\n"
    }
    printf "(ratio = switch time / mode time: above 1 is faster than switch)\n"
  }' "$csv"
echo "raw times: $csv" >&2
