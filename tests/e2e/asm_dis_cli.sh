#!/bin/sh
# asm_dis_cli.sh - the command-line contract of pulley-asm and pulley-dis:
# --help and --version, bad usage, missing files, syntax errors and bad
# modules give the right exit status (0 success, 1 failure, 2 bad usage)
# and a message on stderr prefixed by the tool's name; the default output
# name; pulley-dis telling .pbc from .pasm by the magic bytes; --hex;
# pulley-dis --opcodes (the table as JSON: one opcode a line, its class,
# the ISA hash of --version; valid JSON where a python3 is at hand).
# Environment: PULLEY_ASM, PULLEY_DIS (the tools).
set -eu
: "${PULLEY_ASM:?}" "${PULLEY_DIS:?}"

. "$(dirname "$0")/lib.sh"


out_has() { grep -q -F -e "$1" "$tmp/out" || fail "stdout lacks '$1': $(cat "$tmp/out")"; }
err_has() { grep -q -F -e "$1" "$tmp/err" || fail "stderr lacks '$1': $(cat "$tmp/err")"; }
err_is_empty() { [ ! -s "$tmp/err" ] || fail "unexpected stderr: $(cat "$tmp/err")"; }
out_is_empty() { [ ! -s "$tmp/out" ] || fail "unexpected stdout: $(cat "$tmp/out")"; }

# ---- what both tools share -------------------------------------------------
for tool in "$PULLEY_ASM" "$PULLEY_DIS"; do
    name=$(basename "$tool")
    for help in --help -h; do
        expect_status 0 "$tool" "$help"
        out_has "Usage: $name "
        out_has "--version"
        out_has "Exit status: 0 on success, 1 on failure, 2 for bad usage."
        err_is_empty
    done
    for version in --version -V; do
        expect_status 0 "$tool" "$version"
        grep -q -E "^$name [0-9]+\.[0-9]+\.[0-9]+ \(ISA [0-9a-f]{16}\)$" "$tmp/out" ||
            fail "$name $version printed '$(cat "$tmp/out")'"
    done
    expect_status 2 "$tool"
    err_has "$name: no input file"
    err_has "Try '$name --help' for more information."
    out_is_empty
    expect_status 2 "$tool" --bogus x
    err_has "$name: unknown option '--bogus'"
    expect_status 2 "$tool" -q x
    err_has "$name: unknown option '-q'"
    expect_status 2 "$tool" a b
    err_has "$name: more than one input file"
    expect_status 1 "$tool" "$tmp/missing.pasm"
    err_has "$name: $tmp/missing.pasm: No such file or directory"
    out_is_empty
done
expect_status 2 "$PULLEY_ASM" x.pasm -o
err_has "pulley-asm: option '-o' needs an argument"

# ---- pulley-asm ---------------------------------------------------------------
cat >"$tmp/prog.pasm" <<'PASM'
.func main -> i64
    xconst8 x0, 7
loop:
    br_if_not x0, done
    jump loop
done:
    ret
.end
PASM

expect_status 0 "$PULLEY_ASM" "$tmp/prog.pasm"
out_is_empty
err_is_empty
[ -s "$tmp/prog.pbc" ] || fail "pulley-asm prog.pasm did not write prog.pbc"
expect_status 0 "$PULLEY_ASM" "$tmp/prog.pasm" -o "$tmp/named.pbc"
cmp "$tmp/prog.pbc" "$tmp/named.pbc" || fail "-o wrote different bytes"
expect_status 0 "$PULLEY_ASM" --output="$tmp/long.pbc" "$tmp/prog.pasm"
cmp "$tmp/prog.pbc" "$tmp/long.pbc" || fail "--output wrote different bytes"
cp "$tmp/prog.pasm" "$tmp/plain"
expect_status 0 "$PULLEY_ASM" "$tmp/plain"
[ -s "$tmp/plain.pbc" ] || fail "pulley-asm plain did not write plain.pbc"

printf '.func main\n    xadd32 x0, x1\n.end\n' >"$tmp/bad.pasm"
expect_status 1 "$PULLEY_ASM" "$tmp/bad.pasm" -o "$tmp/bad.pbc"
err_has "pulley-asm: $tmp/bad.pasm:2:18: 'xadd32' takes 3 operands (x, x, x), found 2"
[ ! -e "$tmp/bad.pbc" ] || fail "pulley-asm wrote an output despite the error"
printf '.func main\n    nop\n' >"$tmp/open.pasm"
expect_status 1 "$PULLEY_ASM" "$tmp/open.pasm" -o "$tmp/open.pbc"
err_has "pulley-asm: $tmp/open.pasm:3:1: missing .end of function 'main' (started at line 1)"
expect_status 1 "$PULLEY_ASM" "$tmp/prog.pasm" -o "$tmp/no/such/dir/x.pbc"
err_has "pulley-asm: $tmp/no/such/dir/x.pbc: No such file or directory"

# ---- pulley-dis -----------------------------------------------------------------
expect_status 0 "$PULLEY_DIS" "$tmp/prog.pbc"
err_is_empty
out_has ".func main -> i64"
out_has ".L3:"
out_has "    br_if_not x0, .Le"
out_has "; +0000 @00000000"
out_has ".end"
cp "$tmp/out" "$tmp/listing"

# .pasm input is assembled first; the magic bytes decide, not the name
expect_status 0 "$PULLEY_DIS" "$tmp/prog.pasm"
cmp "$tmp/out" "$tmp/listing" || fail "pulley-dis prog.pasm differs from pulley-dis prog.pbc"
cp "$tmp/prog.pbc" "$tmp/binary.pasm"
expect_status 0 "$PULLEY_DIS" "$tmp/binary.pasm"
cmp "$tmp/out" "$tmp/listing" || fail "a .pbc named .pasm was not read as .pbc"
cp "$tmp/prog.pasm" "$tmp/text.pbc"
expect_status 0 "$PULLEY_DIS" "$tmp/text.pbc"
cmp "$tmp/out" "$tmp/listing" || fail "a .pasm named .pbc was not assembled"

for hex in --hex -x; do
    expect_status 0 "$PULLEY_DIS" "$hex" "$tmp/prog.pbc"
    grep -q -E '^    ret +; \+000e @0000000e  [0-9a-f]{2}$' "$tmp/out" ||
        fail "pulley-dis $hex shows no bytes: $(cat "$tmp/out")"
done

expect_status 1 "$PULLEY_DIS" "$tmp/bad.pasm"
err_has "pulley-dis: $tmp/bad.pasm:2:18: 'xadd32' takes 3 operands"
printf '\000PBC\001\000\000\000' >"$tmp/version.pbc" # version 1: 5-bit register packs
expect_status 1 "$PULLEY_DIS" "$tmp/version.pbc"
err_has "pulley-dis: $tmp/version.pbc: offset 4: unknown format version 1 (expected 3)"
out_is_empty

# one function "f" whose code is the single byte 0xfe, not an opcode
{
    printf '\000PBC\003\000\000\000\377\377\377\377'           # magic, version, no entry
    printf '\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000' # no heap
    printf '\000\000\000\000\000\000\000\000'                   # no globals, tables
    printf '\000\000\000\000\000\000\000\000\001\000\000\000'   # no imports, types; 1 function
    printf '\001\000\000\000f\000\000\000\000\000\000\000\000\001\000\000\000\376'
    printf '\000\000\000\000'                                   # no data
    printf '\377\377\377\377\377\000\000\000\000\000\000\000'   # no start, heap register, elements
} >"$tmp/undecodable.pbc"
expect_status 1 "$PULLEY_DIS" "$tmp/undecodable.pbc"
err_has "pulley-dis: $tmp/undecodable.pbc: function f, offset 0x0: invalid opcode"
out_is_empty

# ---- pulley-dis --opcodes ----------------------------------------------------
expect_status 0 "$PULLEY_DIS" --opcodes
err_is_empty
op_line() { grep "^ *{\"name\": \"$1\"," "$tmp/out" || fail "--opcodes: no line for $1"; }
op_line br_if | grep -q '"class": "cond_branch", "flags": \["BRANCH"\], "format": "Xr_REL", "operands": "x rel32", "roles": "r"' ||
    fail "--opcodes br_if: $(op_line br_if)"
op_line xgt32_u_imm | grep -q '"class": "compare", .*"operands": "x x s32", "roles": "w r"' ||
    fail "--opcodes xgt32_u_imm: $(op_line xgt32_u_imm)"
op_line xconst8 | grep -q '"wide": "xconst64"' || fail "--opcodes xconst8: $(op_line xconst8)"
op_line heap_size | grep -q '"number": 256, "extended": true' || fail "--opcodes heap_size: $(op_line heap_size)"
[ "$(grep -c '^ *{"name": ' "$tmp/out")" -gt 150 ] || fail "--opcodes: too few opcode lines"
hash=$("$PULLEY_DIS" --version | sed -n 's/.*(ISA \([0-9a-f]*\))$/\1/p')
grep -q "^{\"isa_hash\": \"$hash\",\$" "$tmp/out" || fail "--opcodes hash is not --version's $hash: $(head -1 "$tmp/out")"
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
names = [o["name"] for o in d["opcodes"]]
assert len(names) == len(set(names)), "names not unique"
assert all(o["class"] in d["classes"] for o in d["opcodes"]), "a class not listed"
assert set(o["class"] for o in d["opcodes"]) <= set(d["classes"])' "$tmp/out" ||
        fail "--opcodes is not the JSON described"
fi
expect_status 2 "$PULLEY_DIS" --opcodes "$tmp/undecodable.pbc"
err_has "pulley-dis: --opcodes takes no input file"

echo "pulley-asm and pulley-dis: command line OK"
