#!/bin/sh
# run_fuzz.sh [SECONDS]: fuzz the Wasm front end (decode + validate +
# translate + verify) for SECONDS (default 60) with libFuzzer; with
# MACROS=FILE, fuzz the fusion pass instead (fuzz_fusion: fused and unfused
# runs of each module agree), on a build with that set of macro ops; with
# TARGET=fuzz_profile_db, fuzz the profile database readers (seeded with
# tests/data/fuzz_db).
#
# Configures a clang build with -DPULLEY_FUZZ=ON (BUILD_DIR, default
# build-fuzz at the top of the repository), builds fuzz_wasm_frontend, makes
# the seed corpus (the .wasm modules of the spec suite's .wast scripts,
# converted with wast2json into a temporary directory; the repository's own
# tests/wasm/*.wat; tests/fuzz/regressions), runs libFuzzer with
# -max_total_time, and prints the executions and the findings.
#
# Environment: SPEC_DIR   directory of .wast scripts (default ../shared/wasm-spec-tests)
#              BUILD_DIR  the clang build directory
#              WORKERS    parallel fuzzing processes (default 1; >1 uses -fork)
#              FUZZ_ARGS  more libFuzzer options
#              MACROS     a .macros file: fuzz the fusion pass built with it
#              TARGET     fuzz_profile_db: the database readers instead
# The corpus grows in BUILD_DIR/fuzz-corpus across runs; crashing inputs land
# in BUILD_DIR/fuzz-findings/DATE-TIME.  Exit status: 0 no findings, 1 findings, 2 error.
set -eu
seconds=${1:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
spec=${SPEC_DIR:-$root/../shared/wasm-spec-tests}
build=${BUILD_DIR:-$root/build-fuzz}
workers=${WORKERS:-1}
case $build in /*) ;; *) build=$(pwd)/$build ;; esac

command -v clang >/dev/null || { echo "run_fuzz.sh: clang not found" >&2; exit 2; }
echo "== configure and build $build"
target=fuzz_wasm_frontend macros=""
if [ -n "${MACROS:-}" ]; then
  target=fuzz_fusion macros=$(cd "$(dirname "$MACROS")" && pwd)/$(basename "$MACROS")
fi
[ "${TARGET:-}" = fuzz_profile_db ] && target=fuzz_profile_db
CC=clang cmake -S "$root" -B "$build" -G Ninja -DPULLEY_FUZZ=ON -DPULLEY_MACROS="$macros" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --target "$target"
fuzzer=$build/tests/fuzz/$target

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
seeds=$tmp/seeds
mkdir -p "$seeds" "$tmp/json"
echo "== seed corpus"
if [ "$target" = fuzz_profile_db ]; then
  cp "$root"/tests/data/fuzz_db/* "$seeds/"
elif [ -d "$spec" ]; then
  for wast in "$spec"/*.wast; do
    name=$(basename "$wast" .wast)
    wast2json --no-check "$wast" -o "$tmp/json/$name.json" >/dev/null 2>&1 || true
  done
  # Binary modules only (.wat files are the text-format assert_malformed ones).
  find "$tmp/json" -name '*.wasm' -exec cp {} "$seeds/" \;
else
  echo "run_fuzz.sh: no spec suite at $spec; seeding without it" >&2
fi
if [ "$target" != fuzz_profile_db ] && command -v wat2wasm >/dev/null; then
  for wat in "$root"/tests/wasm/*.wat; do
    wat2wasm --debug-names "$wat" -o "$seeds/repo_$(basename "$wat" .wat).wasm" 2>/dev/null || true
  done
fi
[ "$target" = fuzz_profile_db ] || cp "$root"/tests/fuzz/regressions/* "$seeds/" 2>/dev/null || true
echo "$(ls "$seeds" | wc -l) seed inputs"

corpus=$build/fuzz-corpus
[ "$target" = fuzz_profile_db ] && corpus=$build/fuzz-corpus-db
findings=$build/fuzz-findings/$(date +%Y%m%d-%H%M%S) # this run's
mkdir -p "$corpus" "$findings"
log=$build/fuzz.log
echo "== fuzzing for ${seconds}s on $workers worker(s); log in $log"
set +e
if [ "$workers" -gt 1 ]; then
  # shellcheck disable=SC2086
  "$fuzzer" -max_total_time="$seconds" -fork="$workers" -ignore_crashes=1 \
    -ignore_ooms=1 -ignore_timeouts=1 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$findings/" -print_final_stats=1 ${FUZZ_ARGS:-} \
    "$corpus" "$seeds" >"$log" 2>&1
else
  # shellcheck disable=SC2086
  "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$findings/" -print_final_stats=1 ${FUZZ_ARGS:-} \
    "$corpus" "$seeds" >"$log" 2>&1
fi
status=$?
set -e

echo "== results"
# The log holds what the fuzzed programs print too, bytes of any kind and
# lines without an end: read it as text (-a), status lines anywhere.
execs=$(grep -ao 'stat::number_of_executed_units: *[0-9]*' "$log" | awk '{s += $2} END {print s + 0}')
if [ "$execs" -eq 0 ]; then # the last status line's #N
  execs=$(grep -aoE '#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -1 |
    sed 's/^#\([0-9]*\).*/\1/')
fi
echo "executions: ${execs:-unknown} in ${seconds}s (libFuzzer exit status $status)"
grep -aoE '#[0-9]+[[:space:]]+DONE.*' "$log" | tail -1 || true
echo "corpus: $(ls "$corpus" | wc -l) inputs in $corpus"
found=$(find "$findings" -type f | wc -l)
echo "findings: $found"
if [ "$found" -gt 0 ]; then
  find "$findings" -type f | sort
  grep -aoE '(ERROR: (AddressSanitizer|libFuzzer)|runtime error:|invariant broken).*' "$log" |
    sort | uniq -c | head -20
  echo "Reproduce: $fuzzer FILE; keep each as tests/fuzz/pending/NAME until fixed," \
       "then move it to tests/fuzz/regressions/."
  exit 1
fi
[ "$status" -eq 0 ] || { echo "run_fuzz.sh: libFuzzer failed, see $log" >&2; exit 2; }
exit 0
