#!/bin/sh
# macro_set_checks.sh - a .macros set is checked one way everywhere
# (fusion/macro_check.c): a set the generator (pulley-macrogen) refuses,
# pulley-ngrams --evaluate refuses too, with the same FILE:LINE message,
# exit 1 and no prediction - an operand of the wrong kind, a macro op named
# like a baseline opcode, an unknown mnemonic, a narrow form, a part that
# branches before the last.  The generator writes nothing when it refuses.
#
# Environment: PULLEY_COLLECT, PULLEY_NGRAMS, PULLEY_MACROGEN, PROGRAMS,
#              VM_OPS (interp/vm_ops.h).
set -eu
: "${PULLEY_COLLECT:?}" "${PULLEY_NGRAMS:?}" "${PULLEY_MACROGEN:?}" "${PROGRAMS:?}" "${VM_OPS:?}"
. "$(dirname "$0")/lib.sh"

base=$tmp/base.db
expect_status 0 "$PULLEY_COLLECT" --no-fuse --exact -o "$base" --invoke loops -- "$PROGRAMS/loops.pasm" 60

# refused NAME MESSAGE: $tmp/NAME.macros is refused by --evaluate and by the
# generator, each printing "TOOL: MESSAGE" and nothing else.
refused() {
    set_file=$tmp/$1.macros
    want="$set_file:$2"
    expect_status 1 "$PULLEY_NGRAMS" "$base" --evaluate "$set_file"
    [ "$(cat "$tmp/err")" = "pulley-ngrams: $want" ] ||
        fail "--evaluate $1: expected '$want', got: $(cat "$tmp/err")"
    [ ! -s "$tmp/out" ] || fail "--evaluate $1 predicted: $(cat "$tmp/out")"
    rm -rf "$tmp/gen"
    mkdir "$tmp/gen"
    expect_status 1 "$PULLEY_MACROGEN" "$set_file" "$VM_OPS" "$tmp/gen"
    [ "$(cat "$tmp/err")" = "pulley-macrogen: $want" ] ||
        fail "pulley-macrogen $1: expected '$want', got: $(cat "$tmp/err")"
    [ -z "$(ls "$tmp/gen")" ] || fail "pulley-macrogen $1 wrote: $(ls "$tmp/gen")"
}
# set_of NAME OPNAME PART...: $tmp/NAME.macros, one macro op OPNAME (line 3),
# its parts from line 4.
set_of() {
    file=$tmp/$1.macros
    op=$2
    shift 2
    { echo "pulley-macros 1"; echo; echo "macro $op"; for p in "$@"; do echo "  part $p"; done; echo "end"; } >"$file"
}

# A set both take: the control case, so that a refusal below is the set's.
set_of good m 'xadd64 x0 x1 x2' 'xadd64 x0 x0 x3'
expect_status 0 "$PULLEY_NGRAMS" "$base" --evaluate "$tmp/good.macros"
grep -q '^The 1 macro ops of ' "$tmp/out" || fail "good set not evaluated: $(cat "$tmp/out")"
mkdir "$tmp/gen"
expect_status 0 "$PULLEY_MACROGEN" "$tmp/good.macros" "$VM_OPS" "$tmp/gen"

# (a) an operand of the wrong kind: a float register where xadd64 reads an
# integer one.
set_of kind m 'xadd64 x0 x1 x2' 'xadd64 x0 f3 x0'
refused kind "5: macro op m: part 2, xadd64, takes an x register as operand 2, not f3"
# (b) a macro op named like a baseline opcode.
set_of opname xadd64 'xadd64 x0 x1 x2' 'xadd64 x0 x0 x0'
refused opname "3: macro op xadd64 has the name of an opcode of the instruction set: name it otherwise"
# (c) an unknown mnemonic (was predicted to remove 0%).
set_of unknown m 'xadd64 x0 x1 x2' 'no_such_op x0'
refused unknown "5: macro op m: part 2, no_such_op, is no opcode of the instruction set"
# Operand counts, narrow forms and a branch before the last part.
set_of count m 'xadd64 x0 x1' 'xadd64 x0 x0 x0'
refused count "4: macro op m: part 1, xadd64, takes 3 registers and 0 immediates, not 2 and 0"
set_of narrow m 'xconst8 x0 imm' 'xadd64 x1 x1 x0'
refused narrow "4: macro op m: part 1, xconst8, is matched as xconst64 (the same with a wider immediate): name xconst64"
set_of early m 'jump imm' 'xadd64 x0 x0 x0'
refused early "4: macro op m: part 1, jump, branches, calls or returns: only the last part may"

echo "macro_set_checks: ok"
