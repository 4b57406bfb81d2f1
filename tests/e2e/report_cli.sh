#!/bin/sh
# report_cli.sh - pulley-report end to end without a browser: collect a
# profile of tests/programs/loops.pasm, and check the terminal view (the
# instructions shown are exactly those at or above the threshold, as SQL
# computes them from pc_samples; functions below it are summarised; ANSI
# colour only with --color always or on a terminal), the HTML file (self-
# contained, every internal link has its anchor, names from the database
# escaped), exact-count runs, and the errors: usage errors exit 2, a
# missing or foreign database or no selected run exits 1 naming the file;
# reading leaves no -wal or -shm file beside the database.
# Environment: PULLEY_COLLECT, PULLEY_REPORT, SQLITE3, PROGRAMS.
# Programs are collected --no-fuse: the checks are of the baseline code.
set -eu
: "${PULLEY_COLLECT:?}" "${PULLEY_REPORT:?}" "${SQLITE3:?}" "${PROGRAMS:?}"

. "$(dirname "$0")/lib.sh"
db=$tmp/profile.db
esc=$(printf '\033')

# report STATUS ARGS...: pulley-report ARGS exits with STATUS.
report() {
    want=$1
    shift
    expect_status "$want" "$PULLEY_REPORT" "$@"
}

"$PULLEY_COLLECT" --no-fuse -o "$db" --label first --invoke loops -- "$PROGRAMS/loops.pasm" 4000 \
    >/dev/null 2>"$tmp/collect" || fail "pulley-collect: $(cat "$tmp/collect")"

# ---- text: exactly the instructions at or above the threshold -------------
# Offsets (decimal) of the instructions of run 1 with at least 5% of its
# bytecode samples, and those pulley-report prints with no context.
"$SQLITE3" "$db" "SELECT offset FROM pc_samples p
    WHERE run_id = 1 AND function_id IS NOT NULL AND 100.0 * samples >=
      5 * (SELECT sum(samples) FROM pc_samples WHERE run_id = 1 AND function_id IS NOT NULL)
    ORDER BY offset" >"$tmp/want"
[ -s "$tmp/want" ] || fail "no instruction has 5% of the samples"
report 0 "$db" --text --threshold 5 --context 0
for side in "$db-wal" "$db-shm"; do
    [ ! -e "$side" ] || fail "pulley-report left $side behind"
done
grep -q '^Hot code of loops.pasm: 1 run, [0-9]* samples; threshold 5.00%' "$tmp/out" ||
    fail "text summary: $(cat "$tmp/out")"
grep -Eq '^Shares are of sampled time \([0-9]+ effective samples: a 10% share is known to \+-[0-9.]+ points, 95%\)\.$' "$tmp/out" ||
    fail "text: no statement of sampled shares: $(cat "$tmp/out")"
grep -Eq '^ +100\.00% \+-0\.00  #1 loops  \(loops\.pasm, run 1, [0-9]+ samples' "$tmp/out" ||
    fail "text function line: $(cat "$tmp/out")"
sed -n 's/^ *[0-9.]*% *[0-9]*  0x\([0-9a-f]*\)  .*/\1/p' "$tmp/out" |
    while read -r hex; do echo $((0x$hex)); done >"$tmp/got"
cmp -s "$tmp/want" "$tmp/got" ||
    fail "threshold 5%: printed offsets $(tr '\n' ' ' <"$tmp/got"), expected $(tr '\n' ' ' <"$tmp/want")"
grep -q "$esc" "$tmp/out" && fail "ANSI codes written to a file"
# The compare of the inner loop is its head; its jump is the back-edge.
grep -Eq ' 0x0016  xlt64_s x4, x3, x0 +\[loop head\]$' "$tmp/out" || fail "loop head: $(cat "$tmp/out")"
report 0 "$db" --text --threshold 0.5 --context 2
grep -Eq ' 0x002c  jump -22 +\[back to 0x0016\]$' "$tmp/out" || fail "back-edge: $(cat "$tmp/out")"
grep -q '^ *--$' "$tmp/out" || fail "no block separators: $(cat "$tmp/out")"
# More context shows more lines, never fewer.
[ "$(grep -c ' 0x' "$tmp/out")" -ge "$(wc -l <"$tmp/got")" ] || fail "context lost lines"

# Colour: always; never; auto is off for a file and on for a terminal.
report 0 "$db" --text --color always
grep -q "$esc\[" "$tmp/out" || fail "--color always wrote no ANSI codes"
report 0 "$db" --text --color never
grep -q "$esc" "$tmp/out" && fail "--color never wrote ANSI codes"
# script(1) runs the report on a pseudo-terminal, where there is one.
if command -v script >/dev/null; then
    if script -qec "'$PULLEY_REPORT' '$db' --text" /dev/null >"$tmp/tty" 2>&1 </dev/null; then
        grep -q "$esc\[" "$tmp/tty" || fail "no colour on a terminal: $(cat "$tmp/tty")"
    elif grep -q 'pseudo-terminal' "$tmp/tty"; then
        echo "note: no pseudo-terminal here; colour on a terminal not checked"
    else
        fail "on a terminal: $(cat "$tmp/tty")"
    fi
fi

# Two runs of one benchmark share its weight: each function has 50%, and
# a threshold above that shows the hottest and summarises the other.
# A run the sampler never woke in (a busy machine) has no samples and is
# not counted, so collect again until the second run has some.
for attempt in 1 2 3 4 5; do
    "$PULLEY_COLLECT" --no-fuse -o "$db" --label second --invoke loops -- "$PROGRAMS/loops.pasm" 3000 \
        >/dev/null 2>&1 || fail "second collection"
    sampled=$("$SQLITE3" "$db" "SELECT count(*) FROM pc_samples p JOIN runs r ON r.id = p.run_id
        WHERE r.label = 'second' AND p.function_id IS NOT NULL")
    [ "$sampled" -gt 0 ] && break
    [ "$attempt" -lt 5 ] || fail "five second runs of loops.pasm without a sample"
done
report 0 "$db" --text --threshold 60
[ "$(grep -c '#[0-9]* loops  (loops.pasm, run' "$tmp/out")" = 1 ] || fail "threshold 60%: $(cat "$tmp/out")"
grep -q '^1 more executed function, 50.00% together$' "$tmp/out" || fail "summary of the rest: $(cat "$tmp/out")"
# The sampled second run is the last one collected (run 2 unless a retry).
second=$("$SQLITE3" "$db" "SELECT max(id) FROM runs WHERE label = 'second'")
report 0 "$db" --text --runs label:second
grep -q ", run $second, " "$tmp/out" || fail "--runs label:second: $(cat "$tmp/out")"
grep -q ', run 1, ' "$tmp/out" && fail "--runs label:second showed run 1"

# ---- HTML: self-contained, links resolve, the hot function is there ------
report 0 "$db" -o "$tmp/report.html" --runs 1
[ -s "$tmp/report.html" ] || fail "no HTML written"
grep -Eiq 'https?:|<script|<link|@import|url\(|src=' "$tmp/report.html" &&
    fail "external reference or script: $(grep -Eio '.{30}(https?:|<script|<link|@import|url\(|src=).{30}' "$tmp/report.html" | head -3)"
grep -o 'href="[^"]*"' "$tmp/report.html" | grep -v '^href="#' && fail "a link leaves the file"
grep -o 'href="#[^"]*"' "$tmp/report.html" | sort -u | sed 's/href="#\(.*\)"/\1/' >"$tmp/targets"
[ "$(wc -l <"$tmp/targets")" -gt 5 ] || fail "too few links: $(cat "$tmp/targets")"
while read -r id; do
    grep -q "id=\"$id\"" "$tmp/report.html" || fail "link #$id has no anchor"
done <"$tmp/targets"
grep -q '<span class="fname mono">loops</span>' "$tmp/report.html" || fail "no heading for loops"
grep -Eq '<tr id="f[0-9]+-0x16" class="h[1-7]" data-share="[0-9.]+"><td class="pct r">[0-9.]+</td>.*xlt64_s x4, x3, x0' \
    "$tmp/report.html" || fail "no hot row for the loop head"
grep -q 'xlt64_s + br_if_not' "$tmp/report.html" || fail "no compare + branch proposal"
# Each proposal's row is followed by the line of its places.
[ "$(grep -c '<tbody><tr id="p[0-9]*">' "$tmp/report.html")" -ge 1 ] &&
    [ "$(grep -c '<tbody><tr id="p[0-9]*">' "$tmp/report.html")" = "$(grep -c '<tr class="places"><td></td><td colspan="6">[0-9]* place' "$tmp/report.html")" ] ||
    fail "proposal rows and their places lines do not pair up"
report 0 "$db" -o - --top 0
grep -q '^<!DOCTYPE html>' "$tmp/out" || fail "-o - did not write HTML to stdout"
grep -q 'No macro op was asked for' "$tmp/out" || fail "--top 0 still proposed ops"
grep -q '<tr id="p1">' "$tmp/out" && fail "--top 0 wrote a proposal row"

# Names from the database are text, never markup.
cp "$db" "$tmp/evil.db"
"$SQLITE3" "$tmp/evil.db" "UPDATE functions SET name = '<script>alert(1)</script>' WHERE name = 'loops';
                           UPDATE runs SET label = '\"><b>x</b>'"
report 0 "$tmp/evil.db" -o "$tmp/evil.html"
grep -qi '<script' "$tmp/evil.html" && fail "a function name became a script tag"
grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$tmp/evil.html" || fail "the name is not shown escaped"
grep -q '<b>x</b>' "$tmp/evil.html" && fail "a label became markup"

# ---- exact counts: executions instead of samples -------------------------
"$PULLEY_COLLECT" --no-fuse -o "$tmp/exact.db" --exact --invoke loops -- "$PROGRAMS/loops.pasm" 50 \
    >/dev/null 2>&1 || fail "exact collection"
report 0 "$tmp/exact.db" --text --threshold 10 --context 0
# The inner loop's compare runs n(n+1) = 2550 times of 5*2550 + ... in all.
grep -Eq '^ +[0-9.]+% +2550  0x0016  xlt64_s x4, x3, x0' "$tmp/out" || fail "exact counts: $(cat "$tmp/out")"
grep -q 'executions' "$tmp/out" || fail "exact run not called executions"
grep -q '^Shares are of executed instructions (exact counts)\.$' "$tmp/out" ||
    fail "exact: no statement of exact shares: $(cat "$tmp/out")"
grep -Eq '^ +100\.00%  #1 loops' "$tmp/out" || fail "exact function line: $(cat "$tmp/out")"
report 0 "$tmp/exact.db" -o "$tmp/exact.html"
grep -q '<th class="r">executions</th>' "$tmp/exact.html" || fail "exact HTML column"
grep -q 'time %' "$tmp/exact.html" && fail "time predicted without costs"

# ---- a run with its build's costs: the proposals' time too -----------------
printf 'opcode\tper_execution\nnop\t5\nxlt64_s\t9\nbr_if_not\t7\n' >"$tmp/costs.tsv"
"$PULLEY_COLLECT" --no-fuse --costs "$tmp/costs.tsv" -o "$tmp/timed.db" --exact --invoke loops -- \
    "$PROGRAMS/loops.pasm" 50 >/dev/null 2>&1 || fail "collection with costs"
report 0 "$tmp/timed.db" -o "$tmp/timed.html"
grep -q '<th class="r">time %</th><th class="r">time cumul %</th>' "$tmp/timed.html" &&
    grep -Eq "predicted from the builds' costs, [0-9]+\.[0-9]{2}% of the time" "$tmp/timed.html" ||
    fail "no time in the HTML proposals"

# ---- errors ----------------------------------------------------------------
report 2 "$db" --threshold x
report 2 "$db" --threshold 101
report 2 "$db" --functions 0
report 2 "$db" --color sometimes
report 2 "$db" --runs 1,,2
report 2
report 1 "$db" --runs 99
grep -q "has no run 99" "$tmp/err" || fail "no run 99: $(cat "$tmp/err")"
report 1 "$db" --runs kind:exact
grep -q "no runs selected in $db" "$tmp/err" || fail "no runs: $(cat "$tmp/err")"
echo "not a database" >"$tmp/foreign.db"
report 1 "$tmp/foreign.db"
grep -q "^pulley-report: $tmp/foreign.db: " "$tmp/err" || fail "foreign file: $(cat "$tmp/err")"
report 1 "$tmp/missing.db" --text
grep -q "^pulley-report: $tmp/missing.db: " "$tmp/err" || fail "missing file: $(cat "$tmp/err")"
report 1 "$db" -o "$tmp/no/such/dir/report.html"
grep -q "^pulley-report: cannot write $tmp/no/such/dir/report.html" "$tmp/err" || fail "unwritable: $(cat "$tmp/err")"
# Every bad value of a numeric option is bad usage (exit 2), named.
for bad in "--threshold 101" "--threshold -1" "--functions 0" "--functions 99999999999999999999" \
           "--context -1" "--top -1" "--top 1001" "--max-n 9" "--runs -1"; do
    # shellcheck disable=SC2086 # option and value
    report 2 "$db" --text $bad
    grep -q "^pulley-report: bad .*'${bad#* }'" "$tmp/err" || fail "$bad: $(cat "$tmp/err")"
done
report 0 --help
grep -q '^usage: pulley-report' "$tmp/out" || fail "--help"
tail -3 "$tmp/out" | grep -q '^Exit status: 0 on success' || fail "--help ends without the exit statuses"
for v in --version -V; do
    report 0 $v
    grep -q '^pulley-report [0-9][0-9.]* (reads profile schema versions 1 to [0-9]*, any ISA stored in them)$' "$tmp/out" ||
        fail "$v: $(cat "$tmp/out")"
done
report 0 -h
grep -q '^Exit status: 0 on success' "$tmp/out" || fail "-h: $(cat "$tmp/out")"
echo "report_cli: ok"
