# shellcheck shell=sh
# common.sh - what rediscover.sh and fidelity.sh share (sourced, not run).
#
# Sets, from the environment or the defaults under the source tree:
#   top        the source tree
#   collect    $PULLEY_COLLECT, else build/bin/pulley-collect
#   ngrams     $PULLEY_NGRAMS,  else build/bin/pulley-ngrams
#   bench      $BENCH_DIR,      else build/bench (the .wasm programs)
#   py         $PYTHON, else /usr/bin/python3, else python3 on PATH
#   here       this directory (the Python scripts)
# Functions (and bench/lib.sh's: die, usage_error, check_positive, ...):
#   check_tools                 the collector, pulley-ngrams and python exist
#   default_programs            print every benchmark name (bench/*.c)
#   check_program NAME          $bench/NAME.wasm exists
#   collect_one DB NAME SCALE LABEL [OPTION...]
#                               pulley-collect one benchmark into DB; its
#                               output goes to $work/NAME.LABEL.out/.err
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh"
collect=${PULLEY_COLLECT:-$top/build/bin/pulley-collect}
ngrams=${PULLEY_NGRAMS:-$top/build/bin/pulley-ngrams}
bench=${BENCH_DIR:-$top/build/bench}
if [ -n "${PYTHON:-}" ]; then
    py=$PYTHON
elif [ -x /usr/bin/python3 ]; then
    py=/usr/bin/python3
else
    py=$(command -v python3 || true)
fi

check_tools() {
    [ -x "$collect" ] || [ -n "${skip_collect:-}" ] ||
        die "no pulley-collect at $collect (build it: cmake --build build, or set PULLEY_COLLECT or -c)"
    [ -x "$ngrams" ] ||
        die "no pulley-ngrams at $ngrams (build it: cmake --build build, or set PULLEY_NGRAMS or -n)"
    [ -n "$py" ] && command -v "$py" >/dev/null 2>&1 ||
        die "no python3 (install Debian's python3, or set PYTHON)"
}

default_programs() {
    for src in "$top"/bench/*.c; do
        basename "$src" .c
    done
}

check_program() {
    [ -f "$bench/$1.wasm" ] ||
        die "no $bench/$1.wasm (build the benchmarks: cmake --build build --target bench_wasm, or set BENCH_DIR or -b)"
}

collect_one() {
    c_db=$1 c_name=$2 c_scale=$3 c_label=$4
    shift 4
    status=0
    "$collect" -o "$c_db" --label "$c_label" "$@" -- "$bench/$c_name.wasm" ${c_scale:+"$c_scale"} \
        >"$work/$c_name.$c_label.out" 2>"$work/$c_name.$c_label.err" </dev/null || status=$?
    [ "$status" -eq 0 ] ||
        die "pulley-collect $* $c_name.wasm ${c_scale} exited with status $status: $(tail -n 3 "$work/$c_name.$c_label.err")"
}

# make_work_dir [DIR]: set $work to DIR (created) or to a temporary
# directory removed at exit.
make_work_dir() {
    if [ -n "$1" ]; then
        mkdir -p "$1" || die "cannot create $1"
        work=$(cd "$1" && pwd)
    else
        work=$(mktemp -d)
        trap 'rm -rf "$work"' EXIT INT TERM
    fi
}
