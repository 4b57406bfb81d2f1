#!/bin/sh
# outside_loop.sh - what macro ops chosen by the toolkit buy an interpreter
# it was not written for: tests/outside/regvm built against the installed
# library, its programs counted, pulley-ngrams --emit-macros choosing TOP
# macro ops, regvm rebuilt with them (pulley-macrogen --outside), then
# each program timed fused and unfused (--no-fuse, the same binary) in
# interleaved rounds.  Prints per program the dispatches (both counted),
# the median wall times, their ratio with a 95% interval, and the
# geometric mean of the ratios.  A benchmark, not a test: it asserts
# nothing (tests/e2e/outside_loop.sh checks the loop).
#
#   sh bench/outside_loop.sh [-n ROUNDS] [-t TOP] [-b BUILD_DIR]
#
#   -n ROUNDS     timed rounds (default 7)
#   -t TOP        macro ops chosen (default 8)
#   -b BUILD_DIR  the toolkit's build (default build), installed into a
#                 temporary prefix
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
prog=outside_loop
# shellcheck source=bench/lib.sh
. "$top/bench/lib.sh"
rounds=7
ntop=8
build=$top/build
while getopts n:t:b:h opt; do
  case $opt in
    n) rounds=$OPTARG ;;
    t) ntop=$OPTARG ;;
    b) build=$OPTARG ;;
    h) usage_text; exit 0 ;;
    *) usage_text >&2; exit 2 ;;
  esac
done
check_positive ROUNDS "$rounds"
check_positive TOP "$ntop"
need_built "$build/bin/pulley-ngrams"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null || die "cmake --install $build failed"
cp -R "$top/tests/outside/regvm" "$work/regvm"
make_regvm() { # DIR CMAKE_ARGS...
  d=$1
  shift
  { cmake -S "$work/regvm" -B "$work/$d" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" "$@" &&
    cmake --build "$work/$d"; } >/dev/null 2>&1 || die "building regvm ($d) failed"
}
programs="sum:5000000 sieve:1000000 chunks:200000"
make_regvm base
for p in $programs; do
  "$work/base/regvm" "${p%:*}" "${p#*:}" --profile "$work/counted.db" --exact >/dev/null ||
    die "regvm ${p%:*} failed"
done
"$build/bin/pulley-ngrams" "$work/counted.db" --top "$ntop" --emit-macros "$work/set.macros" \
  --quiet >/dev/null || die "pulley-ngrams --emit-macros failed"
make_regvm fused -DREGVM_MACROS="$work/set.macros"

: >"$work/times"
one_round() {
  for p in $programs; do
    for mode in fused unfused; do
      flag=""
      [ "$mode" = unfused ] && flag=--no-fuse
      # shellcheck disable=SC2086 # flag is empty or one word
      timed "$work/fused/regvm" "${p%:*}" "${p#*:}" $flag >/dev/null ||
        die "regvm ${p%:*} $mode failed"
      echo "${p%:*} $mode $timed_us" >>"$work/times"
    done
  done
}
interleave "$rounds" one_round
printf '%s macro ops chosen from the counted programs (%s):\n' "$ntop" "$(grep -c '^macro ' "$work/set.macros")"
printf '%-8s %14s %14s %11s %11s %7s %15s\n' program dispatches "fused disp." "unfused s" "fused s" ratio "95% interval"
for p in $programs; do
  name=${p%:*}
  d0=$("$work/fused/regvm" "$name" "${p#*:}" --no-fuse --dispatches 2>&1 >/dev/null | sed -n 's/^regvm: \([0-9]*\) dispatches$/\1/p')
  d1=$("$work/fused/regvm" "$name" "${p#*:}" --dispatches 2>&1 >/dev/null | sed -n 's/^regvm: \([0-9]*\) dispatches$/\1/p')
  awk -v name="$name" -v d0="$d0" -v d1="$d1" "$stats_awk"'
    $1 == name && $2 == "unfused" { u[++nu] = $3 }
    $1 == name && $2 == "fused" { f[++nf] = $3 }
    END {
      for (i = 1; i <= nu && i <= nf; i++) r[i] = f[i] / u[i]
      g = log_interval(r, nf)
      printf "%-8s %14d %14d %11.3f %11.3f %7.3f  [%.3f, %.3f]\n", name, d0, d1,
             median(u, nu) / 1e6, median(f, nf) / 1e6, g, ci_lo, ci_hi
      print g >> "'"$work/ratios"'"
    }' "$work/times"
done
printf 'geometric mean of the ratios (fused / unfused): %.3f\n' "$(geomean "$work/ratios")"
