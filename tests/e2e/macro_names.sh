#!/bin/sh
# macro_names.sh - macro ops may be named as the macros a compilation
# defines (tests/data/macros/names.macros: linux and unix, which
# gcc -std=gnu11 predefines; errno, EOF, stdin, NULL, assert; PI, whose
# format M_PI <math.h> defines; the VM's A and HANDLER_ARGS): the rows and
# handlers pulley-macrogen writes name them only prefixed, so that no
# X-macro of the table expands them.  With those macros defined, the
# opcode table (isa.c) compiles and gives each op its own name, and the
# interpreter (vm_exec.c with the handlers) compiles, in the build's
# dispatch mode and with switch dispatch.
#
# Environment: PULLEY_MACROGEN, SRC (the project's source directory),
#              DISPATCH (switch, goto or tail), CC (default cc).
set -eu
: "${PULLEY_MACROGEN:?}" "${SRC:?}" "${DISPATCH:?}"
. "$(dirname "$0")/lib.sh"
cc=${CC:-cc}
data=$SRC/tests/data/macros

mkdir "$tmp/gen"
expect_status 0 "$PULLEY_MACROGEN" "$data/names.macros" "$SRC/interp/vm_ops.h" "$tmp/gen"
# No name is written bare where a macro could take it.
rows=$tmp/gen/pulley_macro_rows.def
[ "$(grep -c '^MOP(PVMM_[A-Za-z_]*, PVMM_M_[A-Za-z_]*, ' "$rows")" = 10 ] || fail "rows: $(cat "$rows")"
[ "$(grep -c '^MFORMAT(PVMM_M_[A-Za-z_]*, ' "$rows")" = 10 ] || fail "formats: $(cat "$rows")"
[ "$(grep -c '^OPCODE(PVMM_[A-Za-z_]*)$' "$tmp/gen/pulley_macro_ops.h")" = 10 ] ||
    fail "handlers: $(grep OPCODE "$tmp/gen/pulley_macro_ops.h")"

# The macros defined where the table is expanded: linux and unix as the
# compiler predefines them in GNU mode (defined here where it does not).
defs=
printf 'linux unix\n' | "$cc" -std=gnu11 -E -P - >"$tmp/pre"
grep -q '^1 1$' "$tmp/pre" || defs="-Dlinux=1 -Dunix=1"
# shellcheck disable=SC2086 # defs is a list of words
flags="-std=gnu11 $defs -include errno.h -include stdio.h -include stddef.h -include assert.h
    -include math.h -DPULLEY_MACRO_ROWS=\"pulley_macro_rows.def\"
    -DPULLEY_MACRO_BODIES=\"pulley_macro_ops.h\" -I$tmp/gen -I$SRC/interp -I$SRC"
# They are macros there (else this test would show nothing).
printf 'linux unix errno EOF NULL M_PI\n' >"$tmp/probe.c"
# shellcheck disable=SC2086
expect_status 0 "$cc" $flags -E -P "$tmp/probe.c"
tail -1 "$tmp/out" | grep -qw 'linux\|unix\|errno\|EOF\|NULL\|M_PI' &&
    fail "not all of them are macros here: $(tail -1 "$tmp/out")"

# The table: each op named as in the set.
# shellcheck disable=SC2086
expect_status 0 "$cc" $flags -o "$tmp/harness" "$data/names_harness.c" "$SRC/interp/isa.c"
expect_status 0 "$tmp/harness"
[ "$(cat "$tmp/out")" = "10 macro ops named" ] || fail "harness: $(cat "$tmp/out")"

# The interpreter, its dispatch tables and handlers.
for mode in "$DISPATCH" switch; do
    mode_def=PULLEY_DISPATCH_$(echo "$mode" | tr a-z A-Z)=1
    # shellcheck disable=SC2086
    expect_status 0 "$cc" $flags -D"$mode_def" -fsyntax-only "$SRC/interp/vm_exec.c"
done

echo "macro_names: ok"
