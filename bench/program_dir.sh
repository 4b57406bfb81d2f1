# shellcheck shell=sh
# program_dir.sh - how the timing scripts run a directory of wasm32-wasi
# programs (sourced by compare_runtimes.sh and closed_loop.sh, not run):
#
#   DIR/NAME.wasm    the program
#   DIR/NAME.args    its arguments, one per line (none if missing)
#   DIR/NAME.V.args  the arguments instead when program_args_variant=V is
#                    set and the file exists (compare_runtimes.sh -c sets
#                    V=cg: a smaller run under valgrind; -S V=startup: a
#                    run that does next to nothing)
#   DIR/NAME.ignore  an extended regular expression of the output lines
#                    that differ from run to run (timings), left out of
#                    the check of its output
#
#   program_run DIR NAME COMMAND...   COMMAND with DIR/NAME.wasm and its
#                                     arguments appended
#   program_filter DIR NAME FILE      drops from FILE, an output of NAME,
#                                     the lines NAME.ignore matches

program_run() {
    pd_dir=$1 pd_name=$2
    shift 2
    set -- "$@" "$pd_dir/$pd_name.wasm"
    pd_args=$pd_dir/$pd_name.args
    if [ -n "${program_args_variant:-}" ] && [ -f "$pd_dir/$pd_name.$program_args_variant.args" ]; then
        pd_args=$pd_dir/$pd_name.$program_args_variant.args
    fi
    if [ -f "$pd_args" ]; then
        while IFS= read -r pd_arg || [ -n "$pd_arg" ]; do set -- "$@" "$pd_arg"; done \
            <"$pd_args"
    fi
    "$@"
}

program_filter() {
    if [ -f "$1/$2.ignore" ]; then
        grep -Ev -f "$1/$2.ignore" "$3" >"$3.kept" || true
        mv "$3.kept" "$3"
    fi
}
