#!/usr/bin/env python3
"""closed_pipe.py - a report read by a reader that stops early (`| head -1`)
or that has gone before the tool writes a byte: pulley-ngrams --emit-macros
F and pulley-report --text exit 0, say nothing on stderr, and F is written
whole (the same bytes as with the whole report read).  The tool's own exit
status is checked, which `sh -c '... | head -1'` would hide.
Environment: PULLEY_COLLECT, PULLEY_NGRAMS, PULLEY_REPORT, PROGRAMS."""
import os
import subprocess
import sys
import tempfile


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def body(path):
    """A .macros file without its comment (which names the command line)."""
    with open(path, "rb") as f:
        return b"".join(line for line in f if not line.startswith(b"#"))


def run_gone(cmd):
    """cmd with stdout a pipe nobody reads: the read end closed before it
    starts, so its first write is EPIPE (or SIGPIPE).  (status, stderr)"""
    r, w = os.pipe()
    os.close(r)
    try:
        p = subprocess.run(cmd, stdout=w, stderr=subprocess.PIPE, timeout=300)
    finally:
        os.close(w)
    return p.returncode, p.stderr.decode(errors="replace")


def run_head(cmd):
    """cmd | head -1, the reader closing after one line.  (status, first
    line, stderr)"""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    line = p.stdout.readline()
    p.stdout.close()
    err = p.stderr.read().decode(errors="replace")
    return p.wait(timeout=300), line, err


def main():
    collect, ngrams, report, programs = (os.environ[k] for k in
                                         ("PULLEY_COLLECT", "PULLEY_NGRAMS", "PULLEY_REPORT",
                                          "PROGRAMS"))
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "p.db")
        subprocess.run([collect, "--no-fuse", "--exact", "-o", db, "--invoke", "loops", "--",
                        os.path.join(programs, "loops.pasm"), "60"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        whole = os.path.join(tmp, "whole.macros")
        subprocess.run([ngrams, db, "--top", "4", "--emit-macros", whole],
                       stdout=subprocess.DEVNULL, check=True)
        want = body(whole)
        if b"\nend\n" not in want:
            fail("no macro op emitted: %r" % want)
        for how, run in (("closed before writing", run_gone), ("| head -1", run_head)):
            f = os.path.join(tmp, "set.macros")
            if os.path.exists(f):
                os.unlink(f)
            res = run([ngrams, db, "--top", "4", "--emit-macros", f])
            status, err = res[0], res[-1]
            if status != 0:
                fail("pulley-ngrams --emit-macros F, stdout %s: exit %d; stderr: %s"
                     % (how, status, err))
            if err:
                fail("pulley-ngrams, stdout %s: said %r" % (how, err))
            if not os.path.exists(f) or body(f) != want:
                fail("pulley-ngrams, stdout %s: F is missing or not the whole set" % how)
            if how == "| head -1" and not res[1].strip():
                fail("pulley-ngrams | head -1: no first line")
            for cmd in ([ngrams, db, "--evaluate", whole], [report, db, "--text"]):
                res = run(cmd)
                status, err = res[0], res[-1]
                if status != 0 or err:
                    fail("%s, stdout %s: exit %d; stderr: %r" % (" ".join(cmd[:1] + cmd[2:]), how,
                                                                  status, err))
        # A write error that is not a closed reader still fails, naming it.
        if os.path.exists("/dev/full"):
            with open("/dev/full", "w") as full:
                p = subprocess.run([ngrams, db, "--top", "4"], stdout=full, stderr=subprocess.PIPE)
            if p.returncode != 1 or b"standard output" not in p.stderr:
                fail("pulley-ngrams > /dev/full: exit %d; stderr: %r" % (p.returncode, p.stderr))
    print("closed_pipe: ok")


if __name__ == "__main__":
    main()
