#!/bin/sh
# fleet_layout.sh - a fleet's collection reads the same however it is laid
# out: two programs collected sampled and counted make a seed, which
# bench/fleet/make_fleet.py copies into 40 runs, once in one database and
# once over 4; pulley-ngrams (proposals, --emit-macros, --evaluate) and
# pulley-report --text give the same results on both layouts, count every
# run, and name the databases they read.  make_fleet.py refuses an output
# that exists and bad arguments.
# Environment: PULLEY_COLLECT, PULLEY_NGRAMS, PULLEY_REPORT, PROGRAMS, MAKE_FLEET.
set -eu
: "${PULLEY_COLLECT:?}" "${PULLEY_NGRAMS:?}" "${PULLEY_REPORT:?}" "${PROGRAMS:?}" "${MAKE_FLEET:?}"

. "$(dirname "$0")/lib.sh"
py=$(command -v python3) || fail "python3 is needed"
seed=$tmp/seed.db

for prog in loops collatz; do
    for mode in "" --exact; do
        # shellcheck disable=SC2086 # mode is one word or none
        "$PULLEY_COLLECT" $mode --no-fuse -o "$seed" --invoke "$prog" -- "$PROGRAMS/$prog.pasm" 20000 \
            >/dev/null 2>"$tmp/collect" || fail "pulley-collect $prog: $(cat "$tmp/collect")"
    done
done

expect_status 0 "$py" "$MAKE_FLEET" "$seed" 40 "$tmp/one.db"
expect_status 0 "$py" "$MAKE_FLEET" "$seed" 40 "$tmp/many" 4
[ "$(ls "$tmp/many" | wc -l)" -eq 4 ] || fail "make_fleet made $(ls "$tmp/many") for 4 files"
# Bad arguments and an output that exists are refused, nothing written.
expect_status 1 "$py" "$MAKE_FLEET" "$seed" 40 "$tmp/one.db"
grep -q "one.db exists" "$tmp/err" || fail "make_fleet over an existing file: $(cat "$tmp/err")"
expect_status 1 "$py" "$MAKE_FLEET" "$seed" 0 "$tmp/zero.db"
expect_status 2 "$py" "$MAKE_FLEET" "$seed"
[ ! -e "$tmp/zero.db" ] || fail "make_fleet wrote zero.db for 0 runs"

# same_output NAME ARGS...: the tool's stdout is the same on both layouts.
same_output() {
    name=$1
    shift
    expect_status 0 "$@" "$tmp/one.db"
    cp "$tmp/out" "$tmp/$name.one"
    cp "$tmp/err" "$tmp/$name.one.err"
    # shellcheck disable=SC2046 # the file names are words
    expect_status 0 "$@" $(ls "$tmp"/many/*.db)
    cp "$tmp/err" "$tmp/$name.many.err"
    # Where an op was seen names its function, never the database.
    cmp -s "$tmp/$name.one" "$tmp/out" ||
        fail "$name differs between one database and four: $(diff "$tmp/$name.one" "$tmp/out" | head -20)"
}

# Every copy of every seed run with data is read (a sampled run of a
# short program may have no sample on a busy machine: left out, as in the
# seed).
expect_status 0 "$PULLEY_NGRAMS" --quiet --top 8 "$seed"
seed_runs=$(sed -n 's/.*(\([0-9]*\) runs, .*/\1/p' "$tmp/out")
[ -n "$seed_runs" ] && [ "$seed_runs" -ge 2 ] || fail "the seed has too few runs with data: $(cat "$tmp/out" "$tmp/err")"
same_output ngrams "$PULLEY_NGRAMS" --quiet --top 8
grep -q "($((seed_runs * 10)) runs, 2 benchmarks)" "$tmp/ngrams.one" ||
    fail "not every run is counted ($seed_runs in the seed, copied 10 times): $(head -3 "$tmp/ngrams.one")"
# The macro sets written are the same too, but for the comment naming
# what they were made from.
expect_status 0 "$PULLEY_NGRAMS" --quiet --top 8 --emit-macros "$tmp/set.macros" "$tmp/one.db"
# shellcheck disable=SC2046 # the file names are words
expect_status 0 "$PULLEY_NGRAMS" --quiet --top 8 --emit-macros "$tmp/set4.macros" $(ls "$tmp"/many/*.db)
grep -q '^macro ' "$tmp/set.macros" || fail "--emit-macros wrote no op: $(cat "$tmp/set.macros")"
grep -v '^#' "$tmp/set.macros" >"$tmp/set.ops"
grep -v '^#' "$tmp/set4.macros" >"$tmp/set4.ops"
cmp -s "$tmp/set.ops" "$tmp/set4.ops" || fail "--emit-macros differs: $(diff "$tmp/set.ops" "$tmp/set4.ops" | head)"
same_output evaluate "$PULLEY_NGRAMS" --quiet --evaluate "$tmp/set.macros"
same_output report "$PULLEY_REPORT" --quiet --text --color never
echo "fleet_layout: the same proposals, evaluation and report from one database and from four"
