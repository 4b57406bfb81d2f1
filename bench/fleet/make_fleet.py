#!/usr/bin/env python3
"""make_fleet.py - a fleet-sized profile collection made from a seed.

A CI fleet collects every benchmark on every commit: many runs of the same
programs.  This builds such a collection from a seed database (real runs of
the suite's programs made by pulley-collect): the seed's runs are copied
again and again with fresh run, module and function ids, into one database
or spread over several, until there are RUNS runs.  Each copy differs as
runs of one program do: a sampled run's per-pc samples are redrawn around
the seed's (each row's count times a random factor, at least 1), its
samples_written and samples_taken follow; an exact run's counts are the
seed's times a whole factor (1 to 3: longer inputs), which keeps every
count consistent with the edges.  Code, instruction rows and opcode tables
are copied as they are: fleets run the same builds.

    make_fleet.py [--seed N] SEED.db RUNS OUT.db            one database
    make_fleet.py [--seed N] SEED.db RUNS OUT_DIR FILES     FILES databases
                                                            OUT_DIR/fleet-K.db

It writes with SQLite's own copying (INSERT ... SELECT from the attached
seed), so the files are what the schema says, and refuses an OUT that
exists.  Needs only the Python standard library.
"""
import os
import random
import sqlite3
import sys

USAGE = __doc__.split("\n\n")[2]


def fail(msg):
    sys.stderr.write("make_fleet: %s\n" % msg)
    sys.exit(1)


def columns(db, table):
    return [row[1] for row in db.execute("PRAGMA seed.table_info(%s)" % table)]


def id_shift(table, column):
    """Which id space a column is in: 'run', 'module', 'function', 'new'
    (a rowid alias given afresh) or None (copied as it is)."""
    if column == "run_id" or (table == "runs" and column == "id"):
        return "run"
    if column == "module_id" or (table == "modules" and column == "id"):
        return "module"
    if column in ("function_id", "to_function_id") or (table == "functions" and column == "id"):
        return "function"
    if table == "sample_chunks" and column == "id":
        return "new"
    return None


def select_list(table, cols, factor):
    """The SELECT expressions copying `table` with ids moved by the offsets
    bound as :run, :module, :function and its counts redrawn."""
    out = []
    for c in cols:
        shift = id_shift(table, c)
        if shift == "new":
            out.append("NULL")
        elif shift:
            out.append("%s + :%s" % (c, shift))
        elif table == "pc_samples" and c == "samples":
            # Redrawn around the seed's: a factor from 0.75 to 1.25 per
            # row (a hash of the row and the copy's :salt, so that a
            # --seed makes the same files), never below 1.
            out.append("max(1, CAST(samples * (0.75 + ((rowid * 2654435761 + :salt) % 1000)"
                       " / 2000.0) AS INTEGER))")
        elif table in ("exec_counts", "edge_counts") and c == "count":
            out.append("count * %d" % factor)
        else:
            out.append(c)
    return ", ".join(out)


def run_filter(table, cols, runs):
    """The WHERE clause that keeps the rows of seed runs `runs` in `table`."""
    ids = ", ".join(str(r) for r in runs)
    if table == "runs":
        return "id IN (%s)" % ids
    if "run_id" in cols:
        return "run_id IN (%s)" % ids
    if "function_id" in cols:
        return "function_id IN (SELECT id FROM seed.functions WHERE run_id IN (%s))" % ids
    fail("table %s names no run: the seed's schema is not one this script knows" % table)


def copy_runs(out, tables, runs, offsets, factor):
    """Copy seed runs `runs` (their ids) with ids moved by offsets."""
    for table, cols in tables:
        out.execute("INSERT INTO main.%s (%s) SELECT %s FROM seed.%s WHERE %s" %
                    (table, ", ".join(cols), select_list(table, cols, factor), table,
                     run_filter(table, cols, runs)), offsets)
    # A sampled run's totals follow its redrawn samples.
    out.execute("UPDATE main.runs SET samples_written ="
                " (SELECT coalesce(sum(samples), 0) FROM main.pc_samples p WHERE p.run_id = runs.id),"
                " samples_taken = (SELECT coalesce(sum(samples), 0) FROM main.pc_samples p"
                " WHERE p.run_id = runs.id) + coalesce(samples_dropped, 0)"
                " WHERE id > :run AND exact = 0", offsets)


def make(seed_path, runs_wanted, out_paths, rng):
    if not os.path.isfile(seed_path):
        fail("%s: no such file" % seed_path)
    for p in out_paths:
        if os.path.exists(p):
            fail("%s exists: give a new name" % p)
    probe = sqlite3.connect("file:%s?mode=ro" % seed_path, uri=True)
    try:
        version = probe.execute("PRAGMA user_version").fetchone()[0]
        schema = [r[0] for r in probe.execute(
            "SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'"
            " ORDER BY type = 'index', rowid")]
        app = probe.execute("PRAGMA application_id").fetchone()[0]
        seed_runs = probe.execute("SELECT count(*) FROM runs").fetchone()[0]
        span = {k: probe.execute("SELECT coalesce(max(id), 0) FROM %s" % t).fetchone()[0]
                for k, t in (("run", "runs"), ("module", "modules"), ("function", "functions"))}
    except sqlite3.DatabaseError as e:
        fail("%s: not a profile database: %s" % (seed_path, e))
    finally:
        probe.close()
    if seed_runs == 0:
        fail("%s has no runs" % seed_path)
    seed_ids = [r for (r,) in probe_ids(seed_path)]
    copies = -(-runs_wanted // len(seed_ids))
    # Units of work: (copy, seed run), dealt out in order, as evenly as
    # the files allow.
    units = [(k, r) for k in range(copies) for r in seed_ids]
    factors = [rng.randint(1, 3) for _ in range(copies)]
    salts = [rng.randrange(1 << 30) for _ in range(copies)]
    made = 0
    for n, path in enumerate(out_paths):
        mine = units[n * len(units) // len(out_paths):(n + 1) * len(units) // len(out_paths)]
        out = sqlite3.connect(path)
        out.execute("PRAGMA journal_mode = OFF")
        out.execute("PRAGMA synchronous = OFF")
        out.execute("PRAGMA application_id = %d" % app)
        for sql in schema:
            out.execute(sql)
        out.execute("PRAGMA user_version = %d" % version)
        out.execute("ATTACH DATABASE ? AS seed", ("file:%s?mode=ro" % seed_path,))
        tables = [(t, columns(out, t)) for (t,) in out.execute(
            "SELECT name FROM seed.sqlite_schema WHERE type = 'table'"
            " AND name NOT LIKE 'sqlite_%' ORDER BY rowid")]
        for k in sorted({k for k, _ in mine}):
            offsets = {key: k * span[key] for key in span}
            offsets["salt"] = salts[k]
            with out:
                copy_runs(out, tables, [r for kk, r in mine if kk == k], offsets, factors[k])
        made += len(mine)
        out.execute("DETACH DATABASE seed")
        out.close()
        if sys.stderr.isatty() or n + 1 == len(out_paths):
            sys.stderr.write("\rmake_fleet: %d of %d runs written in %d of %d files" %
                             (made, len(units), n + 1, len(out_paths)))
    sys.stderr.write("\n")


def probe_ids(seed_path):
    db = sqlite3.connect("file:%s?mode=ro" % seed_path, uri=True)
    try:
        return db.execute("SELECT id FROM runs ORDER BY id").fetchall()
    finally:
        db.close()


def main(argv):
    rng_seed = 1
    if len(argv) > 2 and argv[1] == "--seed":
        rng_seed = int(argv[2])
        argv = argv[:1] + argv[3:]
    if len(argv) > 1 and argv[1] in ("-h", "--help"):
        print(USAGE)
        return
    if len(argv) not in (4, 5):
        sys.stderr.write("usage:\n%s\n" % USAGE)
        sys.exit(2)
    try:
        runs = int(argv[2])
        files = int(argv[4]) if len(argv) == 5 else 0
    except ValueError:
        fail("RUNS and FILES are whole numbers")
    if runs < 1 or (len(argv) == 5 and files < 1):
        fail("RUNS and FILES are at least 1")
    if len(argv) == 5:
        os.makedirs(argv[3], exist_ok=True)
        outs = [os.path.join(argv[3], "fleet-%03d.db" % k) for k in range(files)]
    else:
        outs = [argv[3]]
    random.seed(rng_seed)
    make(argv[1], runs, outs, random)


if __name__ == "__main__":
    main(sys.argv)
