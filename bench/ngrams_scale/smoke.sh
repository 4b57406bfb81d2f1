#!/bin/sh
# smoke.sh - make_big_profile at a small size, and pulley-ngrams on what it
# wrote: the database is a profile pulley-ngrams reads, the translator's
# heap access (bcheck32 + xadd64) comes out on top, the same seed gives
# the same database content and another seed another; bad options exit 2;
# peak_rss reports a size.  ngrams_scale.sh does the same at full size
# and times it (a benchmark, not a test).
# Environment: MAKE_BIG_PROFILE, PEAK_RSS, PULLEY_NGRAMS.
set -eu
: "${MAKE_BIG_PROFILE:?}" "${PEAK_RSS:?}" "${PULLEY_NGRAMS:?}"

. "$(dirname "$0")/../../tests/e2e/lib.sh"

# make DB SEED: a 48 KB, 200000-sample database.
make_db() {
    expect_status 0 "$MAKE_BIG_PROFILE" -o "$1" --bytes 48K --samples 200K --seed "$2"
    grep -Eq '^make_big_profile: [0-9]+ functions, [0-9]+ instructions, [0-9]+ bytes of code; 200000 samples in 25 chunks' "$tmp/err" ||
        fail "make_big_profile summary: $(cat "$tmp/err")"
}

make_db "$tmp/a.db" 7
expect_status 0 "$PULLEY_NGRAMS" "$tmp/a.db"
grep -Eq '^Proposed macro ops: [1-9][0-9]*, removing [0-9.]*% of all dispatches \(1 runs, 1 benchmarks\)' "$tmp/out" ||
    fail "pulley-ngrams summary: $(cat "$tmp/out")"
grep -Eq '^ +[1-3]  bcheck32 \+ xadd64' "$tmp/out" ||
    fail "bcheck32 + xadd64 not among the top 3 proposals: $(cat "$tmp/out")"
expect_status 0 "$PULLEY_NGRAMS" --format csv "$tmp/a.db"
cp "$tmp/out" "$tmp/a.csv"

# Same seed, same content (the CSV names no database path); another seed differs.
make_db "$tmp/b.db" 7
expect_status 0 "$PULLEY_NGRAMS" --format csv "$tmp/b.db"
cmp -s "$tmp/a.csv" "$tmp/out" || fail "seed 7 twice gave different profiles"
make_db "$tmp/c.db" 8
expect_status 0 "$PULLEY_NGRAMS" --format csv "$tmp/c.db"
cmp -s "$tmp/a.csv" "$tmp/out" && fail "seeds 7 and 8 gave the same profile"

# A second run appends to the database, as pulley-collect does.
make_db "$tmp/a.db" 9
expect_status 0 "$PULLEY_NGRAMS" "$tmp/a.db"
grep -q '(2 runs, 2 benchmarks)' "$tmp/out" || fail "appended run: $(cat "$tmp/out")"

expect_status 2 "$MAKE_BIG_PROFILE" --bytes 0
expect_status 2 "$MAKE_BIG_PROFILE" --samples lots
expect_status 2 "$MAKE_BIG_PROFILE" stray
expect_status 0 "$MAKE_BIG_PROFILE" --help
grep -q '^usage: make_big_profile' "$tmp/out" || fail "--help: $(cat "$tmp/out")"
echo "not a database" >"$tmp/foreign.db"
expect_status 1 "$MAKE_BIG_PROFILE" -o "$tmp/foreign.db" --bytes 4K --samples 10
grep -q 'foreign.db' "$tmp/err" || fail "foreign database: $(cat "$tmp/err")"

expect_status 0 "$PEAK_RSS" -o "$tmp/rss" true
grep -Eq '^[0-9]+$' "$tmp/rss" || fail "peak_rss: $(cat "$tmp/rss")"
expect_status 3 "$PEAK_RSS" sh -c 'exit 3'
expect_status 2 "$PEAK_RSS"
