#!/bin/sh
# compare_collectors.sh - two builds of the collector side by side: each C
# benchmark built for wasm32-wasi (NEW_BUILD/bench/*.wasm) on the plain VM
# of NEW_BUILD, under OLD_BUILD's pulley-collect and under NEW_BUILD's, one
# after the other in every round, a fresh database for every run; prints
# the median wall time of the plain VM, each collector's ratio to it and
# new / old (each the median over the rounds of the ratio within a round),
# with their geometric means.
#
#   sh bench/compare_collectors.sh OLD_BUILD NEW_BUILD [ROUNDS]
#
# (default 5 rounds).  E.g. build the previous commit in a worktree, then
# compare it with the working tree's build.  Wall times on a shared machine
# are noisy (+-5-10% per program): trust the geometric mean of new / old
# more than any single row.  A measurement, not a test: it asserts nothing.
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
case ${1:-} in -h | --help) usage_text; exit 0 ;; esac
case $# in 2 | 3) ;; *) usage_error "usage: sh bench/compare_collectors.sh OLD_BUILD NEW_BUILD [ROUNDS]" ;; esac
old=$1 new=$2 rounds=${3:-5}
check_positive ROUNDS "$rounds"
for b in "$old" "$new"; do
  [ -x "$b/bin/pulley-collect" ] || usage_error "no $b/bin/pulley-collect"
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# run CONFIGURATION WASM: one run, plain or under a collector.
run() {
  rm -f "$tmp"/run.db*
  case $1 in
    plain) "$new/bin/pulley-run" "$2" ;;
    old) "$old/bin/pulley-collect" -o "$tmp/run.db" -- "$2" ;;
    new) "$new/bin/pulley-collect" -o "$tmp/run.db" -- "$2" ;;
  esac
}
round() {
  for wasm in "$new"/bench/*.wasm; do
    name=$(basename "$wasm" .wasm)
    [ "$name" = wasm_probe ] && continue # the toolchain probe: does nothing
    for cfg in plain old new; do
      timed run "$cfg" "$wasm" >/dev/null 2>>"$tmp/stderr" || {
        echo "$prog: $cfg run of $name failed:" >&2
        tail -3 "$tmp/stderr" >&2
        exit 1
      }
      echo "$name $cfg $1 $timed_us" >>"$tmp/times"
    done
  done
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
interleave "$rounds" round
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
awk "$stats_awk"'
  { t[$1, $2, $3] = $4; if (!($1 in seen)) { seen[$1] = 1; order[++np] = $1 } ; if ($3 > k) k = $3 }
  function ratio(p, m, base,   i, a) {
    for (i = 1; i <= k; i++) a[i] = t[p, m, i] / t[p, base, i]
    return median(a, k)
  }
  END {
    printf "%-10s %9s %7s %7s %8s\n", "program", "plain s", "old", "new", "new/old"
    for (q = 1; q <= np; q++) {
      p = order[q]
      for (i = 1; i <= k; i++) a[i] = t[p, "plain", i]
      o = ratio(p, "old", "plain"); n = ratio(p, "new", "plain"); x = ratio(p, "new", "old")
      printf "%-10s %9.3f %7.3f %7.3f %8.3f\n", p, median(a, k) / 1e6, o, n, x
      go += log(o); gn += log(n); gx += log(x)
    }
    printf "geometric mean: old %.3f, new %.3f, new/old %.3f (%d rounds)\n", exp(go / np),
      exp(gn / np), exp(gx / np), k
  }' "$tmp/times"
