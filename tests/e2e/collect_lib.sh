# collect_lib.sh - shared by the pulley-collect end-to-end scripts (sourced,
# not run): lib.sh, the profile database in $tmp, and
#   run STATUS ARGS...    pulley-collect ARGS exits with STATUS (expect_status);
#                         --no-fuse: the scripts check instruction-level facts
#                         of the baseline code, in a macro build too
#   sql QUERY             one value from the database
. "$(dirname "$0")/lib.sh"
db=$tmp/profile.db

run() {
    want=$1
    shift
    expect_status "$want" "$PULLEY_COLLECT" --no-fuse "$@"
}

sql() { "$SQLITE3" -bail "$db" "$1"; }
