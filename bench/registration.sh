#!/bin/sh
# registration.sh - what registering functions and an empty run cost an
# interpreter that links libpulleyprof: builds bench/registration/driver.c
# against the library of BUILD_DIR, runs it in whole processes (each on a
# new database, the median of RUNS runs) and prints a table:
#
#   functions  seconds  per function (us)  CPU seconds  database bytes per function
#
# for 0, 1,000, 20,000 and 100,000 functions registered (each a 12-byte
# function of 7 instructions, its own code object with its own bytes, all
# registered before the program's slot: written by the catalog thread,
# which close waits for), the same number registered and unregistered one
# after another at one address (garbage-collected code: "replaced"), and
# an empty run (open, one module and one function, close; on a new
# database, on one holding one such run, and on the one the largest count
# made) against a process that does nothing.  Per-function
# figures are over the first count's run (0 by default).
#
#   sh bench/registration.sh [-b BUILD_DIR] [-i INCLUDE_DIR] [-n RUNS] [COUNT...]
#
#   -b BUILD_DIR  where libpulleyprof was built (default build)
#   -i INCLUDE_DIR  the <pulley/profile.h> it was built from, for a build of
#                 an older tree (default: this tree's include/); one without
#                 pulleyprof_unregister_function gets no "replaced" rows
#   -n RUNS       runs per row (default 5)
#   COUNT...      the function counts (default 0 1000 20000 100000)
#
# CPU seconds are the driver's own (getrusage: every thread, user +
# system), which a machine busy with other work disturbs less than wall
# time.  The driver prints its own split (open, registration, close) on
# stderr; the last run's goes to bench/results/registration.log.  A measurement,
# not a test: it asserts nothing; the machine should be otherwise idle.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
prog=registration
# shellcheck source=bench/lib.sh
. "$top/bench/lib.sh"
build=$top/build
include=$top/include
runs=5
while getopts b:i:n:h opt; do
  case $opt in
    b) build=$OPTARG ;;
    i) include=$OPTARG ;;
    n) runs=$OPTARG ;;
    h) usage_text; exit 0 ;;
    *) usage_text >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
check_positive RUNS "$runs"
[ $# -eq 0 ] && set -- 0 1000 20000 100000
for n in "$@"; do case $n in '' | *[!0-9]*) usage_error "not a function count: $n" ;; esac; done
lib=$build/collect
[ -f "$lib/libpulleyprof.so" ] || die "$lib/libpulleyprof.so is missing (build the toolkit first)"
need_commands "${CC:-cc}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
driver=$tmp/driver
modes="kept replaced"
old=
grep -q pulleyprof_unregister_function "$include/pulley/profile.h" ||
  { old=-DREGISTRATION_NO_UNREGISTER modes=kept; }
# shellcheck disable=SC2086 # old is one flag or none
"${CC:-cc}" -O2 -std=c11 -Wall -Wextra $old -I"$include" -o "$driver" \
  "$top/bench/registration/driver.c" -L"$lib" -lpulleyprof -Wl,-rpath,"$lib" ||
  die "cannot build the driver"
mkdir -p "$top/bench/results"
log=$top/bench/results/registration.log
: >"$log"

# measure NAME ARGS...: the median wall time (us) of RUNS runs of the
# driver with ARGS, each on a new database ($tmp/p.db) unless NAME is
# "existing"; sets us, cpu_us (the median CPU time) and bytes (the
# database's size after the last run).
measure() {
  m_name=$1
  shift
  : >"$tmp/times"
  : >"$tmp/cpus"
  i=0
  while [ "$i" -lt "$runs" ]; do
    [ "$m_name" = existing ] || rm -f "$tmp/p.db" "$tmp/p.db-wal" "$tmp/p.db-shm"
    timed "$driver" "$@" 2>"$tmp/err" || die "driver $*: $(cat "$tmp/err")"
    echo "$timed_us" >>"$tmp/times"
    sed -n 's/.*cpu \([0-9.]*\) s.*/\1/p' "$tmp/err" | awk '{ printf "%.0f\n", $1 * 1e6 }' >>"$tmp/cpus"
    i=$((i + 1))
  done
  us=$(median "$tmp/times")
  cpu_us=$(median "$tmp/cpus")
  bytes=$(if [ -f "$tmp/p.db" ]; then wc -c <"$tmp/p.db"; else echo 0; fi)
  echo "$m_name $*: $(cat "$tmp/err")" >>"$log"
}

echo "$prog: $runs runs per row, median wall time of whole processes" >&2
measure nothing nothing
nothing_us=$us nothing_cpu=$cpu_us
measure empty "$tmp/p.db" 1
empty_us=$us empty_cpu=$cpu_us
rm -f "$tmp/p.db"
"$driver" "$tmp/p.db" 1 2>/dev/null
measure existing "$tmp/p.db" 1
existing_us=$us existing_cpu=$cpu_us

printf '%-28s %10s %20s %12s %24s\n' "functions registered" "seconds" "per function (us)" \
  "CPU seconds" "database bytes/function"
for mode in $modes; do
  base_us= base_bytes=
  for n in "$@"; do
    if [ "$mode" = kept ]; then measure new "$tmp/p.db" "$n"; else measure new "$tmp/p.db" "$n" replace; fi
    [ "$mode" != kept ] || cp "$tmp/p.db" "$tmp/big.db" # the last count's
    [ -n "$base_us" ] || { base_us=$us base_bytes=$bytes; }
    awk -v n="$n" -v m="$mode" -v us="$us" -v b0="$base_us" -v by="$bytes" -v by0="$base_bytes" \
        -v cpu="$cpu_us" 'BEGIN {
      label = n (m == "replaced" ? " (replaced)" : "")
      if (n > 0) printf "%-28s %10.3f %20.2f %12.3f %24.0f\n", label, us / 1e6, (us - b0) / n, cpu / 1e6,
                        (by - by0) / n
      else printf "%-28s %10.3f %20s %12.3f %24s\n", label, us / 1e6, "-", cpu / 1e6, "-"
    }'
  done
done
big_mb=$(($(wc -c <"$tmp/big.db") / 1000000))
measure existing "$tmp/big.db" 1
big_us=$us big_cpu=$cpu_us
row() { # LABEL US CPU_US
  awk -v l="$1" -v us="$2" -v cpu="$3" -v z="$nothing_us" -v zc="$nothing_cpu" 'BEGIN {
    printf "%-36s %10.2f %16.2f %12.2f %16.2f\n", l, us / 1e3, (us - z) / 1e3, cpu / 1e3, (cpu - zc) / 1e3
  }'
}
printf '\n%-36s %10s %16s %12s %16s\n' "run" "ms" "beyond nothing" "CPU ms" "CPU beyond"
row "a process that does nothing" "$nothing_us" "$nothing_cpu"
row "empty run, new database" "$empty_us" "$empty_cpu"
row "empty run, database of one run" "$existing_us" "$existing_cpu"
row "empty run, database of $big_mb MB" "$big_us" "$big_cpu"
