#!/bin/sh
# held_out.sh - what macro ops save on programs they were not chosen from,
# from exact profiles alone (no VM is built, nothing is timed): for each
# K and each objective, leave-one-out over the programs (choose K ops on
# every profile but one, evaluate them on that one), the geometric mean
# over the held-out programs of the dispatches removed and, where the
# profiles store their build's costs, of the time predicted saved.
#
#   sh bench/held_out.sh [-k "8 16 32 64 128 256 512"] [-o "shared total time"]
#                        [-x OPTIONS] PROFILE.db...
#
# Each PROFILE.db holds the runs of one program (as bench/closed_loop.sh
# and bench/macros/make_set.sh make them: pulley-collect --exact, with
# --costs FILE from bench/op_costs.sh for the time columns).  The
# dispatches removed are what the fusion pass then removes (closed_loop.sh
# measures them equal); the time is the model's (analyze/README.md,
# "Time"), which closed_loop.sh compares with wall time.  -x passes more
# pulley-ngrams options ("--max-n 8").  Prints one table, a row per K and
# objective.
set -eu
prog=held_out.sh
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
ngrams=${PULLEY_NGRAMS:-$top/build/bin/pulley-ngrams}
ks="8 16 32 64 128 256 512" objectives="shared total time" extra=""
usage() {
    echo "usage: sh bench/held_out.sh [-k \"K...\"] [-o \"OBJECTIVE...\"] [-x OPTIONS] PROFILE.db..." >&2
    exit 2
}
while getopts k:o:x:h opt; do
    case $opt in
    k) ks=$OPTARG ;;
    o) objectives=$OPTARG ;;
    x) extra=$OPTARG ;;
    h) usage_text; exit 0 ;;
    *) usage ;;
    esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || { echo "$prog: needs at least two profiles" >&2; usage; }
for k in $ks; do check_positive -k "$k"; done
need_built "$ngrams"
for db in "$@"; do [ -f "$db" ] || die "$db: no such file"; done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

printf '%5s %-8s %9s %14s %14s %12s\n' K objective programs "dispatches %" "time pred %" "ops chosen"
for k in $ks; do
    for o in $objectives; do
        : >"$work/rows"
        for held in "$@"; do
            train="" # every profile but the one held out
            for db in "$@"; do [ "$db" = "$held" ] || train="$train $db"; done
            # shellcheck disable=SC2086 # lists of words
            if ! "$ngrams" --quiet --top "$k" --ngrams 0 --objective "$o" $extra \
                --emit-macros "$work/set.macros" $train >"$work/report" 2>"$work/err"; then
                grep -q "stores no costs" "$work/err" && continue 2 # no time model: no row
                cat "$work/err" >&2
                exit 1
            fi
            chosen=$(grep -c '^macro ' "$work/set.macros" || true)
            "$ngrams" "$held" --evaluate "$work/set.macros" --format json >"$work/eval" 2>"$work/err" ||
                { cat "$work/err" >&2; exit 1; }
            removed=$(sed -n 's/^  "removed": \([-0-9.e]*\),$/\1/p' "$work/eval")
            time=$(sed -n 's/^  "time_saved": \([-0-9.e]*\),$/\1/p' "$work/eval")
            echo "$removed ${time:--} $chosen" >>"$work/rows"
        done
        awk -v k="$k" -v o="$o" '
            { n++; ld += log(1 - $1 / 100); c += $3
              if ($2 == "-") untimed = 1; else lt += log(1 - $2 / 100) }
            END {
                if (!n) exit
                printf "%5d %-8s %9d %14.2f %14s %12.1f\n", k, o, n, 100 * (1 - exp(ld / n)),
                       untimed ? "-" : sprintf("%.2f", 100 * (1 - exp(lt / n))), c / n
            }' "$work/rows"
    done
done
