#!/bin/sh
# guest_links.sh - a wasm32-wasi program under pulley-run tries to make
# symbolic and hard links in the directory it is granted (guest_links.c):
# the ones leading out are refused with EPERM and leave nothing on the
# host; the ones that stay inside are made, with the text asked for.
# Environment: PULLEY_RUN, GUEST_LINKS (guest_links.wasm).
set -eu
: "${PULLEY_RUN:?}" "${GUEST_LINKS:?}"

. "$(dirname "$0")/../e2e/lib.sh"

mkdir "$tmp/box" "$tmp/box/data"
expect_status 0 "$PULLEY_RUN" --dir "$tmp/box/data::data" "$GUEST_LINKS"
[ "$(grep -c '^ok ' "$tmp/out")" = 12 ] && ! grep -q WRONG "$tmp/out" ||
    fail "guest_links.wasm: $(cat "$tmp/out")"
d=$tmp/box/data
for refused in evil abs up dotdot sub/up moved hard deeper; do
    [ ! -e "$d/$refused" ] && [ ! -L "$d/$refused" ] || fail "data/$refused was left on the host"
done
[ ! -e "$tmp/box/outside" ] && [ ! -L "$tmp/box/outside" ] || fail "something made outside"
[ "$(readlink "$d/ok")" = sub/file ] || fail "data/ok -> $(readlink "$d/ok")"
[ "$(readlink "$d/sub/deeper/moved")" = ../file ] || fail "data/sub/deeper/moved -> $(readlink "$d/sub/deeper/moved")"
[ "$(readlink "$d/sub/deeper/ok")" = ../../sub/file ] || fail "data/sub/deeper/ok -> $(readlink "$d/sub/deeper/ok")"
[ "$(cat "$d/sub/deeper/ok")" = inside ] || fail "data/sub/deeper/ok does not lead to data/sub/file on the host"
echo "guest_links: ok"
