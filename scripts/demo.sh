#!/bin/sh
# demo.sh BUILD_DIR - the main job on a bundled example: run a C benchmark
# compiled to WebAssembly on the VM, show the bytecode the translator made,
# profile it into an SQLite database, ask the database where the time went,
# mine the profile for macro-opcode proposals, and write the hot-code report.
# The profile and the report stay in BUILD_DIR/demo/ to be looked at.
set -eu
build=$1
top=$(cd "$(dirname "$0")/.." && pwd)
out=$build/demo
mkdir -p "$out"
rm -f "$out/profile.db" "$out/profile.db-wal" "$out/profile.db-shm" "$out/report.html"
run=$build/bin/pulley-run

echo "== $($run --version | head -n 1)"
if [ -f "$build/bench/sha256.wasm" ]; then
  echo "== run a C program compiled to wasm32-wasi (bench/sha256.c) on the VM"
  "$run" "$build/bench/sha256.wasm" 2
  echo "== the bytecode the translator made for one of its functions"
  "$run" --emit-pasm "$build/bench/sha256.wasm" | awk '/^\.func compress /,/^\.end/' | head -n 30
fi

if [ -f "$build/bench/sha256.wasm" ]; then
  set -- "$build/bench/sha256.wasm"
else # no wasm32-wasi toolchain: profile a bundled .pasm program instead
  set -- --invoke loops -- "$top/tests/programs/loops.pasm" 5000
fi
echo "== profile it at 10 kHz into $out/profile.db"
"$build/bin/pulley-collect" -o "$out/profile.db" --label demo "$@" >/dev/null
echo "== hot functions, straight from SQL (sql/queries/hot_functions.sql)"
sqlite3 -header -column "$out/profile.db" <"$top/sql/queries/hot_functions.sql" | head -n 8
echo "== proposed macro opcodes (pulley-ngrams)"
"$build/bin/pulley-ngrams" --top 8 "$out/profile.db"
echo "== the hottest code, annotated (pulley-report --text)"
"$build/bin/pulley-report" --text --threshold 1 --functions 1 "$out/profile.db"
"$build/bin/pulley-report" --quiet -o "$out/report.html" "$out/profile.db"
echo "== the whole report, one self-contained page: $out/report.html"
echo "   (the profile itself: $out/profile.db; try sqlite3 on it with sql/queries/*.sql)"
