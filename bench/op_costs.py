#!/usr/bin/env python3
"""op_costs.py - the table of bench/op_costs.sh from its runs (used by it).

    python3 bench/op_costs.py [-v] WORK OUT NAME...

For each NAME, WORK/NAME.cg is a callgrind.out file of pulley-run running
the program and WORK/NAME.db the profile database of pulley-collect --exact
running it the same way.  A handler's cost in a program is the self cost
(Ir) callgrind gives its op_<mnemonic> function; escape_ (the handler of the
escape byte, which then tail-jumps to the extended opcode's own handler) is
shared among the extended opcodes by their executions, one escape each.
Writes the combined table to OUT ('-': stdout) and the summary to stderr;
-v adds the per-program costs of the most executed opcodes.  NAME nop-probe
(a loop of nops) contributes its nop row only.
"""
import sqlite3
import sys
from collections import defaultdict


def self_costs(path):
    """Self cost (Ir) per function name in one callgrind.out file, and the
    total.  Format: valgrind's docs, "Callgrind Format Specification"."""
    names, cost = {}, defaultdict(int)
    fn, npos, ir, skip_next = None, 1, 0, False
    with open(path) as f:
        for line in f:
            c = line[:1]
            if c.isdigit() or c in "+-*":      # a cost line: positions, then events
                if skip_next:                   # the inclusive cost of a call
                    skip_next = False
                    continue
                v = line.split()[npos:]
                if len(v) > ir:
                    cost[fn] += int(v[ir])
            elif line.startswith(("fn=", "cfn=")):
                # name compression: "(id) name" defines id, "(id)" reuses it
                s = line.split("=", 1)[1].strip()
                if s.startswith("("):
                    i, _, rest = s.partition(")")
                    s = names.setdefault(i, rest.strip())
                if c == "f":
                    fn = s.split("'")[0]        # "f'2": a recursion level of f
            elif line.startswith("calls="):
                skip_next = True
            elif line.startswith("positions:"):
                npos = len(line.split()) - 1
            elif line.startswith("events:"):
                ir = line.split()[1:].index("Ir")
    return cost, sum(cost.values())


def executions(path):
    """Executions per opcode name of the one exact run in a profile database,
    and the names of the extended opcodes (ids from 256)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    runs = db.execute("SELECT id, exact, counts_unmapped FROM runs").fetchall()
    if len(runs) != 1 or runs[0][1] != 1 or runs[0][2]:
        sys.exit(f"op_costs.py: {path}: not one whole exact run: {runs}")
    rows = db.execute(
        """SELECT o.name, o.id, SUM(e.count) FROM exec_counts e
           JOIN instructions i ON i.function_id = e.function_id AND i.offset = e.offset
           JOIN functions f ON f.id = e.function_id
           JOIN opcodes o ON o.run_id = f.run_id AND o.id = i.opcode
           GROUP BY o.id""").fetchall()
    total = db.execute("SELECT SUM(count) FROM exec_counts").fetchone()[0] or 0
    db.close()
    execs = {name: n for name, _, n in rows if n}
    if sum(execs.values()) != total:
        sys.exit(f"op_costs.py: {path}: counts of instructions with no row")
    return execs, {name for name, op, _ in rows if op >= 256}


def program(work, name):
    """(executions, handler instructions, total, handler total) per opcode."""
    cost, total = self_costs(f"{work}/{name}.cg")
    execs, extended = executions(f"{work}/{name}.db")
    instr = {f[3:]: n for f, n in cost.items() if f and f.startswith("op_")}
    escape = cost.get("escape_", 0)
    ext = sum(n for op, n in execs.items() if op in extended)
    for op in extended & execs.keys():
        instr[op] = instr.get(op, 0) + escape * execs[op] / ext
    for op in sorted(execs.keys() ^ {op for op, n in instr.items() if n}):
        print(f"op_costs.py: {name}: {op} ran {execs.get(op, 0)} times in the exact "
              f"run but took {instr.get(op, 0):.0f} instructions under callgrind: the two "
              "runs did not run the same code", file=sys.stderr)
        sys.exit(1)
    return execs, instr, total, sum(instr.values())


def main(argv):
    verbose = argv[:1] == ["-v"]
    if verbose:
        argv = argv[1:]
    penalty = float(argv[0])
    work, out, names = argv[1], argv[2], argv[3:]
    runs = {}
    for name in names:
        probe = name == "nop-probe"
        execs, instr, total, handlers = program(work, name)
        if probe:
            execs, instr = {"nop": execs["nop"]}, {"nop": instr["nop"]}
        runs[name] = (execs, instr, total, handlers, probe)
    # The combined table: instructions over executions, summed over programs.
    E, I = defaultdict(int), defaultdict(float)
    for execs, instr, *_ in runs.values():
        for op, n in execs.items():
            E[op] += n
            I[op] += instr[op]
    cost = {op: I[op] / E[op] for op in E}
    f = sys.stdout if out == "-" else open(out, "w")
    if penalty:
        f.write(f"# per_execution: machine instructions + a dispatch penalty of {penalty:g}\n")
    f.write("opcode\texecutions\tinstructions\tper_execution\n")
    for op in sorted(E):
        f.write(f"{op}\t{E[op]}\t{I[op]:.0f}\t{cost[op] + penalty:.3f}\n")
    if f is not sys.stdout:
        f.close()
    # The summary: per program, where its machine instructions went, and how
    # far one cost per opcode (the combined table) is from its handlers' sum.
    err = sys.stderr
    err.write(f"{'program':<14} {'instructions':>13} {'in handlers':>13} {'outside':>8} "
              f"{'VM instrs':>11} {'per VM instr':>12} {'model error':>11}\n")
    sums = [0, 0, 0, 0]
    for name, (execs, instr, total, handlers, probe) in runs.items():
        if probe:
            err.write(f"{name:<14} nop: {cost['nop']:.3f} instructions an execution "
                      "(the dispatch cost; used for its nop row only)\n")
            continue
        vm = sum(execs.values())
        model = sum(n * cost[op] for op, n in execs.items())
        for i, v in enumerate((total, handlers, vm, model)):
            sums[i] += v
        err.write(f"{name:<14} {total:>13,} {handlers:>13,.0f} "
                  f"{100 * (total - handlers) / total:>7.1f}% {vm:>11,} "
                  f"{handlers / vm:>12.2f} {100 * (model - handlers) / handlers:>+10.2f}%\n")
    total, handlers, vm, model = sums
    if vm:
        err.write(f"{'all':<14} {total:>13,} {handlers:>13,.0f} "
                  f"{100 * (total - handlers) / total:>7.1f}% {vm:>11,} "
                  f"{handlers / vm:>12.2f} {100 * (model - handlers) / handlers:>+10.2f}%\n")
    if verbose:  # per-program cost of the 15 most executed opcodes
        progs = [n for n in runs if not runs[n][4]]
        top = sorted(E, key=lambda o: -E[o])[:15]
        w = max(len(op) for op in top)
        err.write(f"\n{'opcode':<{w}} {'executions':>12} {'cost':>7} "
                  + " ".join(f"{n[:8]:>8}" for n in progs) + "\n")
        for op in top:
            cells = []
            for n in progs:
                execs, instr = runs[n][:2]
                cells.append(f"{instr[op] / execs[op]:>8.2f}" if execs.get(op) else f"{'-':>8}")
            err.write(f"{op:<{w}} {E[op]:>12,} {cost[op]:>7.2f} " + " ".join(cells) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
