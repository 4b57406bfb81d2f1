#!/bin/sh
# build.sh BUILD_DIR [CMAKE_ARGS...] - configure and build the toolkit.
set -eu
dir=$1
shift
cmake -S "$(dirname "$0")/.." -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$dir" -j "$(nproc)"
