#!/bin/sh
# reject_bad_pbc.sh - pulley-run given malformed modules: random byte
# strings (every other one behind a correct .pbc magic and version), and
# every truncation of a valid .pbc that has imports, data and heap limits.
# Each must be rejected with exit status 1 and only "pulley-run: ..." lines
# on stderr: never a signal (status > 128), never a sanitizer report.
# Leak checks of sanitizer builds cost more than the run itself, so they
# are made for the truncations (which reach every error path of the .pbc
# reader) and not for the random files.
# Environment: PULLEY_ASM, PULLEY_RUN, PROGRAMS.
set -eu
: "${PULLEY_ASM:?}" "${PULLEY_RUN:?}" "${PROGRAMS:?}"

. "$(dirname "$0")/lib.sh"

RANDOM_FILES=300
MAX_RANDOM_SIZE=600

# reject FILE LEAK_CHECK: pulley-run rejects FILE cleanly (LEAK_CHECK: 0 or 1).
reject() {
    status=0
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=$2" \
        "$PULLEY_RUN" "$1" >"$tmp/out" 2>"$tmp/err" </dev/null || status=$?
    if [ "$status" -ne 1 ] || [ ! -s "$tmp/err" ] || grep -q -v '^pulley-run: ' "$tmp/err"; then
        kept=${TMPDIR:-/tmp}/pulley-bad-input.$$.pbc
        cp "$1" "$kept"
        fail "$(wc -c <"$1")-byte input (kept as $kept): exit status $status;" \
            "stderr: $(cat "$tmp/err")"
    fi
}

# Random bytes, of sizes read from /dev/urandom too.
i=0
for size in $(od -An -v -N$((2 * RANDOM_FILES)) -tu2 /dev/urandom); do
    f=$tmp/random.pbc
    if [ $((i % 2)) -eq 0 ]; then
        printf '\000PBC\001\000\000\000' >"$f"
    else
        : >"$f"
    fi
    size=$((size % MAX_RANDOM_SIZE))
    if [ "$size" -gt 0 ]; then
        dd if=/dev/urandom bs="$size" count=1 2>/dev/null >>"$f"
    fi
    reject "$f" 0
    i=$((i + 1))
done
[ "$i" -eq "$RANDOM_FILES" ] || fail "made $i random files, not $RANDOM_FILES"

# Every proper prefix of a valid module.
"$PULLEY_ASM" "$PROGRAMS/hello.pasm" -o "$tmp/hello.pbc" || fail "pulley-asm hello.pasm"
"$PULLEY_RUN" "$tmp/hello.pbc" >/dev/null || fail "hello.pbc does not run"
size=$(wc -c <"$tmp/hello.pbc")
n=0
while [ "$n" -lt "$size" ]; do
    head -c "$n" "$tmp/hello.pbc" >"$tmp/cut.pbc"
    reject "$tmp/cut.pbc" 1
    n=$((n + 1))
done
echo "reject_bad_pbc: ok ($RANDOM_FILES random files, $size truncations)"
