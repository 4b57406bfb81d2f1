#!/bin/sh
# make_set.sh - choose a set of macro ops from exact profiles of benchmark
# programs, as bench/macros/suite16.macros was made:
#
#   sh bench/macros/make_set.sh [-k K] [-o FILE] [-b BUILD_DIR] [-x OPTIONS] [PROGRAM...]
#
# Each PROGRAM (default: every benchmark of bench/, as build/bench/NAME.wasm)
# runs once on the baseline counting VM (pulley-collect --exact: exact
# counts, so the same programs give the same set), into its own profile
# database; then pulley-ngrams chooses K macro ops (default 16) over all
# of them and writes them to FILE (default bench/macros/suiteK.macros);
# -x passes more pulley-ngrams options (say "--max-n 8").
# The databases are kept in a temporary directory, removed at the end.
set -eu
prog=make_set.sh
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh"
k=16 out="" build=$top/build extra=""
usage() {
    echo "usage: sh bench/macros/make_set.sh [-k K] [-o FILE] [-b BUILD_DIR] [-x OPTIONS] [PROGRAM...]" >&2
    exit 2
}
while getopts k:o:b:x:h opt; do
    case $opt in
    k) k=$OPTARG ;;
    o) out=$OPTARG ;;
    b) build=$OPTARG ;;
    x) extra=$OPTARG ;;
    h) usage_text; exit 0 ;;
    *) usage ;;
    esac
done
shift $((OPTIND - 1))
check_positive -k "$k"
[ -n "$out" ] || out=$here/suite$k.macros
collect=$build/bin/pulley-collect
ngrams=$build/bin/pulley-ngrams
need_built "$collect" "$ngrams"
if [ $# -eq 0 ]; then
    set --
    for c in "$top"/bench/*.c; do set -- "$@" "$(basename "$c" .c)"; done
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/profiles"
for name in "$@"; do
    wasm=$build/bench/$name.wasm
    [ -f "$wasm" ] || die "$wasm is missing"
    echo "$prog: profiling $name" >&2
    "$collect" --exact --no-fuse -o "$work/profiles/$name.db" --label "$name" -- "$wasm" \
        >/dev/null 2>"$work/$name.err" || { cat "$work/$name.err" >&2; exit 1; }
done
# Relative names, so that the command recorded in the file is the same
# on every machine.
cd "$work"
# shellcheck disable=SC2086 # the options are words
"$ngrams" --quiet --top "$k" --ngrams 0 $extra --emit-macros set.macros profiles/*.db >report.txt
cp set.macros "$out"
head -1 report.txt >&2
echo "$prog: wrote $out" >&2
