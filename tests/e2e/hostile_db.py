#!/usr/bin/python3
"""hostile_db.py - the readers on hostile profile databases (ctest e2e_hostile_db).

Collects a good profile of loops.pasm (run 1 sampled, run 2 exact), makes
one hostile copy per case with tests/hostile/hostile_db.py, and runs on
each: pulley-ngrams, pulley-report --text, pulley-report -o FILE.html and
the SQL extension in the sqlite3 shell.  Each must end with the case's
exit status and message (naming the file, and the run and row where the
case says), never by a signal or with a sanitizer report; a refused report
leaves no HTML file; with --skip-damaged the damaged run is left out,
saying so, and the other run is read.  Every failure is listed, then the
test fails.
Environment: PULLEY_COLLECT, PULLEY_NGRAMS, PULLEY_REPORT, SQLITE3, SQLEXT,
SQLEXT_PRELOAD (sanitizer builds: the runtime the shell preloads), PROGRAMS.
"""
import importlib.util
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ENV = {k: os.environ.get(k, "") for k in
       ("PULLEY_COLLECT", "PULLEY_NGRAMS", "PULLEY_REPORT", "SQLITE3", "SQLEXT",
        "SQLEXT_PRELOAD", "PROGRAMS")}
for k, v in ENV.items():
    if not v and k != "SQLEXT_PRELOAD":
        sys.exit("hostile_db.py: %s is not set" % k)

# What the extension is asked on every case: every function decoded with
# its run's table, every sample chunk expanded with its run.
SQLEXT_QUERIES = [
    "SELECT count(*) FROM functions f, pulley_insns(f.code, f.run_id, f.module_id) x",
    "SELECT count(*) FROM sample_chunks c, pulley_samples(c.data, c.run_id) s",
]
failures = []


def run(cmd, env=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def check(case, what, cmd, status, message, env=None, path=None):
    """Run cmd; it must exit with status, print message on stderr (and the
    file's path, when refused), no signal, no sanitizer report."""
    rc, out, err = run(cmd, env)
    where = "%s: %s" % (case, what)
    if rc < 0 or rc >= 128:
        failures.append("%s: ended by signal %d: %s" % (where, -rc if rc < 0 else rc - 128, err[-2000:]))
        return rc, err, out
    if "Sanitizer" in err or "runtime error" in err:
        failures.append("%s: sanitizer report: %s" % (where, err[-3000:]))
        return rc, err, out
    if status is not None and rc != status:
        failures.append("%s: exit status %d, expected %d; stderr: %s" % (where, rc, status, err.strip()[:600]))
        return rc, err, out
    if message and message not in err:
        failures.append("%s: expected a message with '%s'; stderr: %s" % (where, message, err.strip()[:600]))
    if path and rc != 0 and path not in err:
        failures.append("%s: the message does not name the file: %s" % (where, err.strip()[:600]))
    return rc, err, out


def collect(db, *args):
    rc, _, err = run([ENV["PULLEY_COLLECT"], "--no-fuse", "-o", db, *args])
    if rc != 0:
        sys.exit("FAIL: pulley-collect %s: status %d: %s" % (" ".join(args), rc, err))


def shell(db, sql):
    cmd = [ENV["SQLITE3"], "-bail", "-cmd", ".load " + ENV["SQLEXT"], db, sql]
    env = dict(os.environ)
    if ENV["SQLEXT_PRELOAD"]:
        env["LD_PRELOAD"] = ENV["SQLEXT_PRELOAD"]
    return cmd, env


def tools(db, html):
    ngrams, report = ENV["PULLEY_NGRAMS"], ENV["PULLEY_REPORT"]
    return [("pulley-ngrams", [ngrams, db]),
            ("pulley-report --text", [report, "--text", db]),
            ("pulley-report -o", [report, db, "-o", html])]


def main():
    tmp = tempfile.mkdtemp(prefix="hostile_db.")
    try:
        good = os.path.join(tmp, "good.db")
        loops = os.path.join(ENV["PROGRAMS"], "loops.pasm")
        collect(good, "--freq", "5000", "--invoke", "loops", "--", loops, "5000")
        collect(good, "--exact", "--invoke", "loops", "--", loops, "300")
        # Run 1 has samples in at least two places (sample_sum_overflow).
        con = sqlite3.connect(good)
        (places,) = con.execute("SELECT count(*) FROM pc_samples WHERE run_id = 1"
                                " AND function_id IS NOT NULL").fetchone()
        con.close()
        if places < 2:
            sys.exit("FAIL: run 1 has samples in %d places, not 2 or more" % places)
        # The good profile reads as normal everywhere: both runs, no word.
        for what, cmd in tools(good, os.path.join(tmp, "good.html")):
            rc, err, _ = check("good", what, cmd, 0, None)
            if err.strip() and not err.startswith("pulley-report: wrote "):
                failures.append("good: %s said: %s" % (what, err.strip()))
        for q in SQLEXT_QUERIES:
            cmd, env = shell(good, q)
            check("good", "sqlext " + q, cmd, 0, None, env=env)
        if failures:
            sys.exit("FAIL: the good profile:\n" + "\n".join(failures))

        spec = importlib.util.spec_from_file_location(
            "hostile_db", os.path.join(HERE, "..", "hostile", "hostile_db.py"))
        gen = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(gen)
        cases_dir = os.path.join(tmp, "cases")
        if gen.main(["hostile_db.py", good, cases_dir]) != 0:
            sys.exit("FAIL: hostile_db.py could not make the cases")
        with open(os.path.join(cases_dir, "manifest.json")) as f:
            manifest = json.load(f)

        for c in manifest:
            name, db = c["name"], os.path.join(cases_dir, c["name"] + ".db")
            html = os.path.join(tmp, name + ".html")
            for what, cmd in tools(db, html):
                check(name, what, cmd, c["status"], c["message"], path=db)
                if c["status"] != 0 and os.path.exists(html):
                    failures.append("%s: %s: refused, yet wrote %s" % (name, what, html))
                if c["damaged_run"] is not None:
                    left = "left out run %d of %s: it is damaged" % (c["damaged_run"], db)
                    rc, _, out = check(name, what + " --skip-damaged", cmd + ["--skip-damaged"], 0, left)
                    # ... and the other run is read.
                    if rc == 0 and what == "pulley-ngrams" and "(1 runs, 1 benchmarks)" not in out:
                        failures.append("%s: --skip-damaged did not read the other run: %s"
                                        % (name, out[:300]))
            # The extension: no query crashes; with a message expected, one
            # of them is refused with it (each reads only part of a run).
            refused = []
            for q in SQLEXT_QUERIES:
                cmd, env = shell(db, q)
                rc, err, _ = check(name, "sqlext " + q, cmd, None, None, env=env)
                # The shell ends with 1, or SQLite's result code for a file
                # it cannot open as a database (11 malformed, 26 not a db).
                if rc != 0 and c["sqlext"] is not None and c["sqlext"] in err:
                    refused.append(q)
                elif rc not in (0, 1, 11, 26):
                    failures.append("%s: sqlext %s: exit status %d: %s" % (name, q, rc, err[:600]))
            if c["sqlext"] is not None and not refused:
                failures.append("%s: no sqlext query was refused with '%s'" % (name, c["sqlext"]))
            print("%-36s %s" % (name, c["change"]))
        if failures:
            print("\n".join("FAIL: " + f for f in failures), file=sys.stderr)
            print("%d failures in %d cases" % (len(failures), len(manifest)), file=sys.stderr)
            return 1
        print("hostile_db: ok (%d cases)" % len(manifest))
        return 0
    finally:
        if os.environ.get("HOSTILE_KEEP"):
            print("kept", tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
