#!/bin/sh
# dis_reassembles.sh - every program in tests/programs goes pulley-asm ->
# pulley-dis (plain and --hex) -> pulley-asm and comes back as a
# byte-identical .pbc; and disassembling that again prints the same text.
# Environment: PULLEY_ASM, PULLEY_DIS (the tools), PROGRAMS (the directory).
set -eu
: "${PULLEY_ASM:?}" "${PULLEY_DIS:?}" "${PROGRAMS:?}"

. "$(dirname "$0")/lib.sh"

count=0
for program in "$PROGRAMS"/*.pasm; do
    [ -e "$program" ] || fail "no .pasm programs in $PROGRAMS"
    name=$(basename "$program" .pasm)
    pbc=$tmp/$name.pbc
    "$PULLEY_ASM" "$program" -o "$pbc" || fail "$name: pulley-asm failed"
    for flag in "" --hex; do
        "$PULLEY_DIS" $flag "$pbc" >"$tmp/$name.dis.pasm" ||
            fail "$name: pulley-dis $flag failed"
        "$PULLEY_ASM" "$tmp/$name.dis.pasm" -o "$tmp/$name.again.pbc" ||
            fail "$name: the output of pulley-dis $flag does not assemble"
        cmp "$pbc" "$tmp/$name.again.pbc" ||
            fail "$name: the output of pulley-dis $flag re-assembles to different bytes"
    done
    "$PULLEY_DIS" "$pbc" >"$tmp/first.txt"
    "$PULLEY_DIS" "$tmp/$name.again.pbc" >"$tmp/second.txt"
    cmp "$tmp/first.txt" "$tmp/second.txt" ||
        fail "$name: disassembling the re-assembled module prints different text"
    count=$((count + 1))
done
echo "$count programs re-assemble to identical bytes"
