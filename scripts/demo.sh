#!/bin/sh
# demo.sh BUILD_DIR - the main job on a bundled example: assemble a program,
# show its bytecode, run it, and trace its first instructions.
set -eu
build=$1
top=$(cd "$(dirname "$0")/.." && pwd)
prog=$top/tests/programs/fib.pasm
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== assemble $prog"
"$build/interp/pulley-asm" "$prog" -o "$out/fib.pbc"
echo "== disassemble"
"$build/interp/pulley-dis" "$out/fib.pbc"
echo "== run fib(25) ($("$build/interp/pulley-run" --version | head -n 1))"
"$build/interp/pulley-run" --invoke fib "$out/fib.pbc" 25
echo "== trace the first instructions of fib(3)"
"$build/interp/pulley-trace" --invoke fib "$out/fib.pbc" 3 2>&1 | head -n 12
