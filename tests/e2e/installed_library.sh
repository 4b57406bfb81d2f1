#!/bin/sh
# installed_library.sh - the profiling library as an outside interpreter
# meets it: `cmake --install` the build into a prefix, copy
# tests/outside/tiny_interp.c out of the source tree, build it against the
# prefix with pkg-config (shared and static) and with find_package, run
# it sampled and counting, and read its profile with the installed
# pulley-ngrams and pulley-report, and list its code with the SQLite
# extension (from the rows its decoder stored).  Also: the library exports
# nothing but pulleyprof_ and pulleyfuse_ names, the headers compile on
# their own, tests/outside/cover_block.c covers a block with the
# installed cover (<pulley/fusion.h>, shared and static), and
# pulley-macrogen is installed beside the library.
#
# Environment: BUILD (the build directory), SRC (the source tree), CC (the
# compiler, default cc), OUTSIDE_CFLAGS (sanitizer flags of an instrumented
# build, else empty), SQLEXT (the extension's path without its suffix) and
# SQLEXT_PRELOAD (the sanitizer runtime the shell must preload, or empty);
# SQLEXT_SKIP (why the extension cannot be loaded, as under ThreadSanitizer).
set -eu
. "$(dirname "$0")/lib.sh"
: "${SQLEXT:?}"

cc=${CC:-cc}
extra=${OUTSIDE_CFLAGS:-}
prefix=$tmp/prefix
expect_status 0 cmake --install "$BUILD" --prefix "$prefix"
libdir=$(dirname "$(find "$prefix" -name pulley-profile.pc)")/..
for h in profile.h fusion.h; do
    [ -f "$prefix/include/pulley/$h" ] || fail "header not installed: $h"
done
expect_status 0 "$prefix/bin/pulley-macrogen" --help
grep -q -- "--outside SET.macros BODIES OUT_DIR" "$tmp/out" || fail "pulley-macrogen: $(cat "$tmp/out")"
for f in libpulleyprof.a libpulleyprof.so cmake/PulleyProfile/PulleyProfileConfig.cmake; do
    [ -e "$libdir/$f" ] || fail "not installed: $f"
done

# Only the public names are visible outside the library.
for lib in "$libdir/libpulleyprof.a" "$libdir/libpulleyprof.so"; do
    opt=""
    case $lib in *.so) opt=-D ;; esac
    leaked=$(nm $opt --defined-only --extern-only "$lib" | awk 'NF == 3 {print $3}' |
             grep -v -e '^pulleyprof_' -e '^pulleyfuse_' || true)
    [ -z "$leaked" ] || fail "$lib exports internal names: $leaked"
    for name in pulleyprof_open pulleyfuse_cover; do
        nm $opt --defined-only --extern-only "$lib" | grep -q " T $name\$" ||
            fail "$lib does not export $name"
    done
done

# Each header on its own, strict C11.
export PKG_CONFIG_PATH="$libdir/pkgconfig"
cflags=$(pkg-config --cflags pulley-profile)
case $cflags in *"$SRC"*) fail "pkg-config points into the source tree: $cflags" ;; esac
printf '#include <pulley/profile.h>\nint main(void) { return pulleyprof_version() == 0; }\n' \
    > "$tmp/header.c"
printf '#include <pulley/fusion.h>\nint main(void) { return pulleyfuse_count(0) != 0; }\n' \
    > "$tmp/fusion_header.c"
for h in header fusion_header; do
    # shellcheck disable=SC2086 # flags are words
    expect_status 0 "$cc" -std=c11 -pedantic -Wall -Wextra -Werror $cflags -c "$tmp/$h.c" -o "$tmp/$h.o"
done

# The cover, from outside: a set bound to cover_block.c's opcodes covers
# its block with two macro ops; a mnemonic it lacks is named.
mkdir "$tmp/cover"
cp "$SRC/tests/outside/cover_block.c" "$tmp/cover/"
# shellcheck disable=SC2086
expect_status 0 "$cc" $extra -std=c11 -pedantic -Wall -Wextra -Werror -o "$tmp/cover/shared" \
    "$tmp/cover/cover_block.c" $(pkg-config --cflags --libs pulley-profile) -Wl,-rpath,"$libdir"
# shellcheck disable=SC2086
expect_status 0 "$cc" $extra -std=c11 -pedantic -Wall -Wextra -Werror -o "$tmp/cover/static" \
    "$tmp/cover/cover_block.c" $cflags "$libdir/libpulleyprof.a" \
    $(pkg-config --static --libs-only-l --libs-only-other pulley-profile | sed 's/-lpulleyprof//')
cat >"$tmp/cover/set.macros" <<'EOF'
pulley-macros 1
macro MUL__ADD
  part MUL r0 r0 r1
  part ADD r0 r0 r2
end
macro MUL__JNZ
  part MUL r0 r0 r1
  part JNZ r0 imm
end
EOF
for bin in shared static; do
    expect_status 0 "$tmp/cover/$bin" "$tmp/cover/set.macros"
    [ "$(tail -1 "$tmp/out")" = "dispatches 3: - - MUL__ADD - MUL__JNZ" ] ||
        fail "cover_block ($bin): $(cat "$tmp/out")"
    grep -q "^MUL__JNZ: 2 parts, 2 registers, 1 immediates\$" "$tmp/out" ||
        fail "cover_block ($bin) describes: $(cat "$tmp/out")"
done
sed 's/JNZ/JMPIF/' "$tmp/cover/set.macros" >"$tmp/cover/other.macros"
expect_status 1 "$tmp/cover/shared" "$tmp/cover/other.macros"
grep -q "other.macros: macro op MUL__JMPIF: part 2, JMPIF, is not an opcode" "$tmp/err" ||
    fail "unknown mnemonic: $(cat "$tmp/err")"

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
  "tiny libpulleyprof 0.2.0 1" ] || fail "run row: $(sql 'SELECT * FROM runs')"
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
if [ -n "${SQLEXT_SKIP:-}" ]; then
    echo "installed_library: ok (the SQL extension not loaded: $SQLEXT_SKIP)"
    exit 0
fi
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
