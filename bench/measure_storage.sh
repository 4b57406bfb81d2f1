#!/bin/sh
# measure_storage.sh - how many bytes a sample takes in the profile
# database: profiles each C benchmark built for wasm32-wasi
# (BUILD_DIR/bench/*.wasm) with pulley-collect at 10 kHz, or takes the
# databases given, and prints per run: samples, bytes stored and bytes per
# sample; the same stream re-encoded as dzv1-zlib (the schema version 1
# format, in the old writer's 8192-sample chunks) and as dzv2-rc in chunks
# of 16384 (the writer's) and 65536 samples; the order-0 entropy of the pcs
# in bits per sample and as bytes (the bound for any coder that treats
# samples as independent; dzv2 adapts to program phases and may go below
# it); the entropy of the tick deltas; and the share of sampler deadlines
# missed (on a busy machine ticks vary and cost more).
#
#   sh bench/measure_storage.sh BUILD_DIR [DB...]
#
# Needs BUILD_DIR/bin/pulley-collect and BUILD_DIR/bench/measure_storage
# (cmake --build BUILD_DIR --target pulley-collect measure_storage bench_wasm).
# A measurement, not a test: it asserts nothing.
set -eu
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
case ${1:-} in
  -h|--help) usage_text; exit 0 ;;
  '') usage_error "usage: sh bench/measure_storage.sh BUILD_DIR [DB...]" ;;
esac
build=$1
shift
measure=$build/bench/measure_storage
need_built "$measure"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
if [ $# -eq 0 ]; then
  for wasm in "$build"/bench/*.wasm; do
    case $wasm in */wasm_probe.wasm) continue ;; esac # the build's toolchain probe
    [ -f "$wasm" ] || continue
    name=$(basename "$wasm" .wasm)
    echo "profiling $name ..." >&2
    "$build/bin/pulley-collect" -o "$tmp/$name.db" --label "$name" -- "$wasm" \
      >/dev/null 2>"$tmp/$name.err" || { cat "$tmp/$name.err" >&2; exit 1; }
    set -- "$@" "$tmp/$name.db"
  done
  [ $# -gt 0 ] || die "no benchmark in $build/bench (is clang for wasm32-wasi there?)"
fi
"$measure" "$@" | awk '
  NR == 1 { print; next }
  { print; n++; for (i = 4; i <= 11; i++) sum[i] += $i }
  END {
    if (n < 2) exit
    printf "%-12s %8s %9s", "mean", "", ""
    printf " %7.3f %9.3f %9.3f %9.3f %7.2f %7.3f %7.2f %7.1f\n",
      sum[4] / n, sum[5] / n, sum[6] / n, sum[7] / n, sum[8] / n, sum[9] / n, sum[10] / n, sum[11] / n
  }'
