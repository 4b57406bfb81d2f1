#!/bin/sh
# closed_loop.sh - bench/closed_loop.sh end to end, at its smallest: two
# benchmarks, K = 2, one timing round; leave-one-out over the two, a
# split that tests one of them, and a program outside the suite (-d: the
# build's wasm probe, with two arguments, one holding a blank).  The
# script itself checks every run's output against bench/expected, or a
# -d program's against its first baseline run.  Here:
#
# - it exits 0 and prints a table row for every held-out program of every
#   fold, and a summary line per fold design;
# - every held-out program's measured dispatch reduction is the predicted
#   one (the fusion pass and --evaluate share one cover);
# - every macro VM it built is configured as the build it is compared
#   with: the same compiler, build type and dispatch mode;
# - the -d program ran with its arguments (the probe prints the square
#   root of its argc);
# - given the build's handler costs (bench/op_costs.sh, on two small
#   programs), every row predicts the time saved, and so does the
#   summary of every fold design.
#
# Timings are printed by the script, never checked here.
# Environment: TOP (the source tree), BUILD (this build directory).
set -eu
: "${TOP:?}" "${BUILD:?}"
. "$(dirname "$0")/lib.sh"

programs="pidigits mandel"
work=$tmp/work
mkdir "$tmp/other"
cp "$BUILD/bench/wasm_probe.wasm" "$tmp/other/probe.wasm"
printf 'one\ntwo words\n' >"$tmp/other/probe.args"
expect_status 0 sh "$TOP/bench/op_costs.sh" -b "$BUILD" -o "$tmp/costs.tsv" mandel:160 pidigits:1
expect_status 0 sh "$TOP/bench/closed_loop.sh" -k 2 -n 1 -p "$programs" -s mandel \
    -d "$tmp/other" -b "$BUILD" -w "$work" -c "$tmp/costs.tsv"
cp "$tmp/out" "$tmp/table"
table=$tmp/table

# Rows: "program predict% measure% diff ..." under each fold's title.
rows_under() { # rows_under TITLE_PREFIX: the program rows of that table
    awk -v t="$1" 'index($0, t) == 1 { on = 1; next } on && NF == 0 { on = 0 }
                   on && $1 != "program" && $1 != "geomean" { print }' "$table"
}
loo=$(rows_under "K = 2, leave-one-out")
split=$(rows_under "K = 2, split by kind")
other=$(rows_under "K = 2, programs of ")
for p in $programs; do
    echo "$loo" | grep -q "^$p " || fail "no leave-one-out row for $p: $(cat "$table")"
done
[ "$(echo "$split" | awk '{print $1}')" = mandel ] || fail "the split should test mandel alone: $split"
[ "$(echo "$other" | awk '{print $1}')" = probe ] || fail "no row for the -d program: $(cat "$table")"
grep -qx '1.732051' "$work/times/probe.reference" || fail "probe ran with other arguments"
printf '%s\n%s\n%s\n' "$loo" "$split" "$other" | awk '$4 != "0.00" { bad = 1; print "predicted " $2 "% but measured " $3 "% for " $1 }
    END { exit bad }' >"$tmp/diff" || fail "prediction and measurement disagree: $(cat "$tmp/diff")"
# Every row and summary ends with the time predicted (a number), measured
# and their difference.
printf '%s\n%s\n%s\n' "$loo" "$split" "$other" | awk 'NF != 14 || $12 !~ /^-?[0-9]+\.[0-9][0-9]$/ { bad = 1; print }
    END { exit bad }' >"$tmp/notime" || fail "rows without a predicted time: $(cat "$tmp/notime")"
grep -E '^ +2 (loo|split|ext) ' "$table" | awk '$12 !~ /^-?[0-9]+\.[0-9][0-9]$/ { bad = 1; print }
    END { exit bad }' >"$tmp/notime" || fail "summaries without a predicted time: $(cat "$tmp/notime")"
grep -Eq '^ +2 loo +2 ' "$table" || fail "no leave-one-out summary: $(cat "$table")"
grep -Eq '^ +2 split +1 ' "$table" || fail "no split summary: $(cat "$table")"
grep -Eq '^ +2 ext +1 ' "$table" || fail "no summary of the -d programs: $(cat "$table")"

# Each macro VM is configured as BUILD is.
cache_value() { sed -n "s/^$2:[A-Z]*=//p" "$1/CMakeCache.txt"; }
vms=0
for vm in "$work"/vms/*; do
    for key in CMAKE_C_COMPILER CMAKE_BUILD_TYPE PULLEY_DISPATCH; do
        [ "$(cache_value "$vm" $key)" = "$(cache_value "$BUILD" $key)" ] ||
            fail "$vm: $key is '$(cache_value "$vm" $key)', the baseline's '$(cache_value "$BUILD" $key)'"
    done
    [ -n "$(cache_value "$vm" PULLEY_MACROS)" ] || fail "$vm is no macro build"
    vms=$((vms + 1))
done
[ "$vms" -eq 4 ] || fail "expected 4 macro VMs (two leave-one-out folds, the split, -d), found $vms"
echo "ok: closed loop of $programs, K = 2, $vms macro VMs"
