#!/bin/sh
# compare_collectors.sh - two builds of the collector side by side: each C
# benchmark built for wasm32-wasi (NEW_BUILD/bench/*.wasm) on the plain VM
# of NEW_BUILD, under OLD_BUILD's pulley-collect and under NEW_BUILD's, one
# after the other in every round, a fresh database for every run; prints
# the median wall time of the plain VM, each collector's ratio to it and
# new / old (each the median over the rounds of the ratio within a round),
# with their geometric means.
#
#   sh collect/compare_collectors.sh OLD_BUILD NEW_BUILD [ROUNDS]
#
# (default 5 rounds).  E.g. build the previous commit in a worktree, then
# compare it with the working tree's build.  Wall times on a shared machine
# are noisy (+-5-10% per program): trust the geometric mean of new / old
# more than any single row.  A measurement, not a test: it asserts nothing.
set -eu
old=${1:?usage: compare_collectors.sh OLD_BUILD NEW_BUILD [ROUNDS]}
new=${2:?usage: compare_collectors.sh OLD_BUILD NEW_BUILD [ROUNDS]}
rounds=${3:-5}
for b in "$old" "$new"; do
  [ -x "$b/collect/pulley-collect" ] || {
    echo "compare_collectors.sh: no $b/collect/pulley-collect" >&2
    exit 2
  }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

now_us() { echo $(($(date +%s%N) / 1000)); }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
i=0
while [ "$i" -lt "$rounds" ]; do
  i=$((i + 1))
  for wasm in "$new"/bench/*.wasm; do
    prog=$(basename "$wasm" .wasm)
    [ "$prog" = wasm_probe ] && continue # the toolchain probe: does nothing
    for cfg in plain old new; do
      rm -f "$tmp"/run.db*
      t0=$(now_us)
      case $cfg in
        plain) "$new/interp/pulley-run" "$wasm" ;;
        old) "$old/collect/pulley-collect" -o "$tmp/run.db" -- "$wasm" ;;
        new) "$new/collect/pulley-collect" -o "$tmp/run.db" -- "$wasm" ;;
      esac >/dev/null 2>>"$tmp/stderr" || {
        echo "compare_collectors.sh: $cfg run of $prog failed:" >&2
        tail -3 "$tmp/stderr" >&2
        exit 1
      }
      echo "$prog $cfg $i $(($(now_us) - t0))" >>"$tmp/times"
    done
  done
done
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
awk '
  { t[$1, $2, $3] = $4; if (!($1 in seen)) { seen[$1] = 1; order[++np] = $1 } ; if ($3 > k) k = $3 }
  function med(a, n,   i, j, x) {
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  function ratio(p, m, base,   i, a) {
    for (i = 1; i <= k; i++) a[i] = t[p, m, i] / t[p, base, i]
    return med(a, k)
  }
  END {
    printf "%-10s %9s %7s %7s %8s\n", "program", "plain s", "old", "new", "new/old"
    for (q = 1; q <= np; q++) {
      p = order[q]
      for (i = 1; i <= k; i++) a[i] = t[p, "plain", i]
      o = ratio(p, "old", "plain"); n = ratio(p, "new", "plain"); x = ratio(p, "new", "old")
      printf "%-10s %9.3f %7.3f %7.3f %8.3f\n", p, med(a, k) / 1e6, o, n, x
      go += log(o); gn += log(n); gx += log(x)
    }
    printf "geometric mean: old %.3f, new %.3f, new/old %.3f (%d rounds)\n", exp(go / np),
      exp(gn / np), exp(gx / np), k
  }' "$tmp/times"
