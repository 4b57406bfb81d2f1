#!/bin/sh
# ngrams_cli.sh - pulley-ngrams end to end: collect a profile of
# tests/programs/loops.pasm with pulley-collect, and check that the
# compare + branch pair (xlt64_s + br_if_not) is among the top proposals
# with its carried, dead register; every output format; run selection;
# --train/--test; asking for more ops than save anything gives fewer,
# each saving at least the minimum, and says so; usage errors exit 2,
# unreadable or foreign databases exit 1 naming the path; reading leaves
# no -wal or -shm file beside the database.
# Environment: PULLEY_COLLECT, PULLEY_NGRAMS, PROGRAMS.
# Programs are collected --no-fuse: the checks are of the baseline code.
set -eu
: "${PULLEY_COLLECT:?}" "${PULLEY_NGRAMS:?}" "${PROGRAMS:?}"

. "$(dirname "$0")/lib.sh"
db=$tmp/profile.db

# ngrams STATUS ARGS...: pulley-ngrams ARGS exits with STATUS.
ngrams() {
    want=$1
    shift
    expect_status "$want" "$PULLEY_NGRAMS" "$@"
}

"$PULLEY_COLLECT" --no-fuse -o "$db" --label loops --invoke loops -- "$PROGRAMS/loops.pasm" 5000 \
    >/dev/null 2>"$tmp/collect" || fail "pulley-collect: $(cat "$tmp/collect")"

# The compare + branch pair among the top 4 proposals, x4 carried and dead.
ngrams 0 "$db"
grep -Eq '^ +[1-4]  xlt64_s \+ br_if_not +1\.a>2\.a dead ' "$tmp/out" ||
    fail "no xlt64_s + br_if_not among the top proposals: $(cat "$tmp/out")"
grep -q '^Proposed macro ops: [0-9]*, removing [0-9.]*% of all dispatches' "$tmp/out" ||
    fail "no summary: $(cat "$tmp/out")"
# Reading leaves nothing beside the database: no -wal or -shm file.
for side in "$db-wal" "$db-shm"; do
    [ ! -e "$side" ] || fail "pulley-ngrams left $side behind"
done

ngrams 0 "$db" --format json --top 4
grep -q '"ops": \["xlt64_s", "br_if_not"\]' "$tmp/out" || fail "json: $(cat "$tmp/out")"
if command -v python3 >/dev/null; then
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/out" || fail "json does not parse"
fi
# More ops asked for than save anything: fewer, each saving at least
# 0.01% (the default minimum), and a line saying so.
ngrams 0 "$db" --top 100
grep -Eq '^Only [0-9]+ of the 100 macro ops asked for saves? at least 0\.01% of all dispatches' "$tmp/out" ||
    fail "no note on the ops missing: $(cat "$tmp/out")"
ngrams 0 "$db" --top 100 --format json
grep -Eq '"choice": \{"asked": 100, "pool": 400, "min_saving": 0\.01, "objective": "shared", "candidates": [0-9]+, "executed": [0-9]+, "adaptive": \{"ran": 0, "share": 0, "mined": false\}\}' "$tmp/out" ||
    fail "json choice: $(cat "$tmp/out")"
if command -v python3 >/dev/null; then
    python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))
p = r["proposals"]
assert 0 < len(p) < 100, len(p)
assert all(x["saving"] >= 0.01 for x in p), [x["saving"] for x in p]' "$tmp/out" ||
        fail "a proposal saves less than 0.01%: $(cat "$tmp/out")"
fi
# (no op can save every dispatch: an op of n parts saves at most (n-1)/n of them)
ngrams 0 "$db" --top 100 --min-saving 100
grep -q '^No macro op would save at least 100% of all dispatches' "$tmp/out" ||
    fail "--min-saving 100: $(cat "$tmp/out")"
# CSV is one long table: proposals, n-grams and the total, each row saying
# which it is; places in hex, as in disassembly.
ngrams 0 "$db" --format csv --max-n 2
head -1 "$tmp/out" | grep -q '^table,rank,sequence,pattern,est_count,share_pct,share_ci95_pct,saving_pct,cumulative_pct,test_saving_pct,static,functions,benchmarks,where,shares,time_saving_pct,time_cumulative_pct$' ||
    fail "csv header: $(head -1 "$tmp/out")"
grep -Eq '^proposal,[0-9]+,xlt64_s \+ br_if_not,.*,"?loops\.pasm:loops\+0x[0-9a-f]{4}' "$tmp/out" ||
    fail "csv proposal: $(cat "$tmp/out")"
grep -q '^ngram,1,' "$tmp/out" || fail "csv n-grams: $(cat "$tmp/out")"
[ "$(grep -c '^total,' "$tmp/out")" = 1 ] || fail "csv total: $(cat "$tmp/out")"
[ "$(awk -F, 'NR > 1 && !/^"/ && $1 != "proposal" && $1 != "ngram" && $1 != "total"' "$tmp/out" | wc -l)" = 0 ] ||
    fail "csv rows of no table: $(cat "$tmp/out")"
ngrams 0 "$db" --format markdown --runs label:loops
grep -q '^| rank | macro op ' "$tmp/out" || fail "markdown: $(cat "$tmp/out")"
grep -Eq '^\| +[0-9]+ \| xlt64_s \+ br_if_not .*\| loops\.pasm:loops\+0x[0-9a-f]{4}' "$tmp/out" ||
    fail "markdown places: $(cat "$tmp/out")"

# Sampled shares are shares of time, with their 95% interval; exact shares
# are of executions, with none.
grep -Eq '^Shares are of sampled time \([0-9]+ effective samples: a 10% share is known to \+-[0-9.]+ points, 95%\)\.$' "$tmp/out" ||
    fail "markdown: no statement of sampled shares: $(cat "$tmp/out")"
ngrams 0 "$db" --format json --top 2
python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))
assert r["shares"] == "sampled" and r["effective_samples"] > 0, r
for g in r["proposals"] + r["ngrams"]:
    assert 0 < g["share_ci95"] < 50, g' "$tmp/out" || fail "json shares: $(cat "$tmp/out")"
"$PULLEY_COLLECT" --no-fuse --exact -o "$tmp/exact.db" --invoke loops -- "$PROGRAMS/loops.pasm" 500 \
    >/dev/null 2>"$tmp/collect" || fail "pulley-collect --exact: $(cat "$tmp/collect")"
ngrams 0 "$tmp/exact.db"
grep -q '^Shares are of executed instructions (exact counts)\.$' "$tmp/out" ||
    fail "exact: no statement of exact shares: $(cat "$tmp/out")"
grep -q -- '+-95%' "$tmp/out" && fail "exact shares with an interval: $(cat "$tmp/out")"
ngrams 0 "$db" "$tmp/exact.db"
grep -q '^Shares mix sampled time and exact executions' "$tmp/out" ||
    fail "mixed: no statement: $(cat "$tmp/out")"

# Two databases, two runs of one benchmark: still one benchmark.
"$PULLEY_COLLECT" --no-fuse -o "$tmp/second.db" --invoke loops -- "$PROGRAMS/loops.pasm" 3000 \
    >/dev/null 2>&1 || fail "second collection"
ngrams 0 "$db" "$tmp/second.db"
grep -q '(2 runs, 1 benchmarks)' "$tmp/out" || fail "two databases: $(head -1 "$tmp/out")"

# Ops chosen on one label, measured on another.
"$PULLEY_COLLECT" --no-fuse -o "$db" --label other --invoke loops -- "$PROGRAMS/loops.pasm" 3000 \
    >/dev/null 2>&1 || fail "third collection"
ngrams 0 "$db" --train loops --test other
grep -q '^Proposed macro ops: [0-9]*, removing [0-9.]*% of all dispatches (1 runs, 1 benchmarks)' "$tmp/out" ||
    fail "train: $(cat "$tmp/out")"
grep -q '^On the runs labelled other (1 runs, 1 benchmarks) they remove [1-9][0-9.]*%' "$tmp/out" ||
    fail "test: $(cat "$tmp/out")"
ngrams 2 "$db" --train loops
ngrams 1 "$db" --train loops --test nothing
grep -q -- "--test nothing: no run is labelled 'nothing'" "$tmp/err" || fail "empty test set: $(cat "$tmp/err")"

# Errors.
ngrams 2 "$db" --top x
ngrams 2 "$db" --format yaml
ngrams 2 "$db" --min-saving x
ngrams 2 "$db" --min-saving 101
ngrams 2 "$db" --runs 1,,2
ngrams 2 "$db" --objective best
grep -q "bad --objective 'best' (shared, total, time)" "$tmp/err" || fail "--objective best: $(cat "$tmp/err")"
# Choosing by time needs every run's costs; without them the run is named.
ngrams 1 "$db" --objective time
grep -q "^pulley-ngrams: --objective time: run 1 of .* stores no costs of its build" "$tmp/err" ||
    fail "--objective time without costs: $(cat "$tmp/err")"
# A run collected with its build's costs: proposals and --evaluate of the
# set they make predict the same share of time, and --objective time
# chooses.
printf 'opcode\tper_execution\nnop\t5\nxlt64_s\t9\nbr_if_not\t7\nxadd64\t8\n' >"$tmp/costs.tsv"
"$PULLEY_COLLECT" --no-fuse --costs "$tmp/costs.tsv" -o "$tmp/timed.db" --invoke loops -- \
    "$PROGRAMS/loops.pasm" 5000 >/dev/null 2>"$tmp/collect" || fail "pulley-collect --costs: $(cat "$tmp/collect")"
for objective in shared time; do
    ngrams 0 "$tmp/timed.db" --objective $objective --top 4 --emit-macros "$tmp/timed.macros"
    proposed=$(sed -n 's/^Proposed macro ops: [0-9]*, removing [0-9.]*% of all dispatches and, predicted from the builds. costs, \([0-9.]*\)% of the time.*/\1/p' "$tmp/out")
    ngrams 0 "$tmp/timed.db" --evaluate "$tmp/timed.macros"
    evaluated=$(sed -n 's/^The [0-9]* macro ops of .* predicted from the builds. costs, \([0-9.]*\)% of the time.*/\1/p' "$tmp/out")
    [ -n "$proposed" ] && [ "$proposed" = "$evaluated" ] ||
        fail "--objective $objective: proposed '$proposed'% of the time, evaluated '$evaluated'%"
done
ngrams 0 "$db" --objective total --format json --top 4
grep -q '"objective": "total"' "$tmp/out" || fail "--objective total: $(cat "$tmp/out")"
ngrams 2
# Every bad value of a numeric option is bad usage (exit 2), named.
for bad in "--max-n 1" "--max-n 9" "--top -1" "--top 99999999999999999999" "--ngrams x" \
           "--pool 0" "--pool 1e3" "--min-saving 101" "--min-saving nan" "--runs -1" \
           "--runs 99999999999999999999"; do
    # shellcheck disable=SC2086 # option and value
    ngrams 2 "$db" $bad
    grep -q "^pulley-ngrams: bad .*'${bad#* }'" "$tmp/err" || fail "$bad: $(cat "$tmp/err")"
done
ngrams 1 "$db" --runs 99
grep -q "has no run 99" "$tmp/err" || fail "no run 99: $(cat "$tmp/err")"
ngrams 1 "$db" --exact
grep -q "no exact runs selected in $db" "$tmp/err" || fail "no runs: $(cat "$tmp/err")"
echo "not a database" >"$tmp/foreign.db"
ngrams 1 "$tmp/foreign.db"
grep -q "^pulley-ngrams: $tmp/foreign.db: " "$tmp/err" || fail "foreign file: $(cat "$tmp/err")"
ngrams 1 "$tmp/missing.db"
grep -q "^pulley-ngrams: $tmp/missing.db: " "$tmp/err" || fail "missing file: $(cat "$tmp/err")"
ngrams 0 --help
grep -q '^usage: pulley-ngrams' "$tmp/out" || fail "--help"
tail -3 "$tmp/out" | grep -q '^Exit status: 0 on success' || fail "--help ends without the exit statuses"
ngrams 1 "$tmp"
grep -q "$tmp: cannot open: is a directory, not a profile database" "$tmp/err" ||
    fail "a directory as the database: $(cat "$tmp/err")"
for v in --version -V; do
    ngrams 0 $v
    grep -q '^pulley-ngrams [0-9][0-9.]* (reads profile schema versions 1 to [0-9]*, any ISA stored in them)$' "$tmp/out" ||
        fail "$v: $(cat "$tmp/out")"
done
# Runs of another instruction set are not mined with these unless asked.
cp "$db" "$tmp/other.db"
sqlite3 "$tmp/other.db" "UPDATE runs SET isa_name = 'other'" || fail "sqlite3 on a copy"
ngrams 1 "$db" "$tmp/other.db"
grep -q "of instruction set 'pulley' and run 1 of $tmp/other.db of 'other'.*--mix-isas" "$tmp/err" ||
    fail "two instruction sets together: $(cat "$tmp/err")"
ngrams 0 --mix-isas --quiet "$db" "$tmp/other.db"
ngrams 0 -h
grep -q '^Exit status: 0 on success' "$tmp/out" || fail "-h: $(cat "$tmp/out")"
echo "ngrams_cli: ok"
