#!/bin/sh
# sqlext.sh - the SQLite extension (sql/ext) loaded into the real sqlite3
# shell over real profiles: expanded sample chunks account for every sample
# of the run and agree with pc_samples; every sampled pc is an instruction
# start; the disassembly of every stored function agrees with its
# `instructions` rows; a run's stored opcode table decides how its code is
# decoded; bad BLOBs and bad arguments are SQL errors (sqlite3 exits 1),
# never crashes.
# Environment: PULLEY_COLLECT, SQLITE3, PROGRAMS, SQLEXT (the module's path
# without its suffix), and SQLEXT_PRELOAD (sanitizer builds: the sanitizer
# runtime the shell must preload to load a sanitized module; else empty).
set -eu
: "${PULLEY_COLLECT:?}" "${SQLITE3:?}" "${PROGRAMS:?}" "${SQLEXT:?}"
SQLEXT_PRELOAD=${SQLEXT_PRELOAD:-}

. "$(dirname "$0")/collect_lib.sh"

# The shell with the extension loaded, as a user would run it.
shell() {
    if [ -n "$SQLEXT_PRELOAD" ]; then
        env LD_PRELOAD="$SQLEXT_PRELOAD" "$SQLITE3" -bail -cmd ".load $SQLEXT" "$@"
    else
        "$SQLITE3" -bail -cmd ".load $SQLEXT" "$@"
    fi
}
# One answer from the profile, or fail with the shell's error.
ext() {
    expect_status 0 shell "$db" "$1"
    cat "$tmp/out"
}
# The query fails with exit status 1 and an error containing $2.
refused() {
    expect_status 1 shell "$db" "$1"
    grep -q -e "$2" "$tmp/err" || fail "$1: expected an error about '$2', got: $(cat "$tmp/err")"
}

# Profiles: loops runs long enough to be sampled; the others bring calls,
# jump tables, floats and host calls.
run 0 -o "$db" --invoke loops -- "$PROGRAMS/loops.pasm" 5000
for program in dispatch_table float fib; do
    run 0 -o "$db" -- "$PROGRAMS/$program.pasm"
done
run 0 -o "$db" --invoke main -- "$PROGRAMS/asm_floats.pasm"

[ "$(ext "SELECT count(*) FROM runs WHERE isa_hash = pulley_isa_hash()")" = 5 ] ||
    fail "pulley_isa_hash() is not the hash the collector stores"

# ---- samples ------------------------------------------------------------
# Run 1 has samples, so that the checks below are not vacuous.
[ "$(ext "SELECT samples_written > 0 FROM runs WHERE id = 1")" = 1 ] || fail "run 1 has no samples"
# Every run: expanded samples = samples_written = sum of pc_samples.
[ "$(ext "SELECT count(*) FROM runs r WHERE
            (SELECT count(*) FROM sample_chunks c, pulley_samples(c.data) s WHERE c.run_id = r.id)
              IS NOT r.samples_written
         OR (SELECT coalesce(sum(samples), 0) FROM pc_samples WHERE run_id = r.id)
              IS NOT r.samples_written")" = 0 ] ||
    fail "expanded sample counts: $(ext "SELECT id, samples_written FROM runs")"
# The VM publishes where runs of instructions start (runs.run_starts):
# its chunks hold those addresses, and pc_samples each run's samples
# spread over the run, which never leaves its function.  So samples per
# function, expanded, are the pc_samples histogram's (both directions).
[ "$(ext "SELECT count(*) FROM runs WHERE run_starts = 1")" = 5 ] ||
    fail "pulley-collect's runs are not marked as sampling run starts"
hist_expanded="SELECT c.run_id, f.id, count(*) FROM sample_chunks c, pulley_samples(c.data) s
               LEFT JOIN functions f ON f.run_id = c.run_id AND s.pc >= f.address
                                    AND s.pc < f.address + f.size
               GROUP BY 1, 2"
hist_stored="SELECT run_id, function_id, sum(samples) FROM pc_samples GROUP BY 1, 2"
[ "$(ext "SELECT count(*) FROM ($hist_expanded EXCEPT $hist_stored)")" = 0 ] &&
[ "$(ext "SELECT count(*) FROM ($hist_stored EXCEPT $hist_expanded)")" = 0 ] ||
    fail "the expanded samples are not the pc_samples histogram, function by function"
# Every address the VM published starts a run: a function's entry, a
# branch target, the instruction after one that ends a run (flags BRANCH 1,
# TERM 2, CALL 8, RETURN 16), or a call back from its host function.
published="SELECT DISTINCT c.run_id, s.function_id AS f, s.offset AS o
           FROM sample_chunks c, pulley_samples(c.data, c.run_id) s WHERE s.function_id IS NOT NULL"
[ "$(ext "SELECT count(*) FROM ($published) p WHERE p.o <> 0 AND NOT EXISTS (
            SELECT 1 FROM instructions i JOIN opcodes op ON op.run_id = p.run_id AND op.id = i.opcode
            WHERE i.function_id = p.f
              AND ((i.offset + i.length = p.o AND op.flags & 27) OR (i.offset = p.o AND op.flags & 8)
                   OR ' ' || i.targets || ' ' LIKE '% ' || p.o || ' %'))")" = 0 ] ||
    fail "a published address does not start a run: $(ext "SELECT count(*) FROM ($published)")"
[ "$(ext "SELECT count(*) FROM ($published) WHERE o <> 0")" -gt 0 ] || fail "no address but entries published"
# seq numbers the samples of a chunk; ticks never go back within a run.
[ "$(ext "SELECT count(*) FROM sample_chunks c, pulley_samples(c.data) s
          WHERE s.seq >= c.sample_count")" = 0 ] || fail "seq past sample_count"
[ "$(ext "SELECT count(*) FROM (SELECT s.tick, lag(s.tick) OVER (PARTITION BY c.run_id
                                  ORDER BY c.seq, s.seq) AS prev
                                FROM sample_chunks c, pulley_samples(c.data) s)
          WHERE tick < prev")" = 0 ] || fail "ticks go backwards"

# Every bytecode sample is at an instruction start: mapped by the
# extension (run id given) ...
[ "$(ext "SELECT count(*) FROM sample_chunks c, pulley_samples(c.data, c.run_id) s
          WHERE s.pc != 0 AND NOT EXISTS (SELECT 1 FROM instructions i
                WHERE i.function_id = s.function_id AND i.offset = s.offset)")" = 0 ] ||
    fail "a sampled pc is not an instruction start (mapped by pulley_samples)"
# ... and by hand, from the functions' address ranges.
[ "$(ext "SELECT count(*) FROM sample_chunks c, pulley_samples(c.data) s
          WHERE s.pc != 0 AND NOT EXISTS (SELECT 1 FROM functions f JOIN instructions i
                ON i.function_id = f.id AND i.offset = s.pc - f.address
                WHERE f.run_id = c.run_id AND s.pc >= f.address AND s.pc < f.address + f.size)")" = 0 ] ||
    fail "a sampled pc is not an instruction start (mapped by address ranges)"
# The mapping agrees with the collector's histogram, function by function
# (pc_samples spreads a sample over its run's instructions).
map_expanded="SELECT c.run_id, s.function_id, count(*)
              FROM sample_chunks c, pulley_samples(c.data, c.run_id) s GROUP BY 1, 2"
map_stored="SELECT run_id, function_id, sum(samples) FROM pc_samples GROUP BY 1, 2"
[ "$(ext "SELECT count(*) FROM ($map_expanded EXCEPT $map_stored)")" = 0 ] &&
[ "$(ext "SELECT count(*) FROM ($map_stored EXCEPT $map_expanded)")" = 0 ] ||
    fail "pulley_samples' function and offset disagree with pc_samples"
# Unqualified arguments name the columns of the table they come from.
[ "$(ext "SELECT count(*) FROM sample_chunks, pulley_samples(data, run_id)")" = \
  "$(ext "SELECT sum(sample_count) FROM sample_chunks")" ] &&
[ "$(ext "SELECT count(*) FROM sample_chunks
          WHERE sample_count != (SELECT count(*) FROM pulley_samples(data))")" = 0 ] ||
    fail "pulley_samples with unqualified arguments"
# The usual question, in plain SQL.
[ "$(ext "SELECT f.name FROM sample_chunks c, pulley_samples(c.data, c.run_id) s
          JOIN functions f ON f.id = s.function_id
          GROUP BY f.id ORDER BY count(*) DESC LIMIT 1")" = loops ] ||
    fail "loops is not the hottest"

# ---- disassembly ----------------------------------------------------------
# The stored `instructions` text names host imports, which the database
# does not store: the extension writes them "#N".  Elsewhere the texts
# are equal; for host operands, up to the operand.
same_text="(x.text = i.text OR (o.operands LIKE '%host%'
            AND substr(x.text, 1, instr(x.text, '#') - 1) =
                substr(i.text, 1, instr(x.text, '#') - 1)))"
# pulley_insns with the run's table and the module's names: the rows of
# `instructions`, no more, no fewer.
[ "$(ext "SELECT count(*) FROM functions f, pulley_insns(f.code, f.run_id, f.module_id) x")" = \
  "$(ext "SELECT count(*) FROM instructions")" ] || fail "pulley_insns: not one row per instruction"
[ "$(ext "SELECT count(*) FROM functions f, pulley_insns(f.code, f.run_id, f.module_id) x
          JOIN instructions i ON i.function_id = f.id AND i.offset = x.offset
          JOIN opcodes o ON o.run_id = f.run_id AND o.id = x.opcode
          WHERE x.length = i.length AND x.opcode = i.opcode AND x.name = o.name
            AND $same_text")" = "$(ext "SELECT count(*) FROM instructions")" ] ||
    fail "pulley_insns disagrees with instructions: $(ext "SELECT f.name, x.offset, x.text
          FROM functions f, pulley_insns(f.code, f.run_id, f.module_id) x
          LEFT JOIN instructions i ON i.function_id = f.id AND i.offset = x.offset
          WHERE x.text IS NOT i.text")"
[ "$(ext "SELECT count(*) FROM functions, pulley_insns(code, run_id, module_id)")" = \
  "$(ext "SELECT count(*) FROM instructions")" ] || fail "pulley_insns with unqualified arguments"
# The compiled-in table (no run) decodes the same instructions; function
# operands without a module are "#N".
[ "$(ext "SELECT count(*) FROM functions f, pulley_insns(f.code) x
          JOIN instructions i ON i.function_id = f.id AND i.offset = x.offset
          JOIN opcodes o ON o.run_id = f.run_id AND o.id = x.opcode
          WHERE x.length = i.length AND x.opcode = i.opcode
            AND ($same_text OR o.operands LIKE '%func%')")" = \
  "$(ext "SELECT count(*) FROM instructions")" ] ||
    fail "pulley_insns without a run disagrees with instructions"
[ "$(ext "SELECT count(*) FROM functions f, pulley_insns(f.code) x
          WHERE x.name = 'call' AND x.text NOT GLOB 'call #[0-9]*'")" = 0 ] ||
    fail "call operands without a module are not #N"
# pulley_disasm(code, offset, run, module): each instruction's text.
[ "$(ext "SELECT count(*) FROM instructions i JOIN functions f ON f.id = i.function_id
          JOIN opcodes o ON o.run_id = f.run_id AND o.id = i.opcode
          WHERE NOT (SELECT $same_text FROM (SELECT pulley_disasm(f.code, i.offset, f.run_id,
                                                                  f.module_id) AS text) x)")" = 0 ] ||
    fail "pulley_disasm(code, offset, ...) disagrees with instructions"
# pulley_disasm(code): every line "OFFSET  TEXT", offsets right-aligned.
listing="SELECT group_concat(line, char(10)) FROM (
           SELECT printf('%*d  %s', length(max(offset) OVER ()), offset, text) AS line
           FROM pulley_insns(f.code, f.run_id, f.module_id) ORDER BY offset)"
[ "$(ext "SELECT count(*) FROM functions f
          WHERE pulley_disasm(f.code, NULL, f.run_id, f.module_id) IS NOT ($listing)")" = 0 ] ||
    fail "pulley_disasm(code) is not the listing of pulley_insns"
ext "SELECT pulley_disasm(code) FROM functions WHERE run_id = 1 AND name = 'loops'" >"$tmp/listing"
[ "$(wc -l <"$tmp/listing")" = "$(ext "SELECT count(*) FROM instructions i JOIN functions f
      ON f.id = i.function_id WHERE f.run_id = 1 AND f.name = 'loops'")" ] ||
    fail "pulley_disasm(code): not one line per instruction: $(cat "$tmp/listing")"
# The first line is offset 0, padded to the width of the last one.
head -n 1 "$tmp/listing" | grep -q '^ *0  [a-z]' &&
[ "$(tail -n 1 "$tmp/listing")" = "$(ext "SELECT i.offset || '  ' || i.text FROM instructions i
      JOIN functions f ON f.id = i.function_id WHERE f.run_id = 1 AND f.name = 'loops'
      ORDER BY i.offset DESC LIMIT 1")" ] ||
    fail "pulley_disasm(code) listing: $(cat "$tmp/listing")"

# ---- a run's stored opcode table decides -----------------------------------
# Rename xadd64 in run 1's table only: run 1 now decodes with the new name,
# the compiled-in table and run 2 with the old one.
cp "$db" "$tmp/old.db"
sql "UPDATE opcodes SET name = 'xadd64_v0' WHERE run_id = 1 AND name = 'xadd64'"
renamed=$(ext "SELECT count(*) FROM functions f, pulley_insns(f.code, 1) x
               WHERE f.run_id = 1 AND x.name = 'xadd64_v0' AND x.text LIKE 'xadd64_v0 x%'")
[ "$renamed" -gt 0 ] && [ "$renamed" = "$(ext "SELECT count(*) FROM instructions i
      JOIN functions f ON f.id = i.function_id JOIN opcodes o ON o.run_id = 2 AND o.id = i.opcode
      WHERE f.run_id = 1 AND o.name = 'xadd64'")" ] || fail "run 1's stored table is not used"
[ "$(ext "SELECT count(*) FROM functions f, pulley_insns(f.code) x
          WHERE x.name = 'xadd64_v0'")" = 0 ] || fail "the compiled-in table was changed"
[ "$(ext "SELECT count(*) FROM functions f, pulley_insns(f.code, 2) x
          WHERE x.name = 'xadd64_v0'")" = 0 ] || fail "run 2 decoded with run 1's table"
# A stored row whose operands do not fit its length is refused; so is a
# run whose table lacks an opcode its code uses.
sql "UPDATE opcodes SET length = length + 1 WHERE run_id = 1 AND name = 'xadd64_v0'"
refused "SELECT pulley_disasm(code, NULL, 1) FROM functions WHERE run_id = 1" \
    "run 1: stored opcode table: opcode xadd64_v0 .*do not fit"
sql "DELETE FROM opcodes WHERE run_id = 1 AND name = 'xadd64_v0'"
refused "SELECT * FROM functions f, pulley_insns(f.code, 1) WHERE f.name = 'loops' AND f.run_id = 1" \
    "pulley_insns: code is not valid at offset [0-9]*: unknown opcode"
sql "DELETE FROM opcodes WHERE run_id = 1"
refused "SELECT pulley_disasm(x'00', NULL, 1)" "run 1 has no opcode table"
cp "$tmp/old.db" "$db"

# ---- bad BLOBs and bad arguments ---------------------------------------------
loops="(SELECT code FROM functions WHERE run_id = 1 AND name = 'loops')"
chunk="(SELECT data FROM sample_chunks WHERE run_id = 1 AND seq = 0)"
refused "SELECT pulley_disasm(x'ff')" "pulley_disasm: code is not valid at offset 0: truncated"
# Cut inside the last instruction of more than one byte.
cut="(SELECT i.offset + i.length - 1 FROM instructions i JOIN functions f ON f.id = i.function_id
      WHERE f.run_id = 1 AND f.name = 'loops' AND i.length > 1 ORDER BY i.offset DESC LIMIT 1)"
refused "SELECT pulley_disasm(substr($loops, 1, $cut))" \
    "code is not valid at offset [0-9]*: truncated instruction"
refused "SELECT * FROM pulley_insns(x'0000ff')" "pulley_insns: code is not valid at offset"
refused "SELECT pulley_disasm($loops, 1)" "offset 1 is not an instruction start"
refused "SELECT pulley_disasm($loops, 100000)" "offset 100000 is outside the code"
refused "SELECT pulley_disasm('text')" "code must be a BLOB, not text"
refused "SELECT pulley_disasm($loops, NULL, 'one')" "run_id must be an integer"
refused "SELECT pulley_disasm($loops, NULL, 99)" "run 99 does not exist"
refused "SELECT pulley_disasm($loops, NULL, NULL, 99)" "module 99 does not exist"
refused "SELECT * FROM pulley_insns" "the code argument is missing"
refused "SELECT count(*) FROM pulley_samples(substr($chunk, 1, length($chunk) / 2))" \
    "pulley_samples: ."
refused "SELECT count(*) FROM pulley_samples(CAST(substr($chunk, 1, 8) || x'ffffffffffffffffffff'
                                                  || substr($chunk, 19) AS BLOB))" \
    "pulley_samples: ."
refused "SELECT count(*) FROM pulley_samples(zeroblob(64))" "pulley_samples: ."
refused "SELECT count(*) FROM pulley_samples(x'')" "pulley_samples: ."
refused "SELECT * FROM pulley_samples(1)" "data must be a BLOB, not an integer"
refused "SELECT * FROM pulley_samples($chunk, 99)" "run 99 does not exist"
refused "SELECT * FROM pulley_samples" "the data argument is missing"
# Not a profile database at all.
expect_status 1 shell "$tmp/empty.db" "SELECT pulley_disasm(x'00', NULL, 1)"
grep -q "no such table" "$tmp/err" || fail "empty database: $(cat "$tmp/err")"
# NULL in, NULL (or no rows) out.
[ "$(ext "SELECT quote(pulley_disasm(NULL)) || count(*) FROM pulley_insns(NULL)")" = NULL0 ] &&
[ "$(ext "SELECT count(*) FROM pulley_samples(NULL)")" = 0 ] &&
[ "$(ext "SELECT quote(pulley_disasm(x''))")" = "''" ] || fail "NULL or empty arguments"
echo "sqlext: ok"
