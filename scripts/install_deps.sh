#!/bin/sh
# install_deps.sh - install the Debian packages the toolkit needs, if missing.
#
#   sh scripts/install_deps.sh         what building and the demo need
#   sh scripts/install_deps.sh --test  that, and what the tests need besides:
#                                      headless Chromium (the HTML report's
#                                      browser check) and Jupyter with pandas
#                                      and matplotlib (the notebook), and
#                                      valgrind (bench/op_costs.sh's
#                                      handler costs, under callgrind)
set -eu

packages="cmake make gcc clang lld libclang-rt-14-dev wasi-libc libclang-rt-14-dev-wasm32 wabt pkg-config libcmocka-dev libsqlite3-dev zlib1g-dev sqlite3 python3-dev"
case "${1:-}" in
  "") ;;
  --test) packages="$packages chromium jupyter-nbconvert python3-nbformat python3-ipykernel python3-pandas python3-matplotlib valgrind" ;;
  *) echo "usage: sh scripts/install_deps.sh [--test]" >&2; exit 2 ;;
esac

missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "installing:$missing" >&2
if [ "$(id -u)" -eq 0 ]; then
  sudo=""
elif command -v sudo >/dev/null 2>&1; then
  sudo="sudo"
else
  echo "install_deps: missing packages:$missing; run as root or install sudo" >&2
  exit 1
fi
$sudo apt-get update -qq
# shellcheck disable=SC2086 # the list is meant to split into words
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
