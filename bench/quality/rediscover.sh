#!/bin/sh
# rediscover.sh - does pulley-ngrams, on the baseline ISA and the benchmark
# suite, propose the fusion families that Pulley's maintainers found by hand
# (compare + branch, constant + arithmetic, bounds check + load/store,
# address + load/store, frame push + register saves, register restores +
# frame pop, argument moves + call, multiply + add)?
#
# Collects every benchmark (or the ones named) with pulley-collect into one
# database twice, once counting every instruction (--exact) and once
# sampling, asks pulley-ngrams for its top K proposals of each, and
# classifies them with families.py by the opcode classes of the build's
# table (pulley-dis --opcodes): a table family -> in the baseline?, best
# rank from exact counts, from samples, the best macro op; then the
# proposals in no family.  A measurement for the notes, not a test: it
# asserts nothing about which families are found.
set -eu
prog=rediscover.sh

usage() {
    cat <<'USAGE'
usage: sh bench/quality/rediscover.sh [OPTIONS] [PROGRAM[:SCALE]...]

Collect the wasm benchmarks (default: all of bench/*.c) into one profile
database, exact counts and samples, take pulley-ngrams' top K proposals of
each and report which of Pulley's hand-made fusion families they contain
(families.py, by the opcode classes of pulley-dis --opcodes).

  -B DIR     the build directory: sets -b DIR/bench, -c, -n and -d to its
             bin/ tools (default build)
  -b DIR     the .wasm benchmarks (default build/bench; env BENCH_DIR)
  -c PATH    pulley-collect (default build/bin/pulley-collect; env PULLEY_COLLECT)
  -n PATH    pulley-ngrams (default build/bin/pulley-ngrams; env PULLEY_NGRAMS)
  -d PATH    pulley-dis, for the opcode table (default build/bin/pulley-dis;
             env PULLEY_DIS)
  -o DIR     keep the database (suite.db, replaced), opcodes.json,
             exact.json, sampled.json (the proposals), families.json and
             report.txt in DIR (created; default: a temporary directory,
             removed)
  -i DB      analyse this existing database (its exact runs and its sampled
             runs, a column each where it has them); collect nothing
  -l LABEL   the label of the runs (default rediscover; with -i: all runs
             unless given)
  -k K       proposals to classify per column (default 20)
  -f HZ      sample rate of the sampled runs (default 10000)
  -C COSTS   collect with the build's handler costs (pulley-collect --costs;
             COSTS as bench/op_costs.sh writes it): the report then gives
             the time each family's best op is predicted to save
  -x         exact counts only (no sampled column)
  -s         samples only (no exact column)
  -h, --help this help

Environment: PYTHON (default /usr/bin/python3).  Exit status: 0; 1 when a
tool is missing or a collection fails; 2 for bad usage; 3 when a family of
families.py names an opcode class that the build's table does not have.
USAGE
}

case ${1:-} in -h | --help) usage; exit 0 ;; esac
. "$(dirname "$0")/common.sh"
dis=${PULLEY_DIS:-$top/build/bin/pulley-dis}

out_dir= in_db= label= k=20 hz=10000 kinds="exact sampled" costs=
while getopts B:b:c:n:d:o:i:l:k:f:C:xsh opt; do
    case $opt in
        B) bench=$OPTARG/bench collect=$OPTARG/bin/pulley-collect
           ngrams=$OPTARG/bin/pulley-ngrams dis=$OPTARG/bin/pulley-dis ;;
        b) bench=$OPTARG ;;
        c) collect=$OPTARG ;;
        n) ngrams=$OPTARG ;;
        d) dis=$OPTARG ;;
        o) out_dir=$OPTARG ;;
        i) in_db=$OPTARG ;;
        l) label=$OPTARG ;;
        k) k=$OPTARG ;;
        f) hz=$OPTARG ;;
        C) costs=$OPTARG ;;
        x) [ "$kinds" != sampled ] || usage_error "-x and -s leave nothing"; kinds=exact ;;
        s) [ "$kinds" != exact ] || usage_error "-x and -s leave nothing"; kinds=sampled ;;
        h) usage; exit 0 ;;
        *) echo "Try '$prog --help'." >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
check_positive "-k K" "$k"
check_positive "-f HZ" "$hz"
if [ -n "$in_db" ]; then
    [ $# -eq 0 ] || usage_error "-i DB analyses a database: name no programs"
    [ "$kinds" = "exact sampled" ] || usage_error "-i DB collects nothing: -x and -s make no sense with it"
    [ -z "$costs" ] || usage_error "-i DB collects nothing: -C makes no sense with it"
    [ -f "$in_db" ] || die "no database $in_db"
    skip_collect=1
fi
check_tools
[ -z "$costs" ] || [ -f "$costs" ] || die "no costs file $costs (make it: sh bench/op_costs.sh -b BUILD -o $costs)"
[ -x "$dis" ] || die "no pulley-dis at $dis (build it: cmake --build build, or set PULLEY_DIS or -d)"

make_work_dir "$out_dir"
"$dis" --opcodes >"$work/opcodes.json" || die "$dis --opcodes failed"

if [ -n "$in_db" ]; then
    db=$in_db
    runs=
    [ -z "$label" ] || runs=label:$label,
    # a column for each kind of run the database has
    kinds=$("$py" - "$db" "$label" <<'PY'
import sqlite3, sys
con = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
label = sys.argv[2]
rows = con.execute("SELECT DISTINCT exact FROM runs" + (" WHERE label = ?" if label else ""),
                   (label,) if label else ()).fetchall()
print(" ".join(k for k, e in (("exact", 1), ("sampled", 0)) if (e,) in rows))
PY
    ) || die "cannot read the runs of $db"
    [ -n "$kinds" ] || die "no runs${label:+ labelled $label} in $db"
else
    label=${label:-rediscover}
    runs=label:$label,
    db=$work/suite.db
    rm -f "$db" "$db-wal" "$db-shm" # a database left in -o DIR by an earlier run
    [ $# -gt 0 ] || set -- $(default_programs)
    for spec in "$@"; do
        check_program "${spec%%:*}"
    done
    for kind in $kinds; do
        i=0
        for spec in "$@"; do
            i=$((i + 1))
            name=${spec%%:*} scale=
            [ "$name" = "$spec" ] || scale=${spec#*:}
            echo "$prog: collecting $name${scale:+ $scale} ($i of $#), $kind" >&2
            if [ "$kind" = exact ]; then
                collect_one "$db" "$name" "$scale" "$label" --exact ${costs:+--costs "$costs"}
            else
                collect_one "$db" "$name" "$scale" "$label" --freq "$hz" ${costs:+--costs "$costs"}
            fi
        done
    done
fi

columns=
for kind in $kinds; do
    status=0
    "$ngrams" "$db" --runs "${runs}kind:$kind" --top "$k" --format json --quiet \
        >"$work/$kind.json" 2>"$work/ngrams.err" || status=$?
    [ "$status" -eq 0 ] || die "pulley-ngrams ($kind) exited with status $status: $(cat "$work/ngrams.err")"
    columns="$columns $kind=$work/$kind.json"
done

mode=
[ -n "$in_db" ] || case $kinds in *sampled*) mode="; samples at $hz Hz" ;; esac
status=0
# shellcheck disable=SC2086 # the columns are words
"$py" "$here/families.py" --opcodes "$work/opcodes.json" --top "$k" --format json $columns \
    >"$work/families.json" || status=$?
[ "$status" -eq 0 ] || exit "$status"
{
    echo "Database: $db (runs: ${runs:-all,}" | sed 's/,$/; /' | tr -d '\n'
    echo "kinds: $(echo $kinds | sed 's/ /, /')$mode)"
    # shellcheck disable=SC2086
    "$py" "$here/families.py" --opcodes "$work/opcodes.json" --top "$k" $columns
} >"$work/report.txt"
cat "$work/report.txt"
[ -z "$out_dir" ] || echo "$prog: database, proposals, families.json and report.txt in $work" >&2
