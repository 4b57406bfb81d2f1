#!/bin/sh
# bootstrap.sh - set up a fresh Debian 12 machine for the toolkit and run it.
#
#   sh scripts/bootstrap.sh demo             install what is missing, build, run the demo
#   sh scripts/bootstrap.sh test [WAST_DIR]  install what is missing, build, run every
#                                            test (with the Wasm spec suite in WAST_DIR)
#
# Packages are installed with apt-get when run as root, or through sudo;
# another package manager holding apt's lock is waited for, up to
# APT_LOCK_WAIT seconds (300; scripts/install_deps.sh).
# The build goes to ./build (override with BUILD_DIR=...).
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
action=${1:-}
case "$action" in
  demo|test) ;;
  *) echo "usage: sh scripts/bootstrap.sh demo | test [WAST_DIR]" >&2; exit 2 ;;
esac
spec_args=""
if [ "$action" = test ] && [ -n "${2:-}" ]; then
  [ -d "$2" ] || { echo "bootstrap: $2: not a directory of .wast files" >&2; exit 2; }
  spec_args="-DPULLEY_SPEC_TESTS_DIR=$(cd "$2" && pwd)"
fi

if [ "$action" = test ]; then
  sh scripts/install_deps.sh --test
else
  sh scripts/install_deps.sh
fi
# shellcheck disable=SC2086 # empty or one word
sh scripts/build.sh "${BUILD_DIR:-build}" $spec_args

case "$action" in
  demo) sh scripts/demo.sh "${BUILD_DIR:-build}" ;;
  test) ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j "$(nproc)" ;;
esac
