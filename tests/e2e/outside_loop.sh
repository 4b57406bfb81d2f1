#!/bin/sh
# outside_loop.sh - the toolkit's whole loop for an interpreter it was not
# written for, with nothing but what `cmake --install` puts in a prefix:
# tests/outside/regvm (a register machine with variable-length
# instructions, a window of registers, code unloaded while it runs) is
# built outside the source tree, its programs are counted into a profile,
# pulley-ngrams --emit-macros proposes macro ops, pulley-macrogen
# --outside composes their handlers from regvm_ops.h, regvm is built again
# with them and fuses its code with the library's cover: every program
# prints the same, and dispatches exactly as many fewer times as
# pulley-ngrams --evaluate predicted from the first profile.
#
# Environment: BUILD (the build directory), SRC (the source tree), CC (the
# compiler), OUTSIDE_CFLAGS (sanitizer flags of an instrumented build, or
# empty), SQLITE3.
set -eu
. "$(dirname "$0")/lib.sh"

cc=${CC:-cc}
extra=${OUTSIDE_CFLAGS:-}
prefix=$tmp/prefix
expect_status 0 cmake --install "$BUILD" --prefix "$prefix"
cp -R "$SRC/tests/outside/regvm" "$tmp/regvm"
cd "$tmp/regvm"
build() { # build DIR CMAKE_ARGS...: configure and build regvm against the prefix
    dir=$1
    shift
    expect_status 0 cmake -S . -B "$dir" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
        -DCMAKE_C_FLAGS="$extra" -DCMAKE_EXE_LINKER_FLAGS="$extra" "$@"
    expect_status 0 cmake --build "$dir"
}
build base
dispatches() { sed -n 's/^regvm: \([0-9]*\) dispatches$/\1/p' "$tmp/err"; }

# 1. Count every program into one profile.
db=$tmp/counted.db
programs="sum:3000 sieve:30000 chunks:1500"
for p in $programs; do
    expect_status 0 base/regvm "${p%:*}" "${p#*:}" --profile "$db" --exact --dispatches
    cp "$tmp/out" "$tmp/expected.${p%:*}"
    dispatches > "$tmp/base.${p%:*}"
done
[ "$(cat "$tmp/expected.sum")" = 9004500500 ] || fail "sum printed $(cat "$tmp/expected.sum")"
[ "$(cat "$tmp/expected.sieve")" = 3245 ] || fail "sieve printed $(cat "$tmp/expected.sieve")"
# The chunks ran as 1500 functions loaded and unloaded, at reused addresses,
# all stored; sum's window of registers is stored with the table.
sql() { "$SQLITE3" "$db" "$1"; }
[ "$(sql "SELECT count(*) FROM functions f JOIN runs r ON r.id = f.run_id
          WHERE r.benchmark = 'chunks' AND f.name = 'chunk'")" = 1500 ] ||
    fail "chunk functions: $(sql "SELECT count(*), name FROM functions GROUP BY name")"
[ "$(sql "SELECT access || ' ' || base || ' ' || count_imm FROM register_ranges r
          JOIN opcodes o ON o.run_id = r.run_id AND o.id = r.opcode
          WHERE o.name = 'sum' AND r.run_id = 1")" = "1 1 0" ] ||
    fail "register_ranges: $(sql 'SELECT * FROM register_ranges')"

# 2. Proposals, as a .macros file of regvm's own mnemonics; what they save.
expect_status 0 "$prefix/bin/pulley-ngrams" "$db" --top 6 --emit-macros "$tmp/set.macros"
grep -q "^# Instruction set: regvm$" "$tmp/set.macros" || fail "set: $(cat "$tmp/set.macros")"
[ "$(grep -c '^macro ' "$tmp/set.macros")" -ge 3 ] || fail "set: $(cat "$tmp/set.macros")"
expect_status 0 "$prefix/bin/pulley-ngrams" "$db" --evaluate "$tmp/set.macros" --format json
cp "$tmp/out" "$tmp/predicted.json"

# 3. regvm with the macro ops: the same output, the predicted dispatches.
build fused -DREGVM_MACROS="$tmp/set.macros"
for p in $programs; do
    name=${p%:*}
    line=$(grep "\"benchmark\": \"$name\"" "$tmp/predicted.json") || fail "no prediction for $name"
    counted=$(echo "$line" | sed 's/.*"dispatches": \([0-9]*\).*/\1/')
    removed=$(echo "$line" | sed 's/.*"removed": \([0-9]*\).*/\1/')
    [ "$counted" = "$(cat "$tmp/base.$name")" ] ||
        fail "$name: the profile counted $counted dispatches, regvm $(cat "$tmp/base.$name")"
    expect_status 0 fused/regvm "$name" "${p#*:}" --dispatches
    cmp -s "$tmp/out" "$tmp/expected.$name" || fail "$name: the fused build printed $(cat "$tmp/out")"
    [ "$(dispatches)" = $((counted - removed)) ] ||
        fail "$name: $(dispatches) dispatches fused, predicted $counted - $removed"
    expect_status 0 fused/regvm "$name" "${p#*:}" --no-fuse --dispatches
    [ "$(dispatches)" = "$counted" ] || fail "$name --no-fuse: $(dispatches) dispatches"
done

# 4. The fused build profiles too: its macro ops are stored with their
# parts, sampled and counted runs read by the installed tools.
fdb=$tmp/fused.db
expect_status 0 fused/regvm chunks 300 --profile "$fdb" --exact
expect_status 0 fused/regvm sieve 400000 --profile "$fdb"
expect_status 0 "$prefix/bin/pulley-report" "$fdb" --text
first=$(sed -n 's/^macro //p' "$tmp/set.macros" | head -1)
[ "$("$SQLITE3" "$fdb" "SELECT count(*) FROM opcodes WHERE run_id = 1 AND name = '$first'
                        AND flags & 32")" = 1 ] || fail "the fused run stores no macro op $first"
expect_status 0 "$prefix/bin/pulley-ngrams" "$fdb" --evaluate "$tmp/set.macros"
echo "outside_loop: ok"
