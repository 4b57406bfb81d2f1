#!/bin/sh
# ngrams_scale.sh - how pulley-ngrams scales with the bytecode and with the
# samples: builds large profile databases with make_big_profile (synthetic
# translator-shaped bytecode, a skewed sample stream, written as
# pulley-collect writes a run), times pulley-ngrams on each (median wall
# time of RUNS runs) and measures its peak resident memory, and prints a
# table.  The goal (issue: "10 million samples over 1 MB of bytecode under
# 2 s; memory proportional to the bytecode, not to the samples") is checked
# in two lines after the table.
#
#   sh bench/ngrams_scale.sh [-b BUILD_DIR] [-t PULLEY_NGRAMS] [-n RUNS] [-d DB_DIR]
#                            [-s SEED] [-f] [BYTES:SAMPLES...]
#
#   -b BUILD_DIR   where make_big_profile, peak_rss and pulley-ngrams were
#                  built (default build)
#   -t PULLEY_NGRAMS  time this pulley-ngrams instead (an older build, say)
#   -n RUNS        timed runs per database (default 5)
#   -d DB_DIR      where the databases go (default BUILD_DIR/bench/ngrams_scale);
#                  one that exists is reused unless -f
#   -s SEED        make_big_profile's seed (default 1)
#   -f             rebuild the databases
#   BYTES:SAMPLES  the databases (default 1M:1M 256K:10M 1M:10M 4M:10M;
#                  K and M: 1024 for bytes, 1000 for samples)
#
# Peak memory comes from /usr/bin/time -f %M when it exists, else from
# peak_rss (getrusage).  Raw figures go to bench/results/ngrams_scale.csv.
# This is a benchmark, not a test: it asserts nothing, and the machine
# should be otherwise idle while it runs.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
prog=ngrams_scale
# shellcheck source=bench/lib.sh
. "$top/bench/lib.sh"
build=$top/build
runs=5
dbdir=
seed=1
force=0
ngrams=
while getopts b:t:n:d:s:fh opt; do
  case $opt in
    b) build=$OPTARG ;;
    t) ngrams=$OPTARG ;;
    n) runs=$OPTARG ;;
    d) dbdir=$OPTARG ;;
    s) seed=$OPTARG ;;
    f) force=1 ;;
    h) usage_text; exit 0 ;;
    *) usage_text >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
check_positive RUNS "$runs"
[ $# -eq 0 ] && set -- 1M:1M 256K:10M 1M:10M 4M:10M
[ -n "$dbdir" ] || dbdir=$build/bench/ngrams_scale

gen=$build/bench/make_big_profile
[ -n "$ngrams" ] || ngrams=$build/bin/pulley-ngrams
for tool in "$gen" "$ngrams"; do
  [ -x "$tool" ] || { echo "ngrams_scale: $tool is not built (cmake --build $build)" >&2; exit 1; }
done
if [ -x /usr/bin/time ] && /usr/bin/time -f %M -o /dev/null true 2>/dev/null; then
  peak() { out=$1; shift; /usr/bin/time -f %M -o "$out" "$@"; }
  peak_tool="/usr/bin/time -f %M"
elif [ -x "$build/bench/peak_rss" ]; then
  peak() { "$build/bench/peak_rss" -o "$@"; }
  peak_tool=peak_rss
else
  echo "ngrams_scale: neither /usr/bin/time nor $build/bench/peak_rss to measure memory" >&2
  exit 1
fi

mkdir -p "$dbdir" "$top/bench/results"
csv=$top/bench/results/ngrams_scale.csv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# build_db BYTES SAMPLES: make (or reuse) the database; sets db and info.
build_db() {
  db=$dbdir/big-$1-$2-s$seed.db
  info=$db.info
  if [ "$force" = 1 ] || [ ! -s "$db" ] || [ ! -s "$info" ]; then
    rm -f "$db" "$db-wal" "$db-shm" "$info"
    echo "ngrams_scale: building $(basename "$db")..." >&2
    if ! "$gen" -o "$db" --bytes "$1" --samples "$2" --seed "$seed" 2>"$tmp/gen.err"; then
      cat "$tmp/gen.err" >&2
      return 1
    fi
    grep 'instructions' "$tmp/gen.err" >"$info"
  fi
}

echo "bytes,samples,instructions,run,seconds,peak_kb" >"$csv"
: >"$tmp/rows"
for spec in "$@"; do
  bytes=${spec%%:*} samples=${spec#*:}
  case $spec in *:*) ;; *) echo "ngrams_scale: '$spec' is not BYTES:SAMPLES" >&2; exit 2 ;; esac
  build_db "$bytes" "$samples" || { echo "$spec FAILED(generator)" >>"$tmp/rows"; continue; }
  # "make_big_profile: F functions, I instructions, B bytes of code; S samples ..."
  insns=$(sed -n 's/.* \([0-9]*\) instructions, \([0-9]*\) bytes of code; \([0-9]*\) samples.*/\1/p' "$info")
  code=$(sed -n 's/.* instructions, \([0-9]*\) bytes of code;.*/\1/p' "$info")
  nsamples=$(sed -n 's/.* bytes of code; \([0-9]*\) samples.*/\1/p' "$info")
  : >"$tmp/times"
  : >"$tmp/peaks"
  failed=
  for r in $(seq 1 "$runs"); do
    if ! timed peak "$tmp/peak" "$ngrams" --quiet "$db" >/dev/null 2>"$tmp/ngrams.err" </dev/null; then
      failed="exit $timed_status: $(head -n 1 "$tmp/ngrams.err")"
      break
    fi
    secs=$(awk -v us="$timed_us" 'BEGIN { printf "%.4f", us / 1e6 }')
    kb=$(tail -n 1 "$tmp/peak")
    echo "$secs" >>"$tmp/times"
    echo "$kb" >>"$tmp/peaks"
    echo "$code,$nsamples,$insns,$r,$secs,$kb" >>"$csv"
  done
  if [ -n "$failed" ]; then
    echo "$spec FAILED($failed)" >>"$tmp/rows"
    continue
  fi
  echo "$spec $code $nsamples $insns $(median "$tmp/times") $(median "$tmp/peaks")" >>"$tmp/rows"
done

echo "$ngrams on make_big_profile databases (seed $seed): median of $runs runs, wall clock; peak memory by $peak_tool"
echo
awk '
  BEGIN { printf "%-12s %14s %12s %13s %9s %8s\n", "database", "bytecode bytes", "samples", "instructions", "median s", "peak MB" }
  $2 ~ /^FAILED/ { printf "%-12s %s\n", $1, substr($0, index($0, $2)); next }
  { printf "%-12s %14d %12d %13d %9.3f %8.1f\n", $1, $2, $3, $4, $5, $6 / 1024 }
' "$tmp/rows"
echo
# The goal, and memory against samples at the same bytecode size.
awk '
  $2 ~ /^FAILED/ { next }
  $1 == "1M:10M" { goal = $5 }
  { n[$2]++; if (!($2 in lo) || $3 < lo[$2]) { lo[$2] = $3; lo_kb[$2] = $6 }
    if (!($2 in hi) || $3 > hi[$2]) { hi[$2] = $3; hi_kb[$2] = $6 } }
  END {
    if (goal != "")
      printf "goal, 1 MB of bytecode and 10M samples under 2 s: %s (median %.3f s)\n", goal < 2 ? "met" : "MISSED", goal
    for (b in n) if (n[b] > 1 && hi[b] > lo[b]) {
      r = hi_kb[b] / lo_kb[b]
      printf "memory at %d bytes of bytecode: %.1f MB with %d samples, %.1f MB with %d (x%.2f for x%.0f samples): %s\n",
        b, lo_kb[b] / 1024, lo[b], hi_kb[b] / 1024, hi[b], r, hi[b] / lo[b],
        r < 1.25 ? "does not grow with the samples" : "GROWS with the samples"
    }
  }
' "$tmp/rows"
echo "raw figures: $csv"
