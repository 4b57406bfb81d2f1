#!/bin/sh
# rediscover_cpython.sh - does pulley-ngrams, mining CPython 3.11 profiles
# taken with the CPython adapter (adapters/cpython, libpulleyprof), propose
# the five superinstructions CPython's developers chose from opcode-pair
# counts (LOAD_FAST__LOAD_FAST, LOAD_FAST__LOAD_CONST, STORE_FAST__LOAD_FAST,
# STORE_FAST__STORE_FAST, LOAD_CONST__LOAD_FAST)?
#
# Runs the pure-Python workloads of bench/cpython (bench/cpython/workloads:
# programs written here and standard-library modules) under `python3 -m pulleyprof`, once counting
# every instruction and once sampling, into two databases; asks
# pulley-ngrams for its top K pair proposals (--max-n 2) from each, with
# the adaptive opcodes (those CPython specializes in place, which no fixed
# superinstruction can hold) left out as by default and mined too
# (--include-adaptive), and prints a table: each superinstruction's rank
# among the proposals and among the hottest pairs, exact and sampled, then
# the proposals CPython did not add.  A measurement for the notes, not a test: it asserts nothing
# about what is found.
set -eu
prog=rediscover_cpython.sh

usage() {
    cat <<'USAGE'
usage: sh bench/quality/rediscover_cpython.sh [OPTIONS]

  -B DIR     the build directory (default build): its adapters/cpython holds
             the adapter and bin/pulley-ngrams the miner
  -o DIR     keep exact.db, sampled.db and the JSON in DIR (default: a
             temporary directory, removed)
  -k K       proposals and pairs to rank (default 10)
  -f HZ      sample rate of the sampled runs (default 10000)
  -h, --help this help

Environment: PYTHON (default: python3 on PATH; CPython 3.11).  Exit
status: 0; 1 when the adapter or a workload fails; 2 for bad usage.
USAGE
}

case ${1:-} in -h | --help) usage; exit 0 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh"
build=$top/build out_dir= k=10 hz=10000
while getopts B:o:k:f:h opt; do
    case $opt in
        B) build=$OPTARG ;;
        o) out_dir=$OPTARG ;;
        k) k=$OPTARG ;;
        f) hz=$OPTARG ;;
        h) usage; exit 0 ;;
        *) echo "Try '$prog --help'." >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage_error "no operands expected: $*"
check_positive "-k K" "$k"
check_positive "-f HZ" "$hz"
py=${PYTHON:-python3}
adapter=$build/adapters/cpython
ngrams=$build/bin/pulley-ngrams
[ -f "$adapter/pulleyprof/__main__.py" ] ||
    die "no CPython adapter in $adapter (build with python3-dev installed)"
need_built "$ngrams"

if [ -n "$out_dir" ]; then
    mkdir -p "$out_dir"
    work=$(cd "$out_dir" && pwd)
    rm -f "$work/exact.db" "$work/sampled.db"
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT INT TERM
fi

run() { # DB MODE SCRIPT ARGS...
    db=$1 mode=$2
    shift 2
    echo "$prog: $mode $*" >&2
    PYTHONPATH=$adapter "$py" -m pulleyprof -o "$db" --hz "$hz" $mode --label cpython "$@" \
        </dev/null >/dev/null 2>"$work/last.err" ||
        die "failed: $*: $(cat "$work/last.err")"
}
for db_mode in "exact.db --exact" "sampled.db "; do
    name=${db_mode%%.db*} mode=${db_mode#* }
    db=$work/$name.db
    grep -v -e '^#' -e '^$' "$top/bench/cpython/workloads" > "$work/workloads"
    while read -r w script args; do
        run "$db" "$mode" --name "$w" "$top/bench/cpython/$script" $args
    done < "$work/workloads"
    "$ngrams" "$db" --max-n 2 --top "$k" --ngrams "$k" --format json --quiet \
        > "$work/$name.fixed.json"
    "$ngrams" "$db" --max-n 2 --top "$k" --ngrams "$k" --format json --quiet --include-adaptive \
        > "$work/$name.any.json"
done
"$py" "$here/rediscover_cpython.py" "$work" "$k"
