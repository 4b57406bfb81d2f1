#!/bin/sh
# install_deps_lock.sh - scripts/install_deps.sh waits for another package
# manager's lock, within a bound: every apt-get call carries
# DPkg::Lock::Timeout (the seconds left), a call that fails on a lock is
# run again until APT_LOCK_WAIT seconds have passed, with a message, and
# then fails with apt-get's own error; other failures are not retried.
# apt-get, dpkg-query and sudo are stand-ins on PATH: nothing is installed.
# Environment: SCRIPTS (the scripts/ directory).
set -eu
: "${SCRIPTS:?}"

. "$(dirname "$0")/lib.sh"

bin=$tmp/bin
mkdir "$bin"
# Every package is missing.
printf '#!/bin/sh\nexit 1\n' >"$bin/dpkg-query"
printf '#!/bin/sh\nexec "$@"\n' >"$bin/sudo"
# apt-get: logs its arguments; "update" fails on the lists' lock while
# $tmp/locked holds a number above 0 (one less each call), or with
# another error when $tmp/broken exists.
cat >"$bin/apt-get" <<'FAKE'
#!/bin/sh
echo "$DEBIAN_FRONTEND $*" >>"$T/apt.log"
[ ! -e "$T/broken" ] || { echo "E: Unable to locate package nothing" >&2; exit 100; }
if [ "$3" = update ] && [ "$(cat "$T/locked")" -gt 0 ]; then
    echo $(($(cat "$T/locked") - 1)) >"$T/locked"
    echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 1 (apt-get)" >&2
    echo "E: Unable to lock directory /var/lib/apt/lists/" >&2
    exit 100
fi
exit 0
FAKE
chmod +x "$bin"/*
export T="$tmp"
deps() { PATH="$bin:$PATH" sh "$SCRIPTS/install_deps.sh" "$@"; }

# Locked for two calls: waited for, then installed.
echo 2 >"$tmp/locked"
expect_status 0 deps
grep -q "waiting for it, up to 300 s" "$tmp/err" || fail "no message before waiting: $(cat "$tmp/err")"
[ "$(grep -c "apt-get update: another package manager holds a lock; trying again" "$tmp/err")" = 2 ] ||
    fail "retries: $(cat "$tmp/err")"
[ "$(grep -c ' update -qq$' "$tmp/apt.log")" = 3 ] && [ "$(grep -c ' install ' "$tmp/apt.log")" = 1 ] ||
    fail "apt-get calls: $(cat "$tmp/apt.log")"
# Each call: noninteractive, with the seconds left (300 at most) as the dpkg lock timeout.
while read -r frontend o timeout rest; do
    [ "$frontend" = noninteractive ] && [ "$o" = -o ] || fail "apt-get call: $frontend $o $timeout $rest"
    n=${timeout#DPkg::Lock::Timeout=}
    [ "$n" != "$timeout" ] && [ "$n" -gt 0 ] && [ "$n" -le 300 ] ||
        fail "apt-get call without a lock timeout: $o $timeout $rest"
done <"$tmp/apt.log"
grep -q "install -y -qq --no-install-recommends cmake make" "$tmp/apt.log" ||
    fail "install call: $(cat "$tmp/apt.log")"

# Locked for good: a bounded wait, then apt-get's error, and no install.
rm "$tmp/apt.log"
echo 1000 >"$tmp/locked"
APT_LOCK_WAIT=1
export APT_LOCK_WAIT
expect_status 1 deps
grep -q "E: Could not get lock /var/lib/apt/lists/lock" "$tmp/err" || fail "lock error not shown: $(cat "$tmp/err")"
grep -q "install_deps: apt-get update failed" "$tmp/err" || fail "no failure message: $(cat "$tmp/err")"
! grep -q ' install ' "$tmp/apt.log" || fail "installed after update failed"

# Another failure: not retried.
unset APT_LOCK_WAIT
rm "$tmp/apt.log"
echo 0 >"$tmp/locked"
touch "$tmp/broken"
expect_status 1 deps
[ "$(wc -l <"$tmp/apt.log")" -eq 1 ] || fail "a failure that is no lock was retried: $(cat "$tmp/apt.log")"
grep -q "Unable to locate package" "$tmp/err" || fail "apt-get's error not shown: $(cat "$tmp/err")"

rm "$tmp/broken"
APT_LOCK_WAIT=soon
export APT_LOCK_WAIT
expect_status 2 deps
grep -q "APT_LOCK_WAIT=soon: not a number of seconds" "$tmp/err" || fail "bad APT_LOCK_WAIT: $(cat "$tmp/err")"
echo "install_deps_lock: ok"
