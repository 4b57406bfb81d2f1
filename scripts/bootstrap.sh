#!/bin/sh
# bootstrap.sh - set up a fresh Debian 12 machine for the toolkit and run it.
#
#   sh scripts/bootstrap.sh demo   install what is missing, build, run the demo
#   sh scripts/bootstrap.sh test   install what is missing, build, run every test
#
# Packages are installed with apt-get when run as root, or through sudo.
# The build goes to ./build (override with BUILD_DIR=...).
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
action=${1:-}
case "$action" in
  demo|test) ;;
  *) echo "usage: sh scripts/bootstrap.sh demo|test" >&2; exit 2 ;;
esac

sh scripts/install_deps.sh
sh scripts/build.sh "${BUILD_DIR:-build}"

case "$action" in
  demo) sh scripts/demo.sh "${BUILD_DIR:-build}" ;;
  test) ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j "$(nproc)" ;;
esac
