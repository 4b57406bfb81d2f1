#!/usr/bin/env python3
"""op_costs.py - the table of bench/op_costs.sh from its runs (used by it).

    python3 bench/op_costs.py [-v] PENALTY WORK OUT NAME...

For each NAME, WORK/NAME.cg is a callgrind.out file of pulley-run running
the program and WORK/NAME.db the profile database of pulley-collect --exact
running it the same way.  A handler's cost in a program is, in a
tail-dispatch build, the self cost (Ir) callgrind gives its op_<mnemonic>
function; in a computed-goto build (WORK/binary names pulley-run), the
cost of the instructions of the interpreter's function from its label to
the next handler's, the labels read from the dispatch tables primary_ and
extended_ in the binary (callgrind run with --dump-instr=yes).  escape_
(the handler of the escape byte, which then jumps to the extended opcode's
own handler) is shared among the extended opcodes by their executions, one
escape each.
Writes the combined table to OUT ('-': stdout) and the summary to stderr;
-v adds the per-program costs of the most executed opcodes.  NAME nop-probe
(a loop of nops) contributes its nop row only.
"""
import bisect
import sqlite3
import struct
import subprocess
import sys
from collections import defaultdict


def cost_lines(path):
    """The self-cost lines of a callgrind.out file, as (function, address,
    Ir): the address where the positions are "instr line" (callgrind
    --dump-instr=yes), else None.  Format: valgrind's docs, "Callgrind
    Format Specification" (name and position compression included)."""
    names = {}
    fn, npos, ir, skip_next, instr, pos = None, 1, 0, False, False, 0
    with open(path) as f:
        for line in f:
            c = line[:1]
            if c.isdigit() or c in "+-*":      # a cost line: positions, then events
                v = line.split()
                if instr:                       # "+N", "-N", "*" or an address
                    a = v[0]
                    if a[0] in "+-":
                        d = int(a[1:], 0)
                        pos += d if a[0] == "+" else -d
                    elif a != "*":
                        pos = int(a, 0)
                if skip_next:                   # the inclusive cost of a call
                    skip_next = False
                    continue
                if len(v) > npos + ir:
                    yield fn, pos if instr else None, int(v[npos + ir])
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
                instr = line.split()[1] == "instr"
            elif line.startswith("events:"):
                ir = line.split()[1:].index("Ir")


def self_costs(path):
    """Self cost (Ir) per function name in one callgrind.out file, and the
    total."""
    cost = defaultdict(int)
    for fn, _, n in cost_lines(path):
        cost[fn] += n
    return cost, sum(cost.values())


def elf_words(binary, addresses):
    """The 8-byte words a loaded binary holds at the given addresses: a
    relocated (R_X86_64_RELATIVE) entry's addend, else the file's bytes."""
    with open(binary, "rb") as f:
        data = f.read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
                for i in range(shnum)]
    relocated = {}
    for _, stype, _, _, off, size, _, _, _, entsize in sections:
        if stype == 4:  # SHT_RELA
            for o in range(off, off + size, entsize or 24):
                r_offset, r_info, r_addend = struct.unpack_from("<QQq", data, o)
                if r_info & 0xFFFFFFFF == 8:  # R_X86_64_RELATIVE
                    relocated[r_offset] = r_addend
    words = []
    for a in addresses:
        if a in relocated:
            words.append(relocated[a])
            continue
        for _, stype, _, addr, off, size, *_ in sections:
            if stype == 1 and addr <= a < addr + size:  # SHT_PROGBITS
                words.append(struct.unpack_from("<Q", data, off + a - addr)[0])
                break
        else:
            words.append(0)
    return words


def goto_handlers(binary):
    """(sorted handler start addresses, the opcode id at each, the [start,
    end) of the interpreter's functions: run and its parts the compiler
    split off, run.cold) of a computed-goto build."""
    syms = {}
    for line in subprocess.run(["nm", "-S", binary], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        p = line.split()
        if len(p) == 4:
            syms.setdefault(p[3].split(".")[0], []).append((int(p[0], 16), int(p[1], 16)))
    if "primary_" not in syms or "extended_" not in syms:
        sys.exit(f"op_costs.py: {binary}: no dispatch tables primary_ and extended_")
    (pa, psize), = syms["primary_"]
    (ea, esize), = syms["extended_"]
    at = {}
    for i, w in enumerate(elf_words(binary, range(pa, pa + psize, 8))):
        at.setdefault(w, i)                   # invalid entries share one label
    for j, w in enumerate(elf_words(binary, range(ea, ea + esize, 8))):
        at.setdefault(w, 256 + j)
    starts = sorted(a for a in at if a)
    run = [(s, s + n) for s, n in syms.get("run", []) if any(s <= a < s + n for a in starts)]
    if not run:
        sys.exit(f"op_costs.py: {binary}: no function run holds the handlers")
    return starts, [at[a] for a in starts], run


def goto_costs(path, binary, escape_id):
    """Ir per opcode id in a computed-goto build from a callgrind.out file
    with instruction addresses, and the total."""
    starts, ids, funcs = goto_handlers(binary)

    def func_of(a):
        return next((f for f in funcs if f[0] <= a < f[1]), None)

    cost, total = defaultdict(int), 0
    for _, pos, n in cost_lines(path):
        total += n
        # the handler whose label is the last before pos in its function
        k = bisect.bisect_right(starts, pos) - 1
        if k >= 0 and func_of(pos) is not None and func_of(starts[k]) == func_of(pos):
            cost["escape_" if ids[k] == escape_id else ids[k]] += n
    return cost, total


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
    names = dict(db.execute("SELECT id, name FROM opcodes"))
    db.close()
    execs = {name: n for name, _, n in rows if n}
    if sum(execs.values()) != total:
        sys.exit(f"op_costs.py: {path}: counts of instructions with no row")
    return execs, {name for name, op, _ in rows if op >= 256}, names


ESCAPE_BYTE = 0xFF  # interp/isa.h: PVM_ESCAPE_BYTE, the first byte of extended opcodes


def program(work, name, binary):
    """(executions, handler instructions, total, handler total) per opcode;
    binary: the computed-goto build's pulley-run, or None (tail dispatch)."""
    execs, extended, names = executions(f"{work}/{name}.db")
    if binary:
        cost, total = goto_costs(f"{work}/{name}.cg", binary, ESCAPE_BYTE)
        # Code after the label of an opcode that never ran is code the
        # compiler placed there for others (shared exits): outside handlers.
        instr = {names[k]: n for k, n in cost.items() if k in names and execs.get(names[k])}
    else:
        cost, total = self_costs(f"{work}/{name}.cg")
        # op_NAME; a macro op's handler is op_PVMM_NAME (interp/isa.h:
        # PVM_MACRO_ID_PREFIX)
        instr = {f[3:][5:] if f.startswith("op_PVMM_") else f[3:]: n
                 for f, n in cost.items() if f and f.startswith("op_")}
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
    try:  # a computed-goto build's binary; none for tail dispatch
        binary = open(f"{work}/binary").read().strip()
    except FileNotFoundError:
        binary = None
    runs = {}
    for name in names:
        probe = name == "nop-probe"
        execs, instr, total, handlers = program(work, name, binary)
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
