#!/bin/sh
# installed_library.sh - the profiling library as an outside interpreter
# meets it: `cmake --install` the build into a prefix, copy
# tests/outside/tiny_interp.c out of the source tree, build it against the
# prefix with pkg-config (shared and static) and with find_package, run
# it sampled and counting, and read its profile with the installed
# pulley-ngrams and pulley-report, and list its code with the SQLite
# extension (from the rows its decoder stored).  Also: the library exports
# nothing but pulleyprof_ names, and the header compiles on its own.
#
# Environment: BUILD (the build directory), SRC (the source tree), CC (the
# compiler, default cc), OUTSIDE_CFLAGS (sanitizer flags of an instrumented
# build, else empty), SQLEXT (the extension's path without its suffix) and
# SQLEXT_PRELOAD (the sanitizer runtime the shell must preload, or empty).
set -eu
. "$(dirname "$0")/lib.sh"
: "${SQLEXT:?}"

cc=${CC:-cc}
extra=${OUTSIDE_CFLAGS:-}
prefix=$tmp/prefix
expect_status 0 cmake --install "$BUILD" --prefix "$prefix"
libdir=$(dirname "$(find "$prefix" -name pulley-profile.pc)")/..
[ -f "$prefix/include/pulley/profile.h" ] || fail "no header installed"
for f in libpulleyprof.a libpulleyprof.so cmake/PulleyProfile/PulleyProfileConfig.cmake; do
    [ -e "$libdir/$f" ] || fail "not installed: $f"
done

# Only the public names are visible outside the library.
for lib in "$libdir/libpulleyprof.a" "$libdir/libpulleyprof.so"; do
    opt=""
    case $lib in *.so) opt=-D ;; esac
    leaked=$(nm $opt --defined-only --extern-only "$lib" | awk 'NF == 3 {print $3}' |
             grep -v '^pulleyprof_' || true)
    [ -z "$leaked" ] || fail "$lib exports internal names: $leaked"
    nm $opt --defined-only --extern-only "$lib" | grep -q ' T pulleyprof_open$' ||
        fail "$lib does not export pulleyprof_open"
done

# The header on its own, strict C11.
printf '#include <pulley/profile.h>\nint main(void) { return pulleyprof_version() == 0; }\n' \
    > "$tmp/header.c"
export PKG_CONFIG_PATH="$libdir/pkgconfig"
cflags=$(pkg-config --cflags pulley-profile)
case $cflags in *"$SRC"*) fail "pkg-config points into the source tree: $cflags" ;; esac
# shellcheck disable=SC2086 # flags are words
expect_status 0 "$cc" -std=c11 -pedantic -Wall -Wextra -Werror $cflags -c "$tmp/header.c" -o "$tmp/header.o"

mkdir "$tmp/outside"
cp "$SRC/tests/outside/tiny_interp.c" "$SRC/tests/outside/CMakeLists.txt" "$tmp/outside/"
cd "$tmp/outside"
# shellcheck disable=SC2086
expect_status 0 "$cc" $extra -std=c11 -Wall -Wextra -Werror -o tiny_shared tiny_interp.c \
    $(pkg-config --cflags --libs pulley-profile) -Wl,-rpath,"$libdir"
# shellcheck disable=SC2086
expect_status 0 "$cc" $extra -std=c11 -Wall -Wextra -Werror -o tiny_static tiny_interp.c $cflags \
    "$libdir/libpulleyprof.a" $(pkg-config --static --libs-only-l --libs-only-other pulley-profile |
                                sed 's/-lpulleyprof//')
ldd tiny_static | grep -q pulleyprof && fail "tiny_static links the shared library"
expect_status 0 cmake -S . -B build -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_C_FLAGS="$extra" -DCMAKE_EXE_LINKER_FLAGS="$extra"
expect_status 0 cmake --build build
for bin in ./tiny_shared ./tiny_static ./build/tiny_interp; do
    expect_status 0 "$bin" "$tmp/check.db" 1000
    [ "$(cat "$tmp/out")" = 333833500 ] || fail "$bin printed $(cat "$tmp/out")"
done
expect_status 2 ./tiny_shared
grep -q usage "$tmp/err" || fail "no usage: $(cat "$tmp/err")"

# A sampled run long enough for a few thousand samples, and a counted one.
db=$tmp/tiny.db
expect_status 0 ./tiny_shared "$db" 40000000
expect_status 0 ./tiny_static "$db" 200000 exact
sql() { sqlite3 "$db" "$1"; }
[ "$(sql "SELECT isa_name || ' ' || collector || ' ' || operands_stored FROM runs WHERE id = 1")" = \
  "tiny libpulleyprof 0.1.0 1" ] || fail "run row: $(sql 'SELECT * FROM runs')"
[ "$(sql "SELECT group_concat(offset || ':' || text || ':' || imms || ':' || targets, ',')
          FROM instructions WHERE function_id = 1 AND offset IN (0, 12, 19, 24)")" = \
  "0:load 1:1:,12:push 1:1:,19:jnz -19:-19:0,24:halt::" ] ||
    fail "instruction rows: $(sql 'SELECT * FROM instructions WHERE function_id = 1')"
[ "$(sql "SELECT sum(count) FROM exec_counts WHERE run_id = 2")" = 2400003 ] ||
    fail "exact counts: $(sql 'SELECT * FROM exec_counts')"
[ "$(sql "SELECT samples_written > 100 FROM runs WHERE id = 1")" = 1 ] ||
    fail "too few samples: $(sql 'SELECT samples_written FROM runs')"

# The installed readers read it with nothing of Pulley's encoding.
expect_status 0 "$prefix/bin/pulley-ngrams" "$db" --runs 2 --format json --top 3
python3 - "$tmp/out" <<'PY' || fail "pulley-ngrams --runs 2: $(cat "$tmp/out")"
import json, sys
doc = json.load(open(sys.argv[1]))
ops = [p["ops"] for p in doc["proposals"]]
names = {"halt", "push", "load", "store", "add", "mul", "sub", "jnz", "print"}
assert ops and all(set(s) <= names for s in ops), ops
# The loop body is the whole of the exact profile: the top proposal lies in it.
assert doc["proposals"][0]["saving"] > 10, doc["proposals"][0]
PY
expect_status 0 "$prefix/bin/pulley-ngrams" "$db" --runs 1
grep -q "load" "$tmp/out" || fail "sampled proposals: $(cat "$tmp/out")"
expect_status 0 "$prefix/bin/pulley-report" "$db" --text
grep -q "main" "$tmp/out" || fail "pulley-report: $(cat "$tmp/out")"
grep -q "jnz -19" "$tmp/out" || fail "pulley-report shows no bytecode: $(cat "$tmp/out")"
# The SQLite extension cannot decode this encoding: it serves the stored
# rows of the function whose code it is given, and says so for other code.
ext() {
    expect_status "$1" env ${SQLEXT_PRELOAD:+LD_PRELOAD=$SQLEXT_PRELOAD} \
        sqlite3 -bail -cmd ".load $SQLEXT" "$db" "$2"
}
ext 0 "SELECT group_concat(i.offset || ':' || i.length || ':' || i.name || ':' || i.text, ',')
       FROM functions f, pulley_insns(f.code, f.run_id) i WHERE f.id = 1 AND i.offset <= 19"
[ "$(cat "$tmp/out")" = "$(sql "SELECT group_concat(i.offset || ':' || i.length || ':' || o.name ||
        ':' || i.text, ',') FROM instructions i JOIN opcodes o ON o.run_id = 1 AND o.id = i.opcode
        WHERE i.function_id = 1 AND i.offset <= 19 ORDER BY i.offset")" ] ||
    fail "pulley_insns: $(cat "$tmp/out")"
ext 0 "SELECT pulley_disasm(code, 19, run_id) FROM functions WHERE id = 1"
[ "$(cat "$tmp/out")" = "jnz -19" ] || fail "pulley_disasm at 19: $(cat "$tmp/out")"
ext 0 "SELECT pulley_disasm(code, NULL, run_id) FROM functions WHERE id = 1"
[ "$(sed -n 1p "$tmp/out")" = " 0  load 1" ] || fail "pulley_disasm listing: $(cat "$tmp/out")"
ext 1 "SELECT pulley_disasm(code, 13, run_id) FROM functions WHERE id = 1"
grep -q "inside the push at offset 12" "$tmp/err" || fail "offset 13: $(cat "$tmp/err")"
ext 1 "SELECT pulley_disasm(x'0102', NULL, 1)"
grep -q "another interpreter" "$tmp/err" || fail "unknown code: $(cat "$tmp/err")"
echo "installed_library: ok"
