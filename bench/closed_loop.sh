#!/bin/sh
# closed_loop.sh - what macro ops chosen by the toolkit are worth on
# programs the choice never saw: predicted against measured dispatches,
# and wall time, baseline VM against macro VM.
#
#   sh bench/closed_loop.sh [-k "8 16 32 64"] [-n RUNS] [-b BUILD_DIR]
#                           [-w WORK_DIR] [-p "PROGRAM ..."] [-s "PROGRAM ..."]
#                           [-d DIR] [-c COSTS.tsv] [-x OPTIONS] [-L LAYOUTS]
#
# For each K and each fold - leave-one-out (choose on every benchmark but
# one, test on that one), one split by kind of program (choose on the
# others, test on the -s programs, default the floating-point ones), and
# with -d the programs outside the suite (choose on every benchmark, test
# on each DIR/NAME.wasm: its arguments in NAME.args, one per line; output
# lines that vary between runs, such as timings, matched by the extended
# regular expression in NAME.ignore):
#
#   1. exact profiles of every program on the baseline (pulley-collect
#      --exact --no-fuse), one database each, made once, with the
#      baseline build's costs (-c COSTS.tsv; by default bench/op_costs.sh
#      measures them once where it can: a tail-dispatch build and
#      valgrind), so that the time each set saves is predicted too;
#   2. pulley-ngrams --top K --emit-macros over the fold's training
#      profiles (-x: more pulley-ngrams options, say "--objective time");
#   3. a macro VM built with that set (cmake -DPULLEY_MACROS, pulley-run
#      and the counting pulley-collect-exact only), configured as BUILD_DIR
#      is (compiler, flags, build type, dispatch mode);
#   4. predicted: the share of the held-out program's dispatches the set
#      removes (pulley-ngrams PROGRAM.db --evaluate SET, on its baseline
#      profile), and with costs the share of its time (analyze/README.md,
#      "Time"); measured: its exact dispatches on the macro VM's counting
#      build against those on the baseline's; code bytes likewise;
#   5. wall time: RUNS (default 5) rounds, interleaved - in each round every
#      program on the baseline and on each of its macro VMs, fused and, as
#      a control, unfused (--no-fuse: the baseline's code on the macro
#      VM's binary, so that a change of the binary's layout shows apart
#      from what the macro ops do) - every output checked against
#      bench/expected (a -d program's against its first baseline run);
#      medians and their ratios: time x = macro / baseline; unfused x =
#      unfused / baseline, the change of layout alone; ops x = macro /
#      unfused, what the macro ops do on one binary, the time saved that
#      the prediction is compared with (time: 100 (1 - ops x)).
#      The layout of a binary alone (where its code and data fall) moves
#      one program's time by several percent either way on this project's
#      machine, and by over 30% for a few programs with GCC's computed
#      goto: read one program's time x against its unfused x.
#      -L LAYOUTS (2 or more) measures every ratio over that many code
#      layouts: the baseline and each macro VM are built LAYOUTS times,
#      with seeds 1..LAYOUTS (cmake -DPULLEY_LAYOUT_SEED: LLD shuffles the
#      order of every function), each ratio taken between the builds of
#      one seed; a table gives its median over the layouts and a 95%
#      interval (Student's t on the logarithms), so that a gain is told
#      apart from where the code happened to fall.
#
# Prints a table per K and fold design and a summary, with geometric means
# of the after/before ratios.  Everything goes to WORK_DIR (default a new
# temporary directory, kept; its builds take about 10 MB each).
set -eu
prog=closed_loop.sh
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=bench/program_dir.sh
. "$here/program_dir.sh"
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
ks="8 16 32 64" runs=5 build=$top/build work="" programs="" split="mandel matmul nbody stream"
ext_dir="" costs="" extra="" layouts=1
while getopts k:n:b:w:p:s:d:c:x:L:h opt; do
    case $opt in
    k) ks=$OPTARG ;;
    n) runs=$OPTARG ;;
    b) build=$OPTARG ;;
    w) work=$OPTARG ;;
    p) programs=$OPTARG ;;
    s) split=$OPTARG ;;
    d) ext_dir=$OPTARG ;;
    c) costs=$OPTARG ;;
    x) extra=$OPTARG ;;
    L) layouts=$OPTARG ;;
    h) usage_text; exit 0 ;;
    *) usage_text >&2; exit 2 ;;
    esac
done
check_positive -n "$runs"
check_positive -L "$layouts"
# The layouts: seed 0 is the build as configured (no -L).
seeds=0
[ "$layouts" -gt 1 ] && seeds=$(seq "$layouts")
for k in $ks; do check_positive -k "$k"; done
build=$(cd "$build" && pwd)
need_built "$build/bin/pulley-run" "$build/bin/pulley-collect" \
    "$build/bin/pulley-collect-exact" "$build/bin/pulley-ngrams"
need_commands cmake sqlite3 awk
if [ -z "$programs" ]; then
    for c in "$top"/bench/*.c; do programs="$programs $(basename "$c" .c)"; done
fi
for p in $programs; do
    [ -f "$build/bench/$p.wasm" ] || { echo "$prog: $build/bench/$p.wasm is missing" >&2; exit 1; }
done
ext_programs=""
if [ -n "$ext_dir" ]; then
    [ -d "$ext_dir" ] || { echo "$prog: -d $ext_dir: no such directory" >&2; exit 2; }
    ext_dir=$(cd "$ext_dir" && pwd)
    for w in "$ext_dir"/*.wasm; do
        [ -f "$w" ] || continue
        p=$(basename "$w" .wasm)
        case $p in *[!A-Za-z0-9_.-]*) echo "$prog: $w: a program's name takes letters, digits, '_', '.' and '-'" >&2; exit 2 ;; esac
        for q in $programs; do
            [ "$p" != "$q" ] || { echo "$prog: $w has the name of a benchmark" >&2; exit 2; }
        done
        ext_programs="$ext_programs $p"
    done
    [ -n "$ext_programs" ] || { echo "$prog: no .wasm programs in $ext_dir" >&2; exit 1; }
fi
[ -n "$work" ] || work=$(mktemp -d /tmp/closed_loop.XXXXXX)
mkdir -p "$work/profiles" "$work/sets" "$work/vms" "$work/measured" "$work/times"
work=$(cd "$work" && pwd)
log=$work/log
echo "$prog: working in $work" >&2
step() { echo "$prog: $*" >&2; }

is_external() { case " $ext_programs " in *" $1 "*) return 0 ;; esac; return 1; }
# run_program PROGRAM COMMAND...: COMMAND with PROGRAM's module and
# arguments appended (a benchmark has none).
run_program() {
    p=$1
    shift
    if is_external "$p"; then rp_dir=$ext_dir; else rp_dir=$build/bench; fi
    program_run "$rp_dir" "$p" "$@"
}

in_list() { # in_list WORD LIST...
    w=$1
    shift
    for x in "$@"; do [ "$x" = "$w" ] && return 0; done
    return 1
}

# ---- 1. baseline exact profiles, with the build's costs -------------------
if [ -z "$costs" ] && [ ! -f "$work/costs.tsv" ]; then
    step "measuring the baseline's handler costs (bench/op_costs.sh)"
    sh "$here/op_costs.sh" -b "$build" -o "$work/costs.tsv" 2>>"$log" ||
        { rm -f "$work/costs.tsv"; step "no costs (see $log): time is not predicted"; }
fi
[ -n "$costs" ] || { [ -f "$work/costs.tsv" ] && costs=$work/costs.tsv; }
for p in $programs $ext_programs; do
    db=$work/profiles/$p.db
    [ -f "$db" ] && continue
    step "profiling $p (exact, baseline)"
    run_program "$p" "$build/bin/pulley-collect" --exact --no-fuse ${costs:+--costs "$costs"} \
        -o "$db" --label "$p" -- >/dev/null 2>>"$log" ||
        { echo "$prog: profiling $p failed (see $log)" >&2; exit 1; }
done

# The folds: "loo-P" tests P, trained on the others; "split" tests the
# -s programs, trained on the rest.
folds=""
for p in $programs; do folds="$folds loo-$p"; done
split_test=""
for p in $split; do in_list "$p" $programs && split_test="$split_test $p"; done
[ -n "$split_test" ] && folds="$folds split"
[ -n "$ext_programs" ] && folds="$folds ext"
fold_tests() { # the programs fold $1 is tested on
    case $1 in
    loo-*) echo "${1#loo-}" ;;
    split) echo "$split_test" ;;
    ext) echo "$ext_programs" ;;
    esac
}
fold_trains() {
    t=$(fold_tests "$1")
    for p in $programs; do
        # shellcheck disable=SC2086
        in_list "$p" $t || printf '%s ' "$work/profiles/$p.db"
    done
}

# ---- 2, 3. sets and macro VMs --------------------------------------------
# A macro VM is configured as the baseline build is (compiler, flags, build
# type, dispatch mode), so that the two differ only in their macro ops.
cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
base_cc=$(cache_value CMAKE_C_COMPILER) base_flags=$(cache_value CMAKE_C_FLAGS)
base_type=$(cache_value CMAKE_BUILD_TYPE) base_dispatch=$(cache_value PULLEY_DISPATCH)
# configure_like DIR TARGETS CMAKE_ARGS...: a build configured as BUILD_DIR is.
configure_like() {
    build_variant "$1" "$2" -DCMAKE_C_COMPILER="$base_cc" -DCMAKE_C_FLAGS="$base_flags" \
        -DCMAKE_BUILD_TYPE="$base_type" -DPULLEY_DISPATCH="$base_dispatch" "$@" ||
        die "building $1 failed (see $log)"
}
# base_run SEED, vm_dir K FOLD SEED: the binaries of a layout.
base_run() { if [ "$1" = 0 ]; then echo "$build/bin/pulley-run"; else echo "$work/base-s$1/bin/pulley-run"; fi; }
vm_dir() { if [ "$3" = 0 ]; then echo "$work/vms/k$1-$2"; else echo "$work/vms/k$1-$2-s$3"; fi; }
for s in $seeds; do
    [ "$s" = 0 ] || [ -x "$(base_run "$s")" ] && continue
    step "building the baseline in layout $s"
    configure_like "$work/base-s$s" pulley-run -DPULLEY_LAYOUT_SEED="$s"
done
first_seed=$(echo "$seeds" | head -1)
for k in $ks; do
    for f in $folds; do
        set_file=$work/sets/k$k-$f.macros
        if [ ! -f "$set_file" ]; then
            step "K=$k $f: choosing"
            # shellcheck disable=SC2046,SC2086 # the lists are words
            "$build/bin/pulley-ngrams" --quiet --top "$k" --ngrams 0 $extra \
                --emit-macros "$set_file" $(fold_trains "$f") >/dev/null 2>>"$log" ||
                { echo "$prog: pulley-ngrams failed for K=$k $f (see $log)" >&2; exit 1; }
        fi
        # The counting build (dispatches do not depend on the layout) in
        # the first layout only.
        for s in $seeds; do
            vm=$(vm_dir "$k" "$f" "$s") targets=pulley-run seed_arg=""
            [ "$s" = "$first_seed" ] && targets="pulley-run pulley-collect-exact"
            [ "$s" = 0 ] || seed_arg=-DPULLEY_LAYOUT_SEED=$s
            [ -x "$vm/bin/pulley-run" ] && { [ "$s" != "$first_seed" ] || [ -x "$vm/bin/pulley-collect-exact" ]; } && continue
            step "K=$k $f: building the macro VM${seed_arg:+ in layout $s}"
            # shellcheck disable=SC2086 # empty or one word
            configure_like "$vm" "$targets" -DPULLEY_MACROS="$set_file" $seed_arg
        done
    done
done

# ---- 4. predicted and measured dispatches, code bytes ----------------------
dispatches() { sqlite3 "$1" "SELECT sum(count) FROM exec_counts"; }
code_bytes() { sqlite3 "$1" "SELECT sum(size) FROM functions"; }
results=$work/results.txt # k fold program predicted% base_disp macro_disp base_bytes macro_bytes time%
: >"$results"
for k in $ks; do
    for f in $folds; do
        set_file=$work/sets/k$k-$f.macros vm=$(vm_dir "$k" "$f" "$first_seed")
        for p in $(fold_tests "$f"); do
            base_db=$work/profiles/$p.db mdb=$work/measured/k$k-$f-$p.db
            # The benchmark's row: removed %, and time saved % where predicted.
            predicted=$("$build/bin/pulley-ngrams" "$base_db" --evaluate "$set_file" --format csv |
                awk -F, 'NR == 2 {print $4, (NF >= 5 ? $5 : "-")}')
            predicted_time=${predicted#* } predicted=${predicted% *}
            if [ ! -f "$mdb" ]; then
                step "K=$k $f: counting $p on the macro VM"
                run_program "$p" "$vm/bin/pulley-collect-exact" -o "$mdb" -- \
                    >/dev/null 2>>"$log" || { echo "$prog: counting $p on $vm failed" >&2; exit 1; }
            fi
            echo "$k $f $p $predicted $(dispatches "$base_db") $(dispatches "$mdb")" \
                 "$(code_bytes "$base_db") $(code_bytes "$mdb") $predicted_time" >>"$results"
        done
    done
done

# ---- 5. wall time, interleaved ---------------------------------------------
time_run() { # time_run VARIANT_FILE PROGRAM RUN_BINARY [OPTION...]
    file=$1 p=$2
    shift 2
    out=$work/times/out
    timed run_program "$p" "$@" >"$out" 2>&1 || die "$* $p failed"
    if is_external "$p"; then
        program_filter "$ext_dir" "$p" "$out"
        expected=$work/times/$p.reference
        [ -f "$expected" ] || cp "$out" "$expected" # the first run is the baseline's
    else
        expected=$top/bench/expected/$p.txt
    fi
    cmp -s "$out" "$expected" || { echo "$prog: $* $p printed something else than $expected" >&2; exit 1; }
    echo "$timed_us" >>"$file"
}
time_round() {
    for p in $programs $ext_programs; do
        for s in $seeds; do
            time_run "$work/times/base-$p.s$s.us" "$p" "$(base_run "$s")"
            for k in $ks; do
                for f in $folds; do
                    # shellcheck disable=SC2046
                    in_list "$p" $(fold_tests "$f") || continue
                    vm_run=$(vm_dir "$k" "$f" "$s")/bin/pulley-run
                    time_run "$work/times/k$k-$f-$p.s$s.us" "$p" "$vm_run"
                    time_run "$work/times/k$k-$f-$p.s$s.unfused.us" "$p" "$vm_run" --no-fuse
                done
            done
        done
    done
}
rm -f "$work"/times/*.us "$work"/times/*.reference
interleave "$runs" time_round
# ratios K FOLD PROGRAM: the base and macro times of layout 1 (seconds x
# 1e6), then per ratio (time x, unfused x, ops x) its median over the
# layouts and the ends of its 95% interval (the median itself three times
# with one layout).
ratios() {
    for s in $seeds; do
        echo "$(median "$work/times/base-$3.s$s.us") $(median "$work/times/k$1-$2-$3.s$s.us")" \
             "$(median "$work/times/k$1-$2-$3.s$s.unfused.us")"
    done | awk "$stats_awk"'
        { n++; if (n == 1) { b1 = $1; m1 = $2 }
          r[1, n] = $2 / $1; r[2, n] = $3 / $1; r[3, n] = $2 / $3 }
        END {
            printf "%s %s", b1, m1
            for (c = 1; c <= 3; c++) {
                for (i = 1; i <= n; i++) v[i] = r[c, i]
                log_interval(v, n) # sets ci_lo, ci_hi
                printf " %.6f %.6f %.6f", median(v, n), ci_lo, ci_hi
            }
            printf "\n"
        }'
}

# ---- the tables ------------------------------------------------------------
summary=$work/summary.txt
: >"$summary"
for k in $ks; do
    for design in loo split ext; do
        grep -q "^$k $design" "$results" || [ "$design" = loo ] || continue
        rows=$work/rows-k$k-$design.txt # kept: bench/curve.sh reads them
        : >"$rows"
        while read -r rk rf rp pred bd md bb mb pt; do
            [ "$rk" = "$k" ] || continue
            case $rf in "$design"*) ;; *) continue ;; esac
            # program pred% base_disp macro_disp base_B macro_B time% base macro
            # time_x lo hi unfused_x lo hi ops_x lo hi
            echo "$rp $pred $bd $md $bb $mb $pt $(ratios "$k" "$rf" "$rp")" >>"$rows"
        done <"$results"
        [ -s "$rows" ] || continue
        title="K = $k, leave-one-out (each program tested on ops chosen from the others)"
        [ "$design" = split ] && title="K = $k, split by kind (tested:$split_test; chosen on the others)"
        [ "$design" = ext ] && title="K = $k, programs of $ext_dir (chosen on every benchmark)"
        echo
        echo "$title"
        awk -v k="$k" -v design="$design" -v summary="$summary" -v layouts="$layouts" '
            BEGIN {
                printf "%-10s %9s %9s %7s %9s %9s %7s %9s %7s %9s %9s %8s %8s %7s", "program",
                       "predict%", "measure%", "diff pp", "base s", "macro s", "time x", "unfused x",
                       "ops x", "base B", "macro B", "pred t%", "meas t%", "diff pp"
                if (layouts > 1)
                    printf " %13s %13s %13s", "time x 95%", "unfused 95%", "ops x 95%"
                printf "\n"
            }
            {
                meas = 100 * (1 - $4 / $3); diff = $2 - meas
                if (diff < 0.005 && diff > -0.005) diff = 0
                if (diff < 0) adiff = -diff; else adiff = diff
                if (adiff > maxdiff) maxdiff = adiff
                tr = $10; ur = $13; or = $16; dr = $4 / $3
                printf "%-10s %9.2f %9.2f %7.2f %9.3f %9.3f %7.3f %9.3f %7.3f %9d %9d", $1, $2,
                       meas, diff, $8 / 1e6, $9 / 1e6, tr, ur, or, $5, $6
                # Time: predicted against what the ops did on one binary.
                if ($7 != "-" && $7 != "") {
                    tdiff = $7 - 100 * (1 - or); atd = tdiff < 0 ? -tdiff : tdiff
                    if (atd > maxtdiff) maxtdiff = atd
                    printf " %8.2f %8.2f %7.2f", $7, 100 * (1 - or), tdiff
                    lpt += log(1 - $7 / 100); nt++
                } else {
                    printf " %8s %8s %7s", "-", "-", "-"
                }
                if (layouts > 1)
                    printf " %6.3f-%-6.3f %6.3f-%-6.3f %6.3f-%-6.3f", $11, $12, $14, $15, $17, $18
                printf "\n"
                lt += log(tr); lu += log(ur); lo += log(or); ld += log(dr); lp += log(1 - $2 / 100); n++
                if (tr > worst) { worst = tr; worstp = $1 }
            }
            END {
                gt = exp(lt / n); gu = exp(lu / n); go = exp(lo / n); gd = exp(ld / n)
                gp = exp(lp / n)
                printf "%-10s %9.2f %9.2f %7s %9s %9s %7.3f %9.3f %7.3f", "geomean", 100 * (1 - gp),
                       100 * (1 - gd), "", "", "", gt, gu, go
                if (nt == n) {
                    gpt = exp(lpt / n)
                    printf " %9s %9s %8.2f %8.2f %7.2f", "", "", 100 * (1 - gpt), 100 * (1 - go),
                           100 * (1 - gpt) - 100 * (1 - go)
                    pt = sprintf("%.2f %.2f", 100 * (1 - gpt), maxtdiff)
                } else {
                    pt = "- -"
                }
                printf "\n"
                printf "%s %s %d %.2f %.2f %.2f %.3f %.3f %.3f %.3f %s %s\n", k, design, n,
                       100 * (1 - gp), 100 * (1 - gd), maxdiff, gt, gu, go, worst, worstp,
                       pt >> summary
            }' "$rows"
    done
done
echo
echo "Summary (geometric means over the held-out programs; time x = macro / baseline wall time;"
echo "unfused x = the macro VM's binary running the baseline's code (--no-fuse) / baseline;"
echo "ops x = macro / unfused, the macro ops' effect on one binary; pred t% = the time"
echo "predicted saved, against 100 (1 - ops x))"
awk 'BEGIN { printf "%4s %-6s %8s %10s %10s %12s %8s %9s %7s %14s %8s %13s\n", "K", "folds",
                    "programs", "predict%", "measure%", "max |diff| pp", "time x", "unfused x",
                    "ops x", "slowest x", "pred t%", "max |t diff|" }
     { printf "%4s %-6s %8d %10.2f %10.2f %12.2f %8.3f %9.3f %7.3f %8.3f %-5s %8s %13s\n", $1, $2,
              $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13 }' "$summary"
echo
echo "$runs runs per median, interleaved; work directory $work"
