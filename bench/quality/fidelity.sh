#!/bin/sh
# fidelity.sh - are proposals computed from samples as good as proposals
# computed from exact counts?
#
# For each benchmark (default: all), into its own database: a sampled run
# (label "sampled", 10 kHz) and an exact run (pulley-collect --exact, label
# "exact") of the same program and scale; pulley-ngrams' top K on each
# (the sampled ones also measured on the exact run: --train sampled --test
# exact); fidelity.py prints, per benchmark, the overlap of the two top-K
# lists (matched by opcode sequence), Spearman's rho and Kendall's tau-b over
# the common proposals and over their union (missing ranks count as K+1),
# and what each list removes from the exact run.  A measurement, not a test.
set -eu
prog=fidelity.sh

usage() {
    cat <<'EOF'
usage: sh bench/quality/fidelity.sh [OPTIONS] [PROGRAM[:SCALE]...]

For each wasm benchmark (default: all of bench/*.c) collect a sampled run
and an exact run, take pulley-ngrams' top K proposals of each, and report
their overlap and rank correlations.

  -b DIR     the .wasm benchmarks (default build/bench; env BENCH_DIR)
  -c PATH    pulley-collect (default build/bin/pulley-collect; env PULLEY_COLLECT)
  -n PATH    pulley-ngrams (default build/bin/pulley-ngrams; env PULLEY_NGRAMS)
  -o DIR     keep each benchmark's profile.db, sampled.json, exact.json in
             DIR/NAME/ and the table in DIR/report.txt (default: a temporary
             directory, removed)
  -k K       proposals compared (default 20)
  -f HZ      sample rate of the sampled runs (default 10000)
  -h, --help this help

Environment: PYTHON (default /usr/bin/python3).  Exit status: 0; 1 when a
tool is missing or a collection or analysis fails; 2 for bad usage.
EOF
}

case ${1:-} in -h | --help) usage; exit 0 ;; esac
. "$(dirname "$0")/common.sh"

out_dir= k=20 hz=10000
while getopts b:c:n:o:k:f:h opt; do
    case $opt in
        b) bench=$OPTARG ;;
        c) collect=$OPTARG ;;
        n) ngrams=$OPTARG ;;
        o) out_dir=$OPTARG ;;
        k) k=$OPTARG ;;
        f) hz=$OPTARG ;;
        h) usage; exit 0 ;;
        *) echo "Try '$prog --help'." >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
check_positive "-k K" "$k"
check_positive "-f HZ" "$hz"
check_tools

make_work_dir "$out_dir"

[ $# -gt 0 ] || set -- $(default_programs)
for spec in "$@"; do
    check_program "${spec%%:*}"
done

# ngrams_json OUT ARGS...: pulley-ngrams ARGS --format json into OUT.
ngrams_json() {
    n_out=$1
    shift
    n_status=0
    "$ngrams" "$@" --top "$k" --format json --quiet >"$n_out" 2>"$n_out.err" || n_status=$?
    [ "$n_status" -eq 0 ] || die "pulley-ngrams $* exited with status $n_status: $(cat "$n_out.err")"
    rm -f "$n_out.err"
}

dirs=
i=0
for spec in "$@"; do
    i=$((i + 1))
    name=${spec%%:*} scale=
    [ "$name" = "$spec" ] || scale=${spec#*:}
    d=$work/$name
    mkdir -p "$d"
    rm -f "$d/profile.db" "$d/profile.db-wal" "$d/profile.db-shm"
    echo "$prog: $name${scale:+ $scale} ($i of $#): sampled run, exact run" >&2
    collect_one "$d/profile.db" "$name" "$scale" sampled --freq "$hz"
    collect_one "$d/profile.db" "$name" "$scale" exact --freq "$hz" --exact
    ngrams_json "$d/sampled.json" "$d/profile.db" --train sampled --test exact
    ngrams_json "$d/exact.json" "$d/profile.db" --runs label:exact
    dirs="$dirs $name"
done

cd "$work"
status=0
"$py" "$here/fidelity.py" --top "$k" $dirs >"$work/report.txt" || status=$?
cat "$work/report.txt"
[ -z "$out_dir" ] || echo "$prog: databases, proposals and report.txt in $work" >&2
exit "$status"
