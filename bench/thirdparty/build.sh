#!/bin/sh
# build.sh - build the third-party C programs that bench/compare_runtimes.sh
# times beside wasm3 and WAMR, from their public sources and the drivers
# of this directory (bench/thirdparty/README.md):
#
#   sh bench/thirdparty/build.sh -s SRC_DIR [-o OUT_DIR] [-n] [-r RUNNER]
#
#   -s SRC_DIR  the sources, one directory each; a missing one is skipped
#               and listed: coremark lua quickjs sqlite wren zlib bzip2
#               cJSON Monocypher PolyBenchC-4.2.1 (README.md says which
#               versions)
#   -o OUT_DIR  where NAME.wasm, NAME.args, NAME.cg.args, NAME.startup.args
#               and NAME.ignore go
#               (default build/thirdparty)
#   -n          also build each natively (gcc -O2, OUT_DIR/native/NAME) and
#               check that RUNNER prints what the native build prints
#               (stdout and stderr, less the lines NAME.ignore matches)
#   -r RUNNER   the runtime of that check (default build/bin/pulley-run)
#
# Exit status: 0; 1 when a build or a check fails; 2 for bad usage.
set -eu
prog=build.sh
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
src="" out=$top/build/thirdparty native=false runner=$top/build/bin/pulley-run
# shellcheck source=bench/lib.sh
. "$here/../lib.sh"
usage() { usage_text; }
while getopts s:o:nr:h opt; do
    case $opt in
    s) src=$OPTARG ;;
    o) out=$OPTARG ;;
    n) native=true ;;
    r) runner=$OPTARG ;;
    h) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] && [ -n "$src" ] || { usage >&2; exit 2; }
[ -d "$src" ] || usage_error "no directory $src"
src=$(cd "$src" && pwd)
mkdir -p "$out/obj"
out=$(cd "$out" && pwd)
! $native || mkdir -p "$out/native"
wasm_cc="clang --target=wasm32-wasi -O2"
built="" skipped="" failed=""

# compile NAME CFLAGS_AND_SOURCES...: the .wasm, and with -n the native
# build; wasm_extra and native_extra (words: flags and libraries) go to one
# of the two only
compile() {
    name=$1
    shift
    echo "$prog: building $name" >&2
    # shellcheck disable=SC2086 # the flags are meant to split into words
    $wasm_cc "$@" $wasm_extra -o "$out/$name.wasm" 2>>"$out/obj/$name.log" || return 1
    if $native; then
        # shellcheck disable=SC2086
        gcc -O2 "$@" $native_extra -o "$out/native/$name" 2>>"$out/obj/$name.log" || return 1
    fi
}

# program NAME DIR FUNCTION: build NAME with FUNCTION when SRC_DIR/DIR exists
program() {
    if [ ! -d "$src/$2" ]; then
        skipped="$skipped $1"
        return 0
    fi
    : >"$out/obj/$1.log"
    : >"$out/$1.args"
    rm -f "$out/$1.ignore" "$out/$1.cg.args" "$out/$1.startup.args"
    wasm_extra="" native_extra=""
    if "$3" "$src/$2"; then
        built="$built $1"
    else
        failed="$failed $1"
        echo "$prog: building $1 failed:" >&2
        sed 's/^/  /' "$out/obj/$1.log" >&2
    fi
}

program_coremark() { # CoreMark's POSIX port, 2000 iterations
    s=$1
    compile coremark -I"$s/posix" -I"$s" '-DFLAGS_STR="-O2"' '-DMEM_LOCATION="HEAP"' \
        "$s/core_list_join.c" "$s/core_main.c" "$s/core_matrix.c" "$s/core_state.c" \
        "$s/core_util.c" "$s/posix/core_portme.c" || return 1
    printf '0x0\n0x0\n0x66\n2000\n' >"$out/coremark.args"
    # timings, the compiler that built it, and the verdict on the time
    # (a run under 10 s, as under valgrind, is "Errors detected"; a wrong
    # checksum has lines of its own, which stay compared)
    echo 'Total ticks|Total time|Iterations/Sec|CoreMark 1\.0|Compiler version|at least 10 secs|^Errors detected|^Correct operation validated' \
        >"$out/coremark.ignore"
}

# embed FILE NAME: FILE as a C array (NAME, NAME_len) in OUT_DIR/obj/NAME.h,
# with coreutils only
embed() {
    od -An -v -tu1 "$1" | awk -v name="$2" '
        BEGIN { printf "static const unsigned char %s[] = {", name }
        { for (i = 1; i <= NF; i++) { printf "%s%s", (n++ % 16 ? " " : "\n    "), $i "," } }
        END { printf "\n};\nstatic const unsigned int %s_len = %d;\n", name, n }' \
        >"$out/obj/$2.h"
}

program_lua() { # Lua 5.4 running bench.lua, embedded in the binary
    s=$1
    embed "$here/bench.lua" bench_lua || return 1
    set --
    for c in "$s"/*.c; do
        case ${c##*/} in lua.c | luac.c | onelua.c | ltests.c) ;; *) set -- "$@" "$c" ;; esac
    done
    # wasm: no setjmp in wasi-libc, so an error aborts (lua_wasi_shim.h)
    wasm_extra="-D_WASI_EMULATED_PROCESS_CLOCKS -D_WASI_EMULATED_SIGNAL -I$here/wasi-include
        -include $here/lua_wasi_shim.h -lwasi-emulated-process-clocks -lwasi-emulated-signal -lm"
    native_extra="-DLUA_USE_POSIX -lm"
    compile lua -I"$s" -I"$out/obj" "$@" "$here/lua_bench.c" || return 1
    echo empty >"$out/lua.startup.args"
}

program_quickjs() { # QuickJS running bench.js, embedded in the binary
    s=$1
    [ -f "$s/VERSION" ] || { echo "no $s/VERSION" >>"$out/obj/quickjs.log"; return 1; }
    embed "$here/bench.js" bench_js || return 1
    # wasm: no threads (wasi-include/pthread.h), malloc_usable_size from
    # malloc.h (which quickjs.c includes on Linux only), and a shadow stack
    # larger than the 1 MiB that QuickJS checks its recursion against
    wasm_extra="-I$here/wasi-include -include malloc.h -Wl,-z,stack-size=2097152 -lm"
    native_extra="-lm -lpthread"
    compile quickjs -fwrapv -D_GNU_SOURCE "-DCONFIG_VERSION=\"$(cat "$s/VERSION")\"" \
        -I"$s" -I"$out/obj" "$s/quickjs.c" "$s/dtoa.c" "$s/libregexp.c" \
        "$s/libunicode.c" "$s/cutils.c" "$here/quickjs_bench.c" || return 1
    echo 1 >"$out/quickjs.args"
    echo 0.3 >"$out/quickjs.cg.args"
    echo 0 >"$out/quickjs.startup.args"
}

program_sqlite() { # the SQLite amalgamation, an in-memory database (sqlite_bench.c)
    s=$1
    native_extra="-lm"
    wasm_extra="-lm"
    # no threads, no extensions, no files: its VFS is the driver's
    compile sqlite -DSQLITE_OS_OTHER=1 -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION \
        -DSQLITE_TEMP_STORE=3 -DSQLITE_DEFAULT_MEMSTATUS=0 -I"$s" "$s/sqlite3.c" \
        "$here/sqlite_bench.c" || return 1
    echo 8000 >"$out/sqlite.args"
    echo 3000 >"$out/sqlite.cg.args"
    echo 0 >"$out/sqlite.startup.args"
}

program_wren() { # Wren running bench.wren, embedded in the binary
    s=$1
    embed "$here/bench.wren" bench_wren || return 1
    # its optional modules (meta, random) left out; System.clock needs
    # wasi-libc's emulated process clocks
    wasm_extra="-D_WASI_EMULATED_PROCESS_CLOCKS -lwasi-emulated-process-clocks -lm"
    native_extra="-lm"
    compile wren -DWREN_OPT_META=0 -DWREN_OPT_RANDOM=0 -I"$s/src/include" -I"$s/src/vm" \
        -I"$s/src/optional" -I"$out/obj" "$s"/src/vm/*.c "$here/wren_bench.c" || return 1
    echo 0.3 >"$out/wren.args"
    echo 0.1 >"$out/wren.cg.args"
    echo empty >"$out/wren.startup.args"
}

program_zlib() { # deflate and inflate 640 KiB of generated text at levels 1, 6, 9
    s=$1
    compile zlib -DDATA_SIZE=655360 -DROUNDS=1 -I"$s" "$s/adler32.c" "$s/crc32.c" \
        "$s/deflate.c" "$s/inflate.c" "$s/inftrees.c" "$s/inffast.c" "$s/trees.c" \
        "$s/zutil.c" "$s/compress.c" "$s/uncompr.c" "$here/zlib_bench.c"
}

program_bzip2() { # bzip2's block sort: 256 KiB of text at blocks 1, 5, 9; a repetitive buffer
    s=$1
    compile bzip2 -I"$s" "$s/blocksort.c" "$s/huffman.c" "$s/crctable.c" "$s/randtable.c" \
        "$s/compress.c" "$s/decompress.c" "$s/bzlib.c" "$here/bzip2_bench.c" || return 1
    echo 256 >"$out/bzip2.args"
    echo 32 >"$out/bzip2.cg.args"
}

program_cjson() { # print, parse and walk a document of 600 objects, 15 times
    s=$1
    native_extra="-lm"
    compile cjson -DNOBJ=600 -DNPARSE=15 -I"$s" "$s/cJSON.c" "$here/cjson_bench.c"
}

program_monocypher() { # BLAKE2b, AEAD, X25519 and EdDSA rounds
    s=$1/src
    compile monocypher -DHASH_ROUNDS=68 -DAEAD_ROUNDS=68 -DDH_ROUNDS=34 -DSIGN_ROUNDS=34 \
        -I"$s" "$s/monocypher.c" "$here/monocypher_bench.c"
}

# PolyBench/C kernels as they are, their arrays dumped (to stderr)
polybench() { # polybench NAME KERNEL_DIR SIZES...
    name=$1 dir=$2
    shift 2
    wasm_extra="-D_WASI_EMULATED_PROCESS_CLOCKS -lwasi-emulated-process-clocks -lm"
    native_extra="-lm"
    compile "$name" -DPOLYBENCH_DUMP_ARRAYS "$@" \
        -I"$poly/utilities" -I"$poly/$dir" "$poly/utilities/polybench.c" \
        "$poly/$dir/${dir##*/}.c"
}
program_gemm() { poly=$1 && polybench gemm linear-algebra/blas/gemm -DNI=320 -DNJ=340 -DNK=360; }
program_jacobi_2d() { poly=$1 && polybench jacobi-2d stencils/jacobi-2d -DTSTEPS=200 -DN=250; }
program_nussinov() { poly=$1 && polybench nussinov medley/nussinov -DN=640; }

program coremark coremark program_coremark
program lua lua program_lua
program quickjs quickjs program_quickjs
program sqlite sqlite program_sqlite
program wren wren program_wren
program zlib zlib program_zlib
program bzip2 bzip2 program_bzip2
program cjson cJSON program_cjson
program monocypher Monocypher program_monocypher
program gemm PolyBenchC-4.2.1 program_gemm
program jacobi-2d PolyBenchC-4.2.1 program_jacobi_2d
program nussinov PolyBenchC-4.2.1 program_nussinov

# run WHO NAME: NAME's output (stdout and stderr, less the lines that
# vary) and exit status, under WHO (native or the runner)
run() {
    # shellcheck disable=SC2046 # the arguments are words, one per line
    if [ "$1" = native ]; then
        (cd "$out/obj" && "$out/native/$2" $(cat "$out/$2.args")) >"$out/obj/$2.$1" 2>&1 && rc=0 || rc=$?
    else
        (cd "$out/obj" && "$runner" "$out/$2.wasm" $(cat "$out/$2.args")) >"$out/obj/$2.$1" 2>&1 &&
            rc=0 || rc=$?
    fi
    if [ -f "$out/$2.ignore" ]; then
        grep -Ev -f "$out/$2.ignore" "$out/obj/$2.$1" || true
    else
        cat "$out/obj/$2.$1"
    fi
    echo "exit status $rc"
}
mismatched=""
if $native && [ -n "$built" ]; then
    [ -x "$runner" ] || die "no runner $runner (build the toolkit, or give -r)"
    for name in $built; do
        echo "$prog: checking $name" >&2
        run native "$name" >"$out/obj/$name.native.txt"
        run vm "$name" >"$out/obj/$name.vm.txt"
        if ! cmp -s "$out/obj/$name.native.txt" "$out/obj/$name.vm.txt"; then
            mismatched="$mismatched $name"
            echo "$prog: $name prints other things under $runner than natively:" >&2
            diff "$out/obj/$name.native.txt" "$out/obj/$name.vm.txt" | head -5 | cut -c1-160 >&2 || true
        fi
    done
fi

echo "$prog: built in $out:${built:- nothing}" >&2
[ -z "$skipped" ] || echo "$prog: skipped, no source in $src:$skipped" >&2
if $native && [ -n "$built" ] && [ -z "$mismatched" ]; then
    echo "$prog: every program prints under $runner what it prints natively" >&2
fi
[ -z "$failed$mismatched" ] || die "failed:$failed$mismatched"
