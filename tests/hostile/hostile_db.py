#!/usr/bin/python3
"""hostile_db.py GOOD.db OUTDIR: hostile copies of a good profile database.

GOOD.db holds two finished runs of one program: run 1 sampled, run 2 exact
(pulley-collect without and with --exact).  For each case below, OUTDIR gets
CASE.db, a copy of GOOD.db with one hostile change, and OUTDIR/manifest.json
lists every case:

    name        the case (and file) name
    change      what was changed, in words
    status      the exit status the readers must end with (1: refused)
    message     a substring their message must hold (names the place)
    damaged_run the run --skip-damaged must leave out (then status 0 and
                "left out run N of FILE: it is damaged"); null: none
    sqlext      what the SQL extension's queries must give: null (they
                read nothing the change touched: any status but a crash),
                or a substring of the error they must end with (status 1)
    note        why a case is handled as it is, where that is not obvious

Only the Python standard library; the changes are made with sqlite3 (and
byte edits for the cases below SQLite).  A constraint that would stop a
change (NOT NULL) is taken out of the table's stored CREATE statement
first, as a tool other than the collector could have written the file.
"""
import json
import os
import re
import shutil
import sqlite3
import sys

INT64_MAX = 2**63 - 1
CASES = []


def case(name, change, message, status=1, damaged_run=None, sqlext=None, note=None):
    """Register a case: the decorated function makes the change on a copy."""
    def wrap(fn):
        CASES.append(dict(name=name, change=change, status=status, message=message,
                          damaged_run=damaged_run, sqlext=sqlext, note=note, fn=fn))
        return fn
    return wrap


def one(con, sql, args=()):
    row = con.execute(sql, args).fetchone()
    if row is None:
        raise SystemExit("hostile_db.py: the good profile has no row for: " + sql)
    return row


def drop_not_null(con, table, column):
    """Take NOT NULL off table.column in its stored CREATE statement (the
    stored records do not change: NOT NULL is checked on writes only)."""
    (sql,) = one(con, "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", (table,))
    new = re.sub(r"(\b%s\s+\w+\s+)NOT NULL" % re.escape(column), r"\1", sql, count=1)
    if new == sql:
        raise SystemExit("hostile_db.py: %s.%s has no NOT NULL to take off" % (table, column))
    # In a transaction of its own: the statements after it must see the
    # table without the constraint.
    con.execute("COMMIT")
    (version,) = one(con, "PRAGMA schema_version")
    con.execute("PRAGMA writable_schema = ON")
    con.execute("UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = ?", (new, table))
    con.execute("PRAGMA schema_version = %d" % (version + 1))
    con.execute("PRAGMA writable_schema = OFF")
    con.execute("BEGIN")


def exec_row(con, run=2):
    """(function_id, offset) of the first exec_counts row of run `run`."""
    return one(con, "SELECT function_id, offset FROM exec_counts WHERE run_id = ?"
                    " ORDER BY function_id, offset LIMIT 1", (run,))


def pc_row(con, run=1):
    """rowid of the first pc_samples row of run `run` in a function."""
    return one(con, "SELECT rowid FROM pc_samples WHERE run_id = ? AND function_id IS NOT NULL"
                    " ORDER BY rowid LIMIT 1", (run,))[0]


def set_count(con, value):
    fid, off = exec_row(con)
    con.execute("UPDATE exec_counts SET count = ? WHERE function_id = ? AND offset = ?",
                (value, fid, off))


def hot_function(con, run):
    """id of the function of run `run` with the most instruction rows."""
    return one(con, "SELECT f.id FROM functions f JOIN instructions i ON i.function_id = f.id"
                    " WHERE f.run_id = ? GROUP BY f.id ORDER BY count(*) DESC, f.id LIMIT 1",
               (run,))[0]


# ---- counts and samples -------------------------------------------------------
@case("count_negative", "one exec_counts row of run 2: count -5",
      "run 2 is damaged: exec_counts row", damaged_run=2)
def _(con):
    set_count(con, -5)


@case("count_text", "one exec_counts row of run 2: count '12abc' (text)",
      "run 2 is damaged: exec_counts row", damaged_run=2)
def _(con):
    set_count(con, "12abc")


@case("count_real", "one exec_counts row of run 2: count 2.5 (a real)",
      "run 2 is damaged: exec_counts row", damaged_run=2)
def _(con):
    set_count(con, 2.5)


@case("count_null", "exec_counts.count's NOT NULL taken off; one row of run 2: count NULL",
      "run 2 is damaged: exec_counts row", damaged_run=2)
def _(con):
    drop_not_null(con, "exec_counts", "count")
    set_count(con, None)


@case("count_sum_overflow", "one exec_counts row of run 2 at INT64_MAX, the others as they are",
      "run 2 is damaged", damaged_run=2)
def _(con):
    set_count(con, INT64_MAX)


@case("sample_negative", "one pc_samples row of run 1: samples -3",
      "run 1 is damaged: pc_samples row", damaged_run=1)
def _(con):
    con.execute("UPDATE pc_samples SET samples = -3 WHERE rowid = ?", (pc_row(con),))


@case("sample_text", "one pc_samples row of run 1: samples 'many'",
      "run 1 is damaged: pc_samples row", damaged_run=1)
def _(con):
    con.execute("UPDATE pc_samples SET samples = 'many' WHERE rowid = ?", (pc_row(con),))


@case("sample_sum_overflow", "two pc_samples rows of run 1 at INT64_MAX",
      "run 1 is damaged", damaged_run=1)
def _(con):
    con.execute("UPDATE pc_samples SET samples = ? WHERE rowid IN (SELECT rowid FROM pc_samples"
                " WHERE run_id = 1 ORDER BY rowid LIMIT 2)", (INT64_MAX,))


@case("pc_dangling_function", "one pc_samples row of run 1: function_id 999999 (no such function)",
      "run 1 is damaged: pc_samples row (function_id 999999", damaged_run=1)
def _(con):
    con.execute("UPDATE pc_samples SET function_id = 999999 WHERE rowid = ?", (pc_row(con),))


@case("pc_function_id_text", "one pc_samples row of run 1: function_id 'f2' (text)",
      "function_id is not an integer", damaged_run=1)
def _(con):
    con.execute("UPDATE pc_samples SET function_id = 'f2' WHERE rowid = ?", (pc_row(con),))


@case("pc_other_run_function", "one pc_samples row of run 1: function_id of a function of run 2",
      "run 1 is damaged: pc_samples row", damaged_run=1)
def _(con):
    (fid,) = one(con, "SELECT min(id) FROM functions WHERE run_id = 2")
    con.execute("UPDATE pc_samples SET function_id = ? WHERE rowid = ?", (fid, pc_row(con)))


@case("pc_negative_offset", "one pc_samples row of run 1: offset -1",
      "run 1 is damaged: pc_samples row", damaged_run=1)
def _(con):
    con.execute("UPDATE pc_samples SET offset = -1 WHERE rowid = ?", (pc_row(con),))


@case("pc_null_offset", "one pc_samples row of run 1 in a function: offset NULL",
      "run 1 is damaged: pc_samples row", damaged_run=1)
def _(con):
    con.execute("UPDATE pc_samples SET offset = NULL WHERE rowid = ?", (pc_row(con),))


@case("pc_offset_past_size", "one pc_samples row of run 1: offset 10 past its function's size",
      "run 1 is damaged: pc_samples row", damaged_run=1)
def _(con):
    rowid = pc_row(con)
    con.execute("UPDATE pc_samples SET offset = (SELECT size + 10 FROM functions"
                " WHERE id = pc_samples.function_id) WHERE rowid = ?", (rowid,))


@case("exec_other_run_function", "an exec_counts row of run 2 naming a function of run 1",
      "run 1 is damaged: exec_counts row", damaged_run=1,
      note="found through run 1's functions (exec_counts has no index on run_id): the row "
           "names run 2 on a function of run 1, a sampled run")
def _(con):
    (fid,) = one(con, "SELECT min(id) FROM functions WHERE run_id = 1")
    con.execute("INSERT INTO exec_counts (run_id, function_id, offset, count) VALUES (2, ?, 0, 7)",
                (fid,))


@case("exec_dangling_function", "an exec_counts row of run 2 naming function 999999 (none)",
      "run 2 is damaged: exec_counts row", damaged_run=2)
def _(con):
    con.execute("INSERT INTO exec_counts (run_id, function_id, offset, count)"
                " VALUES (2, 999999, 0, 7)")


@case("exec_offset_past_size", "one exec_counts row of run 2: offset past its function's size",
      "run 2 is damaged: exec_counts row", damaged_run=2)
def _(con):
    fid, off = exec_row(con)
    con.execute("UPDATE exec_counts SET offset = (SELECT size + 4 FROM functions WHERE id = ?)"
                " WHERE function_id = ? AND offset = ?", (fid, fid, off))


@case("edge_negative", "one edge_counts row of run 2: count -1", "", status=0,
      note="pulley-ngrams and pulley-report do not read edge_counts: nothing is read from it")
def _(con):
    con.execute("UPDATE edge_counts SET count = -1 WHERE (function_id, from_offset, to_function_id,"
                " to_offset) = (SELECT function_id, from_offset, to_function_id, to_offset"
                " FROM edge_counts WHERE run_id = 2 ORDER BY 1, 2, 3, 4 LIMIT 1)")


# ---- the schema and the file ----------------------------------------------------
@case("user_version_99", "PRAGMA user_version = 99",
      "profile schema version 99 is newer", sqlext="schema version 99")
def _(con):
    con.execute("PRAGMA user_version = 99")


@case("user_version_0", "PRAGMA user_version = 0", "without a schema version")
def _(con):
    con.execute("PRAGMA user_version = 0")


@case("application_id_other", "PRAGMA application_id = 7 (another application's database)",
      "not a profile database (application_id 7)")
def _(con):
    con.execute("PRAGMA application_id = 7")


@case("missing_table_instructions", "DROP TABLE instructions", "instructions")
def _(con):
    con.execute("DROP TABLE instructions")


@case("missing_table_pc_samples", "DROP TABLE pc_samples", "pc_samples")
def _(con):
    con.execute("DROP TABLE pc_samples")


@case("missing_column_checksum", "functions rebuilt without its checksum column", "checksum")
def _(con):
    con.execute("ALTER TABLE functions DROP COLUMN checksum")


@case("wrong_types_pc_samples",
      "pc_samples rebuilt with every column TEXT and its numbers written as words",
      "run 1 is damaged: pc_samples row", damaged_run=1)
def _(con):
    # The views name pc_samples: legacy renames leave them as they are.
    con.execute("PRAGMA legacy_alter_table = ON")
    con.execute("CREATE TABLE new_pc_samples (run_id TEXT, function_id TEXT, offset TEXT, pc TEXT,"
                " samples TEXT)")
    con.execute("INSERT INTO new_pc_samples SELECT run_id, function_id,"
                " CASE WHEN run_id = 1 AND offset IS NOT NULL THEN 'at ' || offset ELSE offset END,"
                " pc, samples FROM pc_samples")
    con.execute("DROP TABLE pc_samples")
    con.execute("ALTER TABLE new_pc_samples RENAME TO pc_samples")


@case("runs_outcome_null", "runs row of run 2: outcome and end_time NULL (not finished)",
      "left out run 2 of", status=0,
      note="a run that did not finish is left out by default, saying so; run 1 is read")
def _(con):
    con.execute("UPDATE runs SET outcome = NULL, end_time = NULL WHERE id = 2")


@case("runs_outcome_unknown", "runs row of run 2: outcome 'exploded' (no outcome pulley-collect writes)",
      "", status=0,
      note="an interpreter linking libpulleyprof names its own outcomes (pulleyprof_set_outcome):"
           " any text is a finished run's")
def _(con):
    con.execute("UPDATE runs SET outcome = 'exploded' WHERE id = 2")


@case("runs_exact_text", "runs row of run 2: exact 'yes'",
      "run 2 is damaged", damaged_run=2)
def _(con):
    con.execute("UPDATE runs SET exact = 'yes' WHERE id = 2")


@case("runs_samples_negative", "runs row of run 1: samples_written -4",
      "run 1 is damaged", damaged_run=1)
def _(con):
    con.execute("UPDATE runs SET samples_written = -4 WHERE id = 1")


# ---- opcode tables --------------------------------------------------------------
@case("opcode_duplicate_name", "run 2's opcode table: a second opcode named as the first",
      "run 2 is damaged", damaged_run=2, sqlext="twice")
def _(con):
    (first,) = one(con, "SELECT name FROM opcodes WHERE run_id = 2 ORDER BY id LIMIT 1")
    con.execute("UPDATE opcodes SET name = ? WHERE run_id = 2 AND id = (SELECT id FROM opcodes"
                " WHERE run_id = 2 ORDER BY id LIMIT 1 OFFSET 1)", (first,))


@case("opcodes_missing_other_isa",
      "run 2: isa_name 'cpython-3.11' and its opcode rows deleted",
      "run 2 is damaged", damaged_run=2, sqlext="run 2")
def _(con):
    con.execute("UPDATE runs SET isa_name = 'cpython-3.11' WHERE id = 2")
    con.execute("DELETE FROM opcodes WHERE run_id = 2")


@case("opcodes_other_encoding_no_operands",
      "run 2's opcode rows: reg_bits 0 (another encoding), its instruction rows without operands",
      "run 2 is damaged", damaged_run=2)
def _(con):
    con.execute("UPDATE opcodes SET reg_bits = 0 WHERE run_id = 2")
    con.execute("UPDATE runs SET operands_stored = 0 WHERE id = 2")


@case("opcode_length_huge", "one opcode of run 2: length 2^40",
      "run 2 is damaged", damaged_run=2)
def _(con):
    con.execute("UPDATE opcodes SET length = ? WHERE run_id = 2 AND id = (SELECT opcode FROM"
                " instructions i JOIN functions f ON f.id = i.function_id WHERE f.run_id = 2"
                " LIMIT 1)", (2**40,))


# ---- code and instructions ------------------------------------------------------
def first_insn(con, run):
    fid = hot_function(con, run)
    return fid, one(con, "SELECT offset FROM instructions WHERE function_id = ? ORDER BY offset"
                         " LIMIT 1 OFFSET 1", (fid,))[0]


@case("insn_opcode_mismatch",
      "one instruction row of run 1: another opcode; functions.checksum NULL (not checked)",
      "run 1 is damaged: function", damaged_run=1,
      note="the extension decodes the code, which is intact, and reads no instruction rows")
def _(con):
    fid, off = first_insn(con, 1)
    con.execute("UPDATE functions SET checksum = NULL WHERE id = ?", (fid,))
    con.execute("UPDATE instructions SET opcode = (SELECT min(id) FROM opcodes WHERE run_id = 1"
                " AND id != instructions.opcode) WHERE function_id = ? AND offset = ?", (fid, off))


@case("insn_length_mismatch",
      "one instruction row of run 1: length + 1; functions.checksum NULL (not checked)",
      "run 1 is damaged: function", damaged_run=1)
def _(con):
    fid, off = first_insn(con, 1)
    con.execute("UPDATE functions SET checksum = NULL WHERE id = ?", (fid,))
    con.execute("UPDATE instructions SET length = length + 1 WHERE function_id = ? AND offset = ?",
                (fid, off))


@case("insn_offset_negative", "one instruction row of run 1: offset -2; checksum NULL",
      "run 1 is damaged: function", damaged_run=1)
def _(con):
    fid, off = first_insn(con, 1)
    con.execute("UPDATE functions SET checksum = NULL WHERE id = ?", (fid,))
    con.execute("UPDATE instructions SET offset = -2 WHERE function_id = ? AND offset = ?",
                (fid, off))


def set_operand_text(con, column, value, which):
    """Set `column` of the instruction of run 1's hottest function whose
    row `which` (SQL) selects, its checksum NULL (not checked)."""
    fid = hot_function(con, 1)
    con.execute("UPDATE functions SET checksum = NULL WHERE id = ?", (fid,))
    (off,) = one(con, "SELECT offset FROM instructions WHERE function_id = ? AND %s"
                      " ORDER BY offset LIMIT 1" % which, (fid,))
    con.execute("UPDATE instructions SET %s = ? WHERE function_id = ? AND offset = ?" % column,
                (value, fid, off))


@case("insn_regs_garbage", "one instruction row of run 1: regs 'x1 banana'; checksum NULL",
      "run 1 is damaged: function", damaged_run=1)
def _(con):
    set_operand_text(con, "regs", "x1 banana", "regs != ''")


@case("insn_imms_overflow",
      "one instruction row of run 1: imms '99999999999999999999999'; checksum NULL",
      "run 1 is damaged: function", damaged_run=1)
def _(con):
    set_operand_text(con, "imms", "99999999999999999999999", "imms != ''")


@case("insn_targets_outside",
      "one branch row of run 1: targets '-5 1000000'; checksum NULL",
      "run 1 is damaged: function", damaged_run=1)
def _(con):
    set_operand_text(con, "targets", "-5 1000000", "targets != ''")


@case("insn_regs_too_many", "one instruction row of run 1: 300 register numbers; checksum NULL",
      "run 1 is damaged: function", damaged_run=1)
def _(con):
    set_operand_text(con, "regs", " ".join(["1"] * 300), "regs != ''")


@case("checksum_mismatch", "functions.checksum of one function of run 1: + 1",
      "run 1 is damaged: function", damaged_run=1)
def _(con):
    fid = hot_function(con, 1)
    con.execute("UPDATE functions SET checksum = checksum + 1 WHERE id = ?", (fid,))


@case("code_truncated", "one function of run 1: its code cut by 3 bytes (size as it was)",
      "run 1 is damaged: function", damaged_run=1)
def _(con):
    fid = hot_function(con, 1)
    con.execute("UPDATE functions SET code = substr(code, 1, length(code) - 3) WHERE id = ?", (fid,))


@case("code_truncated_no_checksum",
      "one function of run 1: its code cut by 3 bytes and size with it; checksum NULL",
      "run 1 is damaged: function", damaged_run=1)
def _(con):
    fid = hot_function(con, 1)
    con.execute("UPDATE functions SET code = substr(code, 1, length(code) - 3),"
                " size = size - 3, checksum = NULL WHERE id = ?", (fid,))


@case("code_text", "one function of run 1: code stored as text (its hex digits)",
      "run 1 is damaged: function", damaged_run=1)
def _(con):
    fid = hot_function(con, 1)
    con.execute("UPDATE functions SET code = hex(code) WHERE id = ?", (fid,))


@case("function_size_negative", "one function of run 1: size -8",
      "run 1 is damaged", damaged_run=1)
def _(con):
    con.execute("UPDATE functions SET size = -8 WHERE id = ?", (hot_function(con, 1),))


@case("function_name_null", "functions.name's NOT NULL taken off; one function of run 1: name NULL",
      "run 1 is damaged", damaged_run=1)
def _(con):
    drop_not_null(con, "functions", "name")
    con.execute("UPDATE functions SET name = NULL WHERE id = ?", (hot_function(con, 1),))


@case("sample_chunk_garbage", "one sample_chunks.data of run 1: bytes 8.. overwritten",
      "", status=0, sqlext="pulley_samples",
      note="the readers take samples from pc_samples, not the chunks; the extension decodes "
           "the chunk and must refuse it")
def _(con):
    (chunk, data) = one(con, "SELECT id, data FROM sample_chunks WHERE run_id = 1 ORDER BY id LIMIT 1")
    con.execute("UPDATE sample_chunks SET data = ? WHERE id = ?",
                (bytes(data[:8]) + b"\x5a" * (len(data) - 8), chunk))


# ---- below SQLite ---------------------------------------------------------------
def raw(name, change, message, sqlext):
    return case(name, change, message, sqlext=sqlext)


@raw("empty_file", "a file of 0 bytes", "not a profile database (application_id 0)", sqlext="")
def _(path):
    open(path, "wb").close()


@raw("not_sqlite", "a text file, not SQLite", "not a database", sqlext="not a database")
def _(path):
    with open(path, "wb") as f:
        f.write(b"pulley profile? no: just some text that is not a database\n" * 100)


@raw("truncated_file", "the file cut in the middle (half its pages)", "malformed",
     sqlext="malformed")
def _(path):
    size = os.path.getsize(path)
    with open(path, "r+b") as f:
        f.truncate(size // 2)


@raw("page_garbage", "every b-tree page after the first three overwritten with 0x5a bytes",
     "malformed", sqlext="malformed")
def _(path):
    size = os.path.getsize(path)
    with open(path, "r+b") as f:
        page = int.from_bytes(f.read(18)[16:18], "big") or 65536
        for at in range(3 * page, size, page):
            f.seek(at)
            f.write(b"\x5a" * page)


RAW = {"empty_file", "not_sqlite", "truncated_file", "page_garbage"}


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: hostile_db.py GOOD.db OUTDIR\n")
        return 2
    good, out = argv[1], argv[2]
    os.makedirs(out, exist_ok=True)
    manifest = []
    for c in CASES:
        path = os.path.join(out, c["name"] + ".db")
        shutil.copyfile(good, path)
        if c["name"] in RAW:
            c["fn"](path)
        else:
            con = sqlite3.connect(path, isolation_level=None)
            try:
                con.execute("BEGIN")
                c["fn"](con)
                if con.in_transaction:
                    con.execute("COMMIT")
            finally:
                con.close()
        manifest.append({k: v for k, v in c.items() if k != "fn"})
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print("hostile_db.py: %d cases in %s" % (len(manifest), out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
