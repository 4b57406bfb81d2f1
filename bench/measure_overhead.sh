#!/bin/sh
# measure_overhead.sh - the cost of profiling: each bench/dispatch.sh
# workload and each C benchmark built for wasm32-wasi (BUILD_DIR/bench/*.wasm)
# on the plain VM (pulley-run) and under pulley-collect (the profiling
# build), the configurations one after the other for each program, RUNS
# rounds; prints median wall times, ratios, stored bytes per sample and
# what the sampler thread took of a core.
#
#   sh bench/measure_overhead.sh [-d DIR] BUILD_DIR [RUNS [STORE_BUILD_DIR]]
#
# (default 5 rounds).  -d DIR adds the programs of a directory laid out as
# bench/program_dir.sh says (bench/thirdparty/build.sh writes one: Lua,
# QuickJS, SQLite, ...), each with its NAME.args.  Each ratio is the median over the rounds of the
# ratio within a round.  The columns separate the costs:
#
#   plain s    pulley-run of BUILD_DIR: no hook.
#   store      (only with STORE_BUILD_DIR, a build configured with
#              -DPULLEY_PROFILE=ON, whose pulley-run has the pc store
#              where each run of instructions starts but no collector) / plain: the
#              store alone.
#   idle       pulley-collect -f 1 / plain: the store, plus the collector's
#              fixed costs (creating the database, registering the module,
#              writing functions and instructions, beside the program once
#              it runs, and the histogram at the end), the sampler waking
#              once a second.
#   prof s, ratio   pulley-collect at 10 kHz (HZ=... in the environment for
#              another rate), and its ratio to plain: everything.
#   sampler    prof / idle: what the sampler's wake-ups add.
#
# Every collector run writes a new database (opening one checks it, in
# time proportional to its size).  Two trivial programs (an empty
# WebAssembly program, fib 1) show the fixed costs alone; they are left out
# of the geometric means, and "net of fixed cost" subtracts their
# profiled-minus-plain median (of the same kind, .wasm or .pasm) from each
# profiled time.  Most of that cost (writing the functions and their
# instructions) runs beside a program that lasts long enough, so the net
# ratio is a lower bound, not an estimate.  The load average is printed
# before and after: on a busy machine wall times, and the sampler's cost
# (which depends on a core being free for it), are noisy.  The sampler's
# share of a core is its thread's CPU time over the run's wall time
# (runs.sampler_cpu_ns), over all profiled runs: most of it is what
# waking up 10 000 times a second costs the machine.
#
# A measurement, not a test: it asserts nothing.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$top/bench/lib.sh"
# shellcheck source=bench/program_dir.sh
. "$top/bench/program_dir.sh"
case ${1:-} in -h | --help) usage_text; exit 0 ;; esac
programs_dir=
case ${1:-} in -d) [ $# -ge 2 ] || usage_error "-d needs a directory"; programs_dir=$2; shift 2 ;; esac
case $# in 1 | 2 | 3) ;; *) usage_error "usage: sh bench/measure_overhead.sh [-d DIR] BUILD_DIR [RUNS [STORE_BUILD_DIR]]" ;; esac
[ -z "$programs_dir" ] || [ -d "$programs_dir" ] || usage_error "-d $programs_dir: no such directory"
case $programs_dir in *" "*) usage_error "-d $programs_dir: a directory without spaces, please" ;; esac
build=$1
runs=${2:-5}
store_build=${3:-}
hz=${HZ:-10000}
check_positive RUNS "$runs"
need_built "$build/bin/pulley-run" "$build/bin/pulley-collect"
need_commands sqlite3
if [ -n "$store_build" ] &&
  ! "$store_build/bin/pulley-run" -V 2>/dev/null | grep -Eq '[(, ]profile[,)]'; then
  usage_error "$store_build/bin/pulley-run is not a PULLEY_PROFILE build"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
workloads="fib.pasm fib 34
loops.pasm loops 7000
memory.pasm sieve 10000000
float.pasm leibniz 30000000
(fib-1) fib 1"
for wasm in "$build"/bench/*.wasm; do
  [ -f "$wasm" ] || continue
  case $wasm in
    */wasm_probe.wasm) workloads="$workloads
(empty-wasm) _start -" ;; # the build's toolchain probe: does nothing
    *) workloads="$workloads
$(basename "$wasm") _start -" ;;
  esac
done

for wasm in ${programs_dir:+"$programs_dir"/*.wasm}; do
  [ -f "$wasm" ] || continue
  workloads="$workloads
$(basename "$wasm") (dir) $programs_dir"
done

# time_it LABEL PROGRAM COMMAND...: append "PROGRAM LABEL microseconds" to the times.
time_it() {
  ti_label=$1 ti_program=$2
  shift 2
  timed "$@" >/dev/null 2>>"$tmp/stderr" || die "$ti_label run of $ti_program failed: $(tail -n 3 "$tmp/stderr")"
  echo "$ti_program $ti_label $timed_us" >>"$tmp/times"
}
# shellcheck disable=SC2086 # $invoke and $args are words
round() {
  echo "$workloads" | while read -r program fn args; do
    run=
    case $fn in "(dir)") run="program_run $args ${program%.wasm}" ;; esac
    case $program in
      *.wasm) path=$build/bench/$program invoke="" args="" ;;
      "(empty-wasm)") path=$build/bench/wasm_probe.wasm invoke="" args="" ;;
      "(fib-1)") path=$top/tests/programs/fib.pasm invoke="--invoke=$fn" ;;
      *) path=$top/tests/programs/$program invoke="--invoke=$fn" ;;
    esac
    [ -z "$run" ] || path=  # program_run appends the program and its arguments
    time_it plain "$program" $run "$build/bin/pulley-run" $invoke ${path:+"$path"} $args
    if [ -n "$store_build" ]; then
      time_it store "$program" $run "$store_build/bin/pulley-run" $invoke ${path:+"$path"} $args
    fi
    # A new database for every run: opening one checks its integrity,
    # which takes time in proportion to its size, so appending every run
    # to one database would make each run slower than the one before.
    rm -f "$tmp/run.db"
    time_it idle "$program" $run "$build/bin/pulley-collect" -f 1 -o "$tmp/run.db" \
      --label "$program" $invoke -- ${path:+"$path"} $args
    rm -f "$tmp/run.db"
    time_it profiled "$program" $run "$build/bin/pulley-collect" -f "$hz" -o "$tmp/run.db" \
      --label "$program" $invoke -- ${path:+"$path"} $args
    sqlite3 -separator ' ' "$tmp/run.db" "SELECT label, bytes_stored, samples_written,
      samples_taken, samples_dropped, ticks_missed, sampled_ns, coalesce(sampler_cpu_ns, 0),
      duration_ns FROM runs" >>"$tmp/runs"
  done
}
echo "profiled at $hz Hz; load average before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
interleave "$runs" round
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
awk -v store="${store_build:+1}" "$stats_awk"'
  { t[$1, $2, ++n[$1, $2]] = $3; if (!($1 in seen)) { seen[$1] = 1; order[++np] = $1 } }
  # The median time of program p under configuration m, in seconds.
  function time_of(p, m,   i, a) {
    for (i = 1; i <= n[p, m]; i++) a[i] = t[p, m, i]
    return median(a, n[p, m]) / 1e6 # 0 when never timed
  }
  # The median over the rounds of (time under m) / (time under base): each
  # round runs the configurations one after the other, so a ratio within a
  # round is less disturbed by the machine getting busier or quieter.
  function ratio(p, m, base, minus,   i, a) {
    for (i = 1; i <= n[p, m]; i++) a[i] = (t[p, m, i] - minus) / t[p, base, i]
    return median(a, n[p, m]) + 0
  }
  function trivial(p) { return p ~ /^\(/ }
  function kind(p) { return p ~ /wasm/ ? "wasm" : "pasm" }
  END {
    fixed["wasm"] = time_of("(empty-wasm)", "profiled") - time_of("(empty-wasm)", "plain")
    fixed["pasm"] = time_of("(fib-1)", "profiled") - time_of("(fib-1)", "plain")
    printf "%-13s %9s %7s %7s %9s %7s %8s\n", "program", "plain s", store ? "store" : "", "idle",
      "prof s", "ratio", "sampler"
    for (q = 1; q <= np; q++) {
      p = order[q]
      a = time_of(p, "plain"); b = time_of(p, "profiled")
      s = store ? ratio(p, "store", "plain") : 0
      d = ratio(p, "idle", "plain"); r = ratio(p, "profiled", "plain"); w = ratio(p, "profiled", "idle")
      printf "%-13s %9.3f %7s %7.3f %9.3f %7.3f %8.3f\n", p, a, store ? sprintf("%.3f", s) : "",
        d, b, r, w
      if (trivial(p)) continue
      c++; gd += log(d); gb += log(r); gw += log(w)
      if (store) gs += log(s)
      net = ratio(p, "profiled", "plain", 1e6 * fixed[kind(p)]); gn += log(net > 0 ? net : 1e-9)
    }
    printf "geometric mean ratio: %.3f (store %s, idle %.3f, sampler %.3f; net of fixed cost, a lower bound, %.3f)\n",
      exp(gb / c), store ? sprintf("%.3f", exp(gs / c)) : "not measured", exp(gd / c), exp(gw / c),
      exp(gn / c)
    printf "fixed cost of the collector: %.1f ms (.wasm), %.1f ms (.pasm)\n", 1000 * fixed["wasm"],
      1000 * fixed["pasm"]
  }' "$tmp/times"
awk '
  $1 !~ /^\(/ { b[$1] += $2; w[$1] += $3; B += $2; W += $3 }
  { taken += $4; dropped += $5; missed += $6; ns += $7; cpu += $8; wall += $9 }
  END {
    line = sprintf("bytes per sample: %.3f (%d samples, %d bytes); per program:", B / W, W, B)
    for (p in b) line = line sprintf(" %s %.3f,", p, b[p] / w[p])
    print substr(line, 1, length(line) - 1)
    printf "dropped: %d, ticks missed: %d, achieved rate: %.0f Hz\n", dropped, missed, 1e9 * taken / ns
    printf "sampler thread: %.2f%% of a core (%.2f us of CPU a sample)\n", 100 * cpu / wall,
      cpu / 1e3 / taken
  }' "$tmp/runs"
