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
#
# Another package manager holding a lock (unattended-upgrades, a second
# install) is waited for, up to APT_LOCK_WAIT seconds in all (default 300),
# then apt-get's own error is shown and the script fails.
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
lock_wait=${APT_LOCK_WAIT:-300}
case "$lock_wait" in
  ''|*[!0-9]*) echo "install_deps: APT_LOCK_WAIT=$lock_wait: not a number of seconds" >&2; exit 2 ;;
esac
deadline=$(($(date +%s) + lock_wait))
errors=$(mktemp)
trap 'rm -f "$errors"' EXIT

# apt_get ARGS...: apt-get ARGS, waiting while another package manager holds
# a lock, until the deadline.  apt-get waits for the dpkg lock itself
# (DPkg::Lock::Timeout); not for the package lists' lock, nor before apt
# 1.9.11: then it fails at once, saying so, and is run again.
apt_get() {
  while :; do
    left=$((deadline - $(date +%s)))
    [ "$left" -gt 0 ] || left=0
    # shellcheck disable=SC2086 # $sudo is empty or one word
    if $sudo env DEBIAN_FRONTEND=noninteractive apt-get -o "DPkg::Lock::Timeout=$left" "$@" \
        2>"$errors"; then
      cat "$errors" >&2
      return 0
    fi
    if [ "$(date +%s)" -lt "$deadline" ] &&
       grep -q -e 'Could not get lock' -e 'Unable to lock' -e 'Unable to acquire' "$errors"; then
      echo "install_deps: apt-get $1: another package manager holds a lock; trying again" \
           "($((deadline - $(date +%s))) s left)" >&2
      sleep 2
      continue
    fi
    cat "$errors" >&2
    echo "install_deps: apt-get $1 failed" >&2
    return 1
  done
}

echo "install_deps: if another package manager holds the package lock, waiting" \
     "for it, up to $lock_wait s (APT_LOCK_WAIT)" >&2
apt_get update -qq
# shellcheck disable=SC2086 # the list is meant to split into words
apt_get install -y -qq --no-install-recommends $missing
