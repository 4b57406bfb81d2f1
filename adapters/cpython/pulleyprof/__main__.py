"""python3 -m pulleyprof: run a Python script (or module) with its bytecode
sampled, or counted, into a profile database (libpulleyprof)."""
import argparse
import os
import pkgutil  # noqa: F401 - runpy.run_path's own import: loaded here, not in the profile
import runpy
import sys

from . import SUPPORTED, cpython_opcodes, isa_name

EPILOG = """\
Only the main thread is profiled.  Sampling reads, from the sampler's
thread, the instruction CPython records in the current frame: the script
runs at nearly its own speed; time in C functions counts for the
instruction that called them.  --trace samples through a trace function
with opcode events instead (PyTrace_OPCODE: several times slower, C
functions count as host time); --exact counts every instruction that way.

Exit status: the script's own (0 on return, its SystemExit code, 1 on an
uncaught exception, 130 on Ctrl-C); 1 when the profile cannot be written
(the run is then marked incomplete); 2 for bad usage."""


def parse(argv):
    p = argparse.ArgumentParser(
        prog="python3 -m pulleyprof", description=__doc__, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-o", "--output", default="pulleyprof.db", metavar="DB",
                   help="profile database to create or append a run to (default %(default)s)")
    p.add_argument("--hz", type=int, default=0, metavar="N",
                   help="samples per second (default 10000)")
    p.add_argument("--exact", action="store_true", help="count every instruction instead of sampling")
    p.add_argument("--trace", action="store_true",
                   help="sample through opcode events (a trace function) instead of frames")
    p.add_argument("--label", help="a name for the run, for pulley-ngrams --runs label:NAME")
    p.add_argument("--name", help="the benchmark's name in the profile (default: the script's"
                   " or module's name); the analysis weighs every benchmark the same")
    p.add_argument("-m", dest="module", metavar="MODULE", help="run a module, as python3 -m does")
    p.add_argument("-V", "--version", action="version", version="pulleyprof (CPython 3.11 adapter)")
    p.add_argument("script", nargs="?", help="the script to run")
    p.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    o = p.parse_args(argv)
    if o.module and o.script:
        o.args.insert(0, o.script)
        o.script = None
    if not o.module and not o.script:
        p.error("a script or -m MODULE is required")
    if o.hz < 0 or o.hz > 1000000:
        p.error("--hz must be 1 to 1000000")
    if o.script and not os.path.isfile(o.script):
        p.error("no such script: %s" % o.script)
    return o


def main(argv):
    o = parse(argv)
    if sys.version_info[:2] != SUPPORTED:
        sys.stderr.write("pulleyprof: CPython %d.%d is not supported (3.11 only: its opcode"
                         " events and co_code)\n" % sys.version_info[:2])
        return 2
    from . import _pulleyprof
    target = o.module or o.script
    sys.argv = [target] + o.args
    if o.script:
        sys.path[0] = os.path.dirname(os.path.abspath(o.script))
    _pulleyprof.start(o.output, cpython_opcodes(), isa_name(), hz=o.hz, exact=o.exact, trace=o.trace,
                      label=o.label, benchmark=o.name or os.path.basename(target),
                      command_line=" ".join(["python3 -m pulleyprof"] + argv))
    outcome, status = "return", 0
    try:
        if o.module:
            runpy.run_module(o.module, run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(o.script, run_name="__main__")
    except SystemExit as e:
        code = e.code
        status = code if isinstance(code, int) else (0 if code is None else 1)
        outcome = "exit"
        if code is not None and not isinstance(code, int):
            sys.stderr.write("%s\n" % code)
    except KeyboardInterrupt:
        outcome, status = "signal SIGINT", 130
    except BaseException as e:  # the script's own error: report it, keep the profile
        import traceback
        traceback.print_exc()
        outcome, status = "exception: %s" % type(e).__name__, 1
    try:
        s = _pulleyprof.stop(outcome, status)
    except OSError as e:
        sys.stderr.write("%s\n" % e)
        return 1
    what = ("%d instructions executed (exact counts)" % s["executed"] if o.exact
            else "%d samples" % s["samples"])
    if s["unattributed"]:
        what += (" (%d in code gone before the run ended: stored without a function)"
                 % s["unattributed"])
    sys.stderr.write("pulleyprof: %s in %.3f s, run %d in %s\n"
                     % (what, s["seconds"], s["run"], o.output))
    if s["failed"]:
        sys.stderr.write("pulleyprof: a code object could not be registered: the profile stops"
                         " there\n")
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
