# shellcheck shell=sh
# lib.sh - what the bench and quality scripts share (sourced, not run):
#
#   . "$(dirname "$0")/lib.sh"        (from bench/; "../lib.sh" one level down)
#
# The sourcing script may set prog (its name in messages; default the
# basename of $0), top (the source tree, for build_variant) and log (a
# file for the output of builds; default: none).
#
# Timing
#   now_ns                     nanoseconds since the epoch (date +%s%N)
#   timed COMMAND...           run COMMAND (redirect it as you like); set
#                              timed_us to its wall time in microseconds and
#                              timed_status to its exit status, and return it
#   interleave ROUNDS FUNCTION call FUNCTION ROUND for ROUND = 1..ROUNDS, saying
#                              "PROG: round R of ROUNDS" on stderr: a round
#                              runs every variant once, so that the machine
#                              getting busier or quieter hits all alike
# Statistics (numbers one a line, from FILE or stdin)
#   median [FILE]              the middle value; for an even count the mean
#                              of the two middle ones; nothing when empty
#   geomean [FILE]             the geometric mean (positive numbers)
#   stats_awk                  (a variable) the same as awk functions, to put
#                              in front of an awk program: awk "$stats_awk"'...'
#       median(a, n)           of a[1..n], sorted in place; "" when n < 1
#       geomean(a, n)          of a[1..n]
#       t975(df)               Student's t, 0.975 quantile (1.96 past 30 df)
#       log_interval(a, n)     the geometric mean of a[1..n]; sets ci_lo and
#                              ci_hi, the ends of its 95% interval (Student's
#                              t on the logarithms; both the mean when n < 2)
# Building
#   build_variant DIR TARGETS CMAKE_ARGS...
#                              configure DIR from $top (Release unless
#                              CMAKE_ARGS say otherwise; CC picks the
#                              compiler) and build TARGETS in it ("" for
#                              all), cmake's output to $log or, without
#                              one, stdout dropped; fails as cmake does
# Usage
#   die MESSAGE...             "PROG: MESSAGE" on stderr, exit 1
#   usage_error MESSAGE...     the same and "Try 'PROG -h'.", exit 2
#   usage_text                 the script's opening comment (line 2 to the
#                              first line that is not a comment), "# " off
#   check_positive OPTION VALUE  a usage error unless VALUE is a positive integer
#   need_built FILE...         die unless each FILE is an executable ("FILE is
#                              missing (build the toolkit first)")
#   need_commands COMMAND...   die unless each COMMAND is on PATH

: "${prog:=$(basename "$0")}"

# ---- timing ------------------------------------------------------------------
now_ns() { date +%s%N; }

timed() {
    timed_t0=$(now_ns)
    timed_status=0
    "$@" || timed_status=$?
    # shellcheck disable=SC2034 # read by the caller
    timed_us=$((($(now_ns) - timed_t0) / 1000))
    return "$timed_status"
}

interleave() {
    il_rounds=$1 il_round=1
    while [ "$il_round" -le "$il_rounds" ]; do
        echo "$prog: round $il_round of $il_rounds" >&2
        "$2" "$il_round"
        il_round=$((il_round + 1))
    done
}

# ---- statistics ----------------------------------------------------------------
stats_awk='
function median(a, n,   i, j, x) {
    if (n < 1) return ""
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { x = a[j]; a[j] = a[j - 1]; a[j - 1] = x }
    return n % 2 ? a[(n + 1) / 2] + 0 : (a[n / 2] + a[n / 2 + 1]) / 2
}
function geomean(a, n,   i, s) {
    for (i = 1; i <= n; i++) s += log(a[i])
    return exp(s / n)
}
function t975(df,   t) {
    if (df > 30) return 1.96
    split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 2.201 2.179 " \
          "2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086 2.080 2.074 2.069 2.064 " \
          "2.060 2.056 2.052 2.048 2.045 2.042", t, " ")
    return t[df]
}
function log_interval(a, n,   i, m, ss, h) {
    for (i = 1; i <= n; i++) m += log(a[i])
    m /= n
    for (i = 1; i <= n; i++) ss += (log(a[i]) - m) ^ 2
    h = n > 1 ? t975(n - 1) * sqrt(ss / (n - 1)) / sqrt(n) : 0
    ci_lo = exp(m - h); ci_hi = exp(m + h)
    return exp(m)
}
'

median() {
    awk "$stats_awk"'NF { a[++n] = $1 } END { if (n) printf "%.15g\n", median(a, n) }' "$@"
}

geomean() {
    awk "$stats_awk"'NF { a[++n] = $1 } END { if (n) printf "%.15g\n", geomean(a, n) }' "$@"
}

# ---- building ------------------------------------------------------------------
build_variant() {
    if [ -n "${log:-}" ]; then
        build_variant_ "$@" >>"$log" 2>&1
    else
        build_variant_ "$@" >/dev/null
    fi
}
build_variant_() {
    bv_dir=$1 bv_targets=$2
    shift 2
    # shellcheck disable=SC2154 # top: set by the sourcing script
    cmake -S "$top" -B "$bv_dir" -DCMAKE_BUILD_TYPE=Release "$@" || return
    # shellcheck disable=SC2086 # the targets are words
    cmake --build "$bv_dir" -j "$(nproc)" ${bv_targets:+--target $bv_targets}
}

# ---- usage -----------------------------------------------------------------------
die() {
    echo "$prog: $*" >&2
    exit 1
}

usage_error() {
    echo "$prog: $*" >&2
    echo "Try '$prog -h'." >&2
    exit 2
}

usage_text() {
    awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'
}

check_positive() {
    case $2 in '' | *[!0-9]* | 0) usage_error "$1 needs a positive integer" ;; esac
}

need_built() {
    for nb_file in "$@"; do
        [ -x "$nb_file" ] || die "$nb_file is missing (build the toolkit first)"
    done
}

need_commands() {
    for nc_cmd in "$@"; do
        command -v "$nc_cmd" >/dev/null 2>&1 || die "$nc_cmd is needed"
    done
}
