#!/usr/bin/python3
"""make_db_seeds.py GOOD.db: regenerate tests/data/fuzz_db/ from a
good profile (run 1 sampled, run 2 exact, as tests/e2e/hostile_db.py
collects it).

The profile is made small first (opcode rows no instruction uses and the
views dropped, texts the readers do not read and the schema's comments
taken out, 512-byte pages),
then tests/hostile/hostile_db.py makes its cases from it and a few are
kept, with the small good profile itself: the replay's and the fuzzer's
seeds.
"""
import importlib.util
import os
import re
import shutil
import sqlite3
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
KEEP = ["count_sum_overflow", "pc_dangling_function", "exec_other_run_function",
        "opcode_duplicate_name", "insn_opcode_mismatch", "function_name_null", "truncated_file"]


def shrink(path):
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("PRAGMA journal_mode = DELETE")
    con.execute("BEGIN")
    for (name,) in con.execute("SELECT name FROM sqlite_schema WHERE type = 'view'").fetchall():
        con.execute('DROP VIEW "%s"' % name)
    con.execute("DELETE FROM opcodes WHERE NOT EXISTS (SELECT 1 FROM instructions i"
                " JOIN functions f ON f.id = i.function_id WHERE f.run_id = opcodes.run_id"
                " AND i.opcode = opcodes.id)")
    con.execute("UPDATE opcodes SET semantics = '', wide_form = NULL")
    con.execute("UPDATE runs SET command_line = 'x', host = 'x', build_flags = 'x'")
    con.execute("COMMIT")
    # The stored CREATE statements without their comments (the same
    # tables: the records do not change).
    rows = con.execute("SELECT type, name, sql FROM sqlite_schema WHERE sql IS NOT NULL").fetchall()
    (version,) = con.execute("PRAGMA schema_version").fetchone()
    con.execute("PRAGMA writable_schema = ON")
    for kind, name, sql in rows:
        bare = " ".join(re.sub(r"--[^\n]*", "", sql).split())
        con.execute("UPDATE sqlite_schema SET sql = ? WHERE type = ? AND name = ?", (bare, kind, name))
    con.execute("PRAGMA schema_version = %d" % (version + 1))
    con.execute("PRAGMA writable_schema = OFF")
    con.execute("PRAGMA page_size = 512")
    con.execute("VACUUM")
    con.close()


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: make_db_seeds.py GOOD.db\n")
        return 2
    out = os.path.join(HERE, "..", "data", "fuzz_db")
    tmp = tempfile.mkdtemp()
    try:
        good = os.path.join(tmp, "good.db")
        shutil.copyfile(argv[1], good)
        shrink(good)
        spec = importlib.util.spec_from_file_location(
            "hostile_db", os.path.join(HERE, "..", "hostile", "hostile_db.py"))
        gen = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(gen)
        if gen.main(["hostile_db.py", good, os.path.join(tmp, "cases")]) != 0:
            return 1
        os.makedirs(out, exist_ok=True)
        shutil.copyfile(good, os.path.join(out, "good.db"))
        for name in KEEP:
            shutil.copyfile(os.path.join(tmp, "cases", name + ".db"), os.path.join(out, name + ".db"))
        print("make_db_seeds.py: %d inputs in %s" % (len(KEEP) + 1, out))
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
