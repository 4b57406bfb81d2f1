#!/bin/sh
# demo.sh BUILD_DIR - the main job on bundled examples: run a C benchmark
# compiled to WebAssembly on the VM, show the bytecode the translator made,
# profile a program into an SQLite database and ask it where the time went.
set -eu
build=$1
top=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run=$build/interp/pulley-run

echo "== $($run --version | head -n 1)"
if [ -f "$build/bench/sha256.wasm" ]; then
  echo "== run a C program compiled to wasm32-wasi (bench/sha256.c) on the VM"
  "$run" "$build/bench/sha256.wasm" 2
  echo "== the bytecode the translator made for one of its functions"
  "$run" --emit-pasm "$build/bench/sha256.wasm" | awk '/^\.func compress /,/^\.end/' | head -n 30
fi

prog=$top/tests/programs/loops.pasm
echo "== profile $prog at 10 kHz into $out/profile.db"
"$build/collect/pulley-collect" -o "$out/profile.db" --label demo \
  --invoke loops -- "$prog" 5000
echo "== hot instructions, straight from SQL (sql/queries/hot_instructions_context.sql)"
sqlite3 -header -column "$out/profile.db" <"$top/sql/queries/hot_instructions_context.sql" | head -n 20
