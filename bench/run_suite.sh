#!/bin/sh
# run_suite.sh - time the benchmark programs natively and under the VM:
# runs every program RUNS times each way (interleaved, so machine noise hits
# both alike), checks that the VM prints what the native build prints, and
# prints a table of median wall times, the VM/native ratio per program and
# the geometric mean of the ratios.  Raw times and the table go to CSV files
# in bench/results/.
#
#   sh bench/run_suite.sh [-n RUNS] [-r PULLEY_RUN] [-b BENCH_DIR] [PROGRAM[:SCALE]...]
#
#   -n RUNS        runs per program and mode (default 5)
#   -r PULLEY_RUN  the VM's runner (default build/bin/pulley-run)
#   -b BENCH_DIR   where the native programs and the .wasm files are
#                  (default build/bench)
#   PROGRAM:SCALE  run only these programs, optionally with a scale argument
#                  (default: every program, at its default scale)
#
# A program that fails under the VM (or prints something else than its
# native build) gets its reason in the table instead of a time; the others
# still run.  This is a benchmark, not a test: it asserts nothing.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
prog=run_suite
# shellcheck source=bench/lib.sh
. "$top/bench/lib.sh"
runs=5
vm=$top/build/bin/pulley-run
dir=$top/build/bench
while getopts n:r:b:h opt; do
  case $opt in
    n) runs=$OPTARG ;;
    r) vm=$OPTARG ;;
    b) dir=$OPTARG ;;
    h) usage_text; exit 0 ;;
    *) usage_text >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
check_positive RUNS "$runs"

if [ $# -eq 0 ]; then # every program in bench/, one .c file each
  for src in "$top"/bench/*.c; do
    set -- "$@" "$(basename "$src" .c)"
  done
fi

vm_ok=1
if [ ! -x "$vm" ]; then
  echo "run_suite: no VM runner at $vm: timing the native builds only" >&2
  vm_ok=0
fi

results=$top/bench/results
mkdir -p "$results"
csv=$results/suite.csv
table=$results/suite-summary.csv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# run_once MODE NAME SCALE RUN: time one run, append a CSV row, keep its
# output in $tmp/NAME.MODE.out and .err.
# Sets status to the program's exit status and returns it.
run_once() {
  r_mode=$1 r_name=$2 r_scale=$3 r_run=$4
  if [ "$r_mode" = native ]; then
    set -- "$dir/$r_name"
  else
    set -- "$vm" "$dir/$r_name.wasm"
  fi
  [ -n "$r_scale" ] && set -- "$@" "$r_scale"
  timed "$@" >"$tmp/$r_name.$r_mode.out" 2>"$tmp/$r_name.$r_mode.err" </dev/null
  status=$timed_status
  echo "$r_name,$r_scale,$r_mode,$r_run,$status,$(awk -v us="$timed_us" 'BEGIN { printf "%.4f", us / 1e6 }')" >>"$csv"
  return $status
}

echo "program,scale,mode,run,status,seconds" >"$csv"
: >"$tmp/notes"
: >"$tmp/order"
for spec in "$@"; do
  name=${spec%%:*} scale=
  [ "$name" != "$spec" ] && scale=${spec#*:}
  echo "$name,$scale" >>"$tmp/order"
  if [ ! -x "$dir/$name" ]; then
    echo "$name,no native build at $dir/$name (build it: cmake --build build)" >>"$tmp/notes"
    continue
  fi
  vm_note=
  [ "$vm_ok" = 1 ] || vm_note="no VM runner"
  [ -n "$vm_note" ] || [ -f "$dir/$name.wasm" ] || vm_note="no $name.wasm"
  echo "running $name${scale:+ $scale}..." >&2
  i=0
  while [ "$i" -lt "$runs" ]; do
    i=$((i + 1))
    if ! run_once native "$name" "$scale" "$i"; then
      echo "$name,native build failed (status $status)" >>"$tmp/notes"
      break
    fi
    [ -z "$vm_note" ] || continue
    if ! run_once vm "$name" "$scale" "$i"; then
      reason=$(head -n 1 "$tmp/$name.vm.err" | sed "s|$dir/||g" | tr ',' ';' | cut -c1-72)
      vm_note="VM failed (status $status${reason:+: $reason})"
    elif ! cmp -s "$tmp/$name.native.out" "$tmp/$name.vm.out"; then
      vm_note="VM output differs from native"
    fi
  done
  [ -z "$vm_note" ] || echo "$name,$vm_note" >>"$tmp/notes"
done

# Medians per program and mode; a note replaces the VM time.
awk -F, -v runs="$runs" -v table="$table" -v notes="$tmp/notes" -v programs="$tmp/order" "$stats_awk"'
  BEGIN {
    while ((getline line < notes) > 0) { k = index(line, ","); note[substr(line, 1, k - 1)] = substr(line, k + 1) }
    while ((getline line < programs) > 0) { k = index(line, ","); order[++np] = substr(line, 1, k - 1); scale[order[np]] = substr(line, k + 1) }
  }
  NR > 1 && $5 == 0 { key = $1 SUBSEP $3; t[key, ++n[key]] = $6 }
  function med(key,   i, a) {
    if (!n[key]) return -1
    for (i = 1; i <= n[key]; i++) a[i] = t[key, i]
    return median(a, n[key])
  }
  END {
    printf "%-12s %11s %11s %8s\n", "program", "native (s)", "VM (s)", "VM/native"
    print "program,scale,native_median_s,vm_median_s,ratio,note" > table
    for (p = 1; p <= np; p++) {
      name = order[p]
      nat = med(name SUBSEP "native"); v = med(name SUBSEP "vm")
      if (name in note) {
        printf "%-12s %11s   %s\n", name, nat < 0 ? "-" : sprintf("%.4f", nat), note[name]
        printf "%s,%s,%s,,,%s\n", name, scale[name], nat < 0 ? "" : nat, note[name] > table
      } else {
        ratio = v / nat
        printf "%-12s %11.4f %11.4f %8.1fx\n", name, nat, v, ratio
        printf "%s,%s,%.4f,%.4f,%.2f,\n", name, scale[name], nat, v, ratio > table
        logsum += log(ratio); nr++
      }
    }
    if (nr > 0)
      printf "geometric mean of VM/native over %d programs: %.1fx (median of %d runs)\n", nr, exp(logsum / nr), runs
    else
      printf "no VM times: the geometric mean needs at least one program that ran under the VM\n"
  }' "$csv"
echo "raw times: $csv; table: $table" >&2
