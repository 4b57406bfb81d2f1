#!/bin/sh
# rediscover.sh - does pulley-ngrams, on the baseline ISA and the benchmark
# suite, propose the fusion families that Pulley's maintainers found by hand
# (compare + branch, constant + arithmetic, bounds check + load/store, frame
# push + register saves, argument moves + call, multiply + add)?
#
# Collects every benchmark (or the ones named) with pulley-collect into one
# database, labelled, asks pulley-ngrams for its top K proposals as JSON, and
# classifies them with families.py: a table family -> found, best rank,
# sequence, the pair that matched, all ranks; then the proposals that belong
# to no family.  A measurement for the notes, not a test: it asserts nothing
# about which families are found.
set -eu
prog=rediscover.sh

usage() {
    cat <<'EOF'
usage: sh bench/quality/rediscover.sh [OPTIONS] [PROGRAM[:SCALE]...]

Collect the wasm benchmarks (default: all of bench/*.c) into one profile
database, take pulley-ngrams' top K proposals and report which of Pulley's
hand-made fusion families they contain.

  -b DIR     the .wasm benchmarks (default build/bench; env BENCH_DIR)
  -c PATH    pulley-collect (default build/bin/pulley-collect; env PULLEY_COLLECT)
  -n PATH    pulley-ngrams (default build/bin/pulley-ngrams; env PULLEY_NGRAMS)
  -o DIR     keep the database (suite.db, replaced), proposals.json and
             report.txt in DIR (created; default: a temporary directory,
             removed)
  -i DB      analyse this existing database; collect nothing
  -l LABEL   the label of the runs (default rediscover; with -i: all runs
             unless given)
  -k K       proposals to classify (default 20)
  -f HZ      sample rate (default 10000)
  -x         collect exact counts (pulley-collect --exact) instead of samples
  -h, --help this help

Environment: PYTHON (default /usr/bin/python3).  Exit status: 0; 1 when a
tool is missing or a collection fails; 2 for bad usage; 3 when an opcode
class of families.py matches no opcode of the database's ISA.
EOF
}

case ${1:-} in -h | --help) usage; exit 0 ;; esac
. "$(dirname "$0")/common.sh"

out_dir= in_db= label= k=20 hz=10000 exact=
while getopts b:c:n:o:i:l:k:f:xh opt; do
    case $opt in
        b) bench=$OPTARG ;;
        c) collect=$OPTARG ;;
        n) ngrams=$OPTARG ;;
        o) out_dir=$OPTARG ;;
        i) in_db=$OPTARG ;;
        l) label=$OPTARG ;;
        k) k=$OPTARG ;;
        f) hz=$OPTARG ;;
        x) exact=--exact ;;
        h) usage; exit 0 ;;
        *) echo "Try '$prog --help'." >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
check_positive "-k K" "$k"
check_positive "-f HZ" "$hz"
if [ -n "$in_db" ]; then
    [ $# -eq 0 ] || usage_error "-i DB analyses a database: name no programs"
    [ -z "$exact" ] || usage_error "-i DB collects nothing: -x makes no sense with it"
    [ -f "$in_db" ] || die "no database $in_db"
    skip_collect=1
fi
check_tools

make_work_dir "$out_dir"

if [ -n "$in_db" ]; then
    db=$in_db
    runs=all
    [ -z "$label" ] || runs=label:$label
else
    label=${label:-rediscover}
    runs=label:$label
    db=$work/suite.db
    rm -f "$db" "$db-wal" "$db-shm" # a database left in -o DIR by an earlier run
    [ $# -gt 0 ] || set -- $(default_programs)
    for spec in "$@"; do
        check_program "${spec%%:*}"
    done
    i=0
    for spec in "$@"; do
        i=$((i + 1))
        name=${spec%%:*} scale=
        [ "$name" = "$spec" ] || scale=${spec#*:}
        echo "$prog: collecting $name${scale:+ $scale} ($i of $#)${exact:+, exact counts}" >&2
        collect_one "$db" "$name" "$scale" "$label" --freq "$hz" $exact
    done
fi

status=0
"$ngrams" "$db" --runs "$runs" --top "$k" --format json --quiet \
    >"$work/proposals.json" 2>"$work/ngrams.err" || status=$?
[ "$status" -eq 0 ] || die "pulley-ngrams exited with status $status: $(cat "$work/ngrams.err")"

mode=
if [ -z "$in_db" ]; then
    mode=", sampled at $hz Hz"
    [ -z "$exact" ] || mode=", exact counts"
fi
{
    echo "Database: $db (runs: $runs$mode)"
    "$py" "$here/families.py" --top "$k" --db "$db" "$work/proposals.json" || status=$?
} >"$work/report.txt"
cat "$work/report.txt"
[ -z "$out_dir" ] || echo "$prog: database, proposals.json and report.txt in $work" >&2
exit "$status"
