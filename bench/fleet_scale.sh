#!/bin/sh
# fleet_scale.sh - the tools on a fleet-sized profile collection: about
# RUNS runs of the suite's 14 programs (half sampled, half counted), once
# in one database and once spread over FILES databases, made by
# bench/fleet/make_fleet.py from a seed of real runs (each program
# collected once sampled and once --exact by this build).  Times
# pulley-ngrams, pulley-ngrams --evaluate and pulley-report (--text and
# HTML) on both layouts (median wall time of N runs, peak resident memory),
# and a collect of a small program into an empty database against a collect
# into (a copy of) the big one.  Prints a table and the issue's goals.
#
#   sh bench/fleet_scale.sh [-b BUILD_DIR] [-B OTHER_BIN_DIR] [-n N] [-r RUNS]
#                           [-k FILES] [-d DIR] [-m SET.macros] [-f]
#
#   -b BUILD_DIR     the build whose tools run (default build)
#   -B OTHER_BIN_DIR also time these tools (an older build's bin/), in the
#                    same rounds, side by side
#   -n N             timed runs of each tool (default 3)
#   -r RUNS          runs in the collection, rounded up to whole copies of
#                    the seed (default 1000; 2000 makes about 1.1 GB)
#   -k FILES         databases of the spread layout (default 100)
#   -d DIR           where the databases go (default BUILD_DIR/bench/fleet);
#                    ones that exist are reused unless -f
#   -m SET.macros    the set --evaluate scores (default bench/macros/suite16.macros)
#   -f               make the databases again
#
# Peak memory is /usr/bin/time's %M (maximum resident set).  Raw figures go
# to bench/results/fleet_scale.csv.  This is a benchmark, not a test: it
# asserts nothing, and the machine should be otherwise idle while it runs.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
prog=fleet_scale
# shellcheck source=bench/lib.sh
. "$top/bench/lib.sh"
build=$top/build
other=
n=3
runs=1000
files=100
dir=
set_file=$top/bench/macros/suite16.macros
force=0
while getopts b:B:n:r:k:d:m:fh opt; do
  case $opt in
    b) build=$OPTARG ;;
    B) other=$OPTARG ;;
    n) n=$OPTARG ;;
    r) runs=$OPTARG ;;
    k) files=$OPTARG ;;
    d) dir=$OPTARG ;;
    m) set_file=$OPTARG ;;
    f) force=1 ;;
    h) usage_text; exit 0 ;;
    *) usage_text >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage_error "unexpected argument '$1'"
check_positive N "$n"
check_positive RUNS "$runs"
check_positive FILES "$files"
[ -n "$dir" ] || dir=$build/bench/fleet
[ -r "$set_file" ] || die "$set_file: cannot read the macro set"
bin=$build/bin
need_built "$bin/pulley-collect" "$bin/pulley-collect-exact" "$bin/pulley-ngrams" "$bin/pulley-report"
[ -z "$other" ] || need_built "$other/pulley-ngrams" "$other/pulley-report" "$other/pulley-collect"
[ -x /usr/bin/time ] && /usr/bin/time -f %M -o /dev/null true 2>/dev/null ||
  die "/usr/bin/time (GNU time) is needed for peak memory: apt-get install time"
py=$(command -v python3) || die "python3 is needed (bench/fleet/make_fleet.py)"
programs="bitops json lz77 mandel matmul minivm nbody pidigits recurse sha256 sort stream strings trees"
for p in $programs; do
  [ -s "$build/bench/$p.wasm" ] || die "$build/bench/$p.wasm is missing (build the toolkit first)"
done

mkdir -p "$dir" "$top/bench/results"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# ---- the collection ------------------------------------------------------------
seed=$dir/seed.db one=$dir/one-$runs.db many=$dir/many-$runs-$files
if [ "$force" = 1 ]; then
  rm -rf "$seed" "$one" "$many"
fi
if [ ! -s "$seed" ]; then
  echo "$prog: collecting the seed: 14 programs, sampled and counted..." >&2
  for p in $programs; do
    for mode in "" --exact; do
      # shellcheck disable=SC2086 # mode is one word or none
      "$bin/pulley-collect" $mode -o "$seed.part" "$build/bench/$p.wasm" >/dev/null 2>"$tmp/collect.err" ||
        { cat "$tmp/collect.err" >&2; rm -f "$seed.part"; die "collecting $p failed"; }
    done
  done
  mv "$seed.part" "$seed"
fi
if [ ! -s "$one" ]; then
  echo "$prog: making $one..." >&2
  "$py" "$top/bench/fleet/make_fleet.py" "$seed" "$runs" "$one" || die "make_fleet failed"
fi
if [ ! -d "$many" ]; then
  echo "$prog: making $many/ ($files files)..." >&2
  "$py" "$top/bench/fleet/make_fleet.py" "$seed" "$runs" "$many.part" "$files" || die "make_fleet failed"
  mv "$many.part" "$many"
fi
size_mb() { du -sm "$1" | cut -f1; }

# ---- timing --------------------------------------------------------------------
# Each case: NAME TOOL-NAME ARGS... ("@DB" is the layout's database or databases).
cases() {
  echo "ngrams pulley-ngrams --quiet @DB"
  echo "evaluate pulley-ngrams --quiet --evaluate $set_file @DB"
  echo "report-text pulley-report --quiet --text @DB"
  echo "report-html pulley-report --quiet -o $tmp/report.html @DB"
}
echo "layout,variant,case,round,seconds,peak_kb,status" >"$top/bench/results/fleet_scale.csv"
csv=$top/bench/results/fleet_scale.csv
variants="new:$bin"
[ -z "$other" ] || variants="$variants other:$other"

one_round() {
  round=$1
  for layout in one many; do
    if [ "$layout" = one ]; then dbs=$one; else dbs=$(ls "$many"/*.db); fi
    cases | while read -r name tool args; do
      for v in $variants; do
        label=${v%%:*} vbin=${v#*:}
        # shellcheck disable=SC2086 # args and dbs are words
        set -- $(echo "$args" | sed "s|@DB|$(echo $dbs)|")
        timed /usr/bin/time -f %M -o "$tmp/peak" "$vbin/$tool" "$@" >/dev/null 2>"$tmp/err" </dev/null
        kb=$(tail -n 1 "$tmp/peak")
        case $kb in *[!0-9]* | '') kb=0 ;; esac
        secs=$(awk -v us="$timed_us" 'BEGIN { printf "%.3f", us / 1e6 }')
        [ "$timed_status" = 0 ] || echo "$prog: $label $name on $layout: exit $timed_status: $(grep -v '^Command' "$tmp/err" | head -n 1)" >&2
        echo "$layout,$label,$name,$round,$secs,$kb,$timed_status" >>"$csv"
      done
    done
  done
}
interleave "$n" one_round

# A collect into an empty database against one into a copy of the big one
# (appending to the same copy each round: it grows by one small run).
cp "$one" "$tmp/big.db" || die "cannot copy $one"
collect_round() {
  rm -f "$tmp/empty.db"
  for target in empty big; do
    timed "$bin/pulley-collect" -o "$tmp/$target.db" "$build/bench/bitops.wasm" 3 >/dev/null 2>"$tmp/err" </dev/null
    [ "$timed_status" = 0 ] || echo "$prog: collect into $target: exit $timed_status: $(head -n 1 "$tmp/err")" >&2
    echo "collect,new,into-$target,$1,$(awk -v us="$timed_us" 'BEGIN { printf "%.3f", us / 1e6 }'),0,$timed_status" >>"$csv"
  done
}
interleave $((n * 2 + 1)) collect_round

# ---- the table -----------------------------------------------------------------
echo
echo "Fleet collection: $(size_mb "$one") MB in one database ($one),"
echo "$(size_mb "$many") MB over $files databases; median of $n runs (collect: $((n * 2 + 1))), peak resident memory"
echo
awk -F, -v mb="$(size_mb "$one")" "$stats_awk"'
  NR == 1 || $7 != 0 { if (NR > 1) failed[$1 "," $2 "," $3] = 1; next }
  { k = $1 "," $2 "," $3; t[k, ++nt[k]] = $5; m[k, ++nm[k]] = $6; if (!(k in seen)) { seen[k] = 1; order[++no] = k } }
  END {
    printf "%-7s %-8s %-12s %10s %9s\n", "layout", "build", "tool", "median s", "peak MB"
    for (i = 1; i <= no; i++) {
      k = order[i]; split(k, f, ",")
      for (j = 1; j <= nt[k]; j++) { a[j] = t[k, j]; b[j] = m[k, j] }
      mt = median(a, nt[k]); mm = median(b, nm[k])
      printf "%-7s %-8s %-12s %10.3f %9s%s\n", f[1], f[2], f[3], mt, f[1] == "collect" ? "-" : sprintf("%.0f", mm / 1024), (k in failed) ? "  (a run failed)" : ""
      med[k] = mt; peak[k] = mm
    }
    printf "\n"
    g = med["one,new,ngrams"]; pm = peak["one,new,ngrams"]
    if (g != "")
      printf "goal, pulley-ngrams on 1 GB of profiles in at most 10 s and 300 MB: %s (%d MB: %.2f s, %.0f MB)\n", mb < 1000 ? "not measured, the database is smaller (-r 2000)" : (g <= 10 && pm <= 300 * 1024) ? "met" : "MISSED", mb, g, pm / 1024
    r = med["one,new,report-text"]; rm = peak["one,new,report-text"]
    if (r != "")
      printf "goal, pulley-report --text likewise: %s (%.2f s, %.0f MB)\n", mb < 1000 ? "not measured" : (r <= 10 && rm <= 300 * 1024) ? "met" : "MISSED", r, rm / 1024
    e = med["collect,new,into-empty"]; b2 = med["collect,new,into-big"]
    if (e > 0)
      printf "goal, a collect into the big database within 1.2x of one into an empty one: %s (%.3f s against %.3f s: %.2fx)\n", b2 / e <= 1.2 ? "met" : "MISSED", b2, e, b2 / e
  }
' "$csv"
