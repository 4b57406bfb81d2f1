#!/usr/bin/python3
"""families.py - which of the fusion families that Pulley's maintainers
added by hand appear among pulley-ngrams' proposals.

    families.py (--opcodes TABLE.json | --dis PULLEY-DIS) [--top K]
                [--format text|json] [--list] [[NAME=]JSON ...]

The ISA comes from the build: TABLE.json is `pulley-dis --opcodes` output
(or --dis runs that pulley-dis); each opcode has an operation class there
(interp/opcodes.def's class column).  A family is stated in classes, never
in mnemonics, so that every form of an operation (xgt32_u_imm as xeq32) is
in it.

Each JSON is the output of `pulley-ngrams --format json` (a file, or "-"
for stdin; the default is stdin), a column of the report named NAME (default
"proposals"): e.g. exact=exact.json sampled=sampled.json.  The first K
proposals of each (default: all) are classified into the families below;
a proposal may belong to several, or to none.  For each family the report
gives whether the baseline already has its fused operation as one opcode
("in the baseline"), and per column the best (lowest) rank, that proposal's
opcodes, the pair that made it a member and every rank; then, per column,
the proposals in no family, with the families they are a piece of, if any
(a hint, never counted).

Exit status: 0; 1 unreadable input; 2 usage; 3 a family names a class that
no opcode of the table has (the table changed: this file needs updating).
Python 3 standard library only.
"""

import argparse
import json
import signal
import subprocess
import sys

INT_CONSTANTS = {"s8", "s16", "s32", "i64", "u32"}
ACCESS = {"load", "store", "heap_load", "heap_store"}
ARITH = {"add", "multiply", "int_alu", "compare"}


def reads(op):
    """The number of register operands op reads."""
    return sum(1 for r in op["roles"].split() if "r" in r)


def imms(op):
    """The immediate kinds of op ("s32", "rel32", ...)."""
    return [w for w in op["operands"].split() if w not in ("x", "f")]


# A family: its name; rules (A classes, B classes, between classes or None,
# link): a proposal is a member when an element of an A class comes before
# one of a B class, and they are adjacent, or every element between is of a
# between class, or (link True) the A element writes a register the B
# element reads (an operand link of the pattern); link "address": only
# when the A element writes the register the B element (an access) takes
# its address from, its first register read - adjacency is not enough (an
# add whose sum is the value stored is no address computation); run:
# (classes, n) - n or more adjacent elements of these classes are a member
# too (a run of register saves is the frame family's work, wherever the
# block it was mined in ends); fused(op): whether baseline opcode op is the
# family's fused operation, one opcode doing what the pair does - then the
# family is "in the baseline" and is no discovery.  Each fused test is
# stated on the table's columns (class, operands, roles), never on names.
FAMILIES = [
    {"name": "compare + branch",
     "rules": [({"compare"}, {"cond_branch"}, None, True)],
     # a conditional branch that compares: it reads two registers, or one
     # and a constant besides its branch offset (br_if reads one, no more)
     "fused": lambda op: op["class"] == "cond_branch" and (
         reads(op) >= 2 or any(i in INT_CONSTANTS for i in imms(op)))},
    {"name": "constant + arithmetic",
     "rules": [({"const"}, ARITH, None, True)],
     # arithmetic or a comparison with a constant operand (xadd32_imm)
     "fused": lambda op: op["class"] in ARITH and any(i in INT_CONSTANTS for i in imms(op))},
    {"name": "bounds check + load/store",
     "rules": [({"bounds_check"}, ACCESS, {"add", "heap"}, True),
               ({"heap"}, ACCESS, {"add"}, True)],
     # an access that checks a Wasm address's bounds itself (the _g32 ops;
     # Pulley's largest win)
     "fused": lambda op: op["class"] in ("heap_load", "heap_store")},
    {"name": "address + load/store",
     "rules": [({"add"}, ACCESS, None, "address")],
     # an access whose address is a sum of two registers: a load reading
     # two registers, a store three (the stored value besides)
     "fused": lambda op: op["class"] in ACCESS and reads(op) >= (
         2 if op["class"] in ("load", "heap_load") else 3)},
    {"name": "frame push + register saves",
     "rules": [({"frame_push"}, {"register_save"}, {"register_save"}, False)],
     "run": ({"register_save"}, 2),
     # a frame push that saves registers too (Pulley's push_frame_save)
     "fused": lambda op: op["class"] == "frame_push" and op["operands"] != ""},
    {"name": "register restores + frame pop",
     "rules": [({"register_restore"}, {"frame_pop"}, {"register_restore"}, False)],
     "run": ({"register_restore"}, 2),
     # Pulley's pop_frame_restore
     "fused": lambda op: op["class"] == "frame_pop" and op["operands"] != ""},
    {"name": "argument moves + call",
     "rules": [({"move"}, {"call"}, {"move"}, False)],
     # a call that takes argument registers (more than an indirect call's
     # callee reference)
     "fused": lambda op: op["class"] == "call" and reads(op) >= 2},
    {"name": "multiply + add",
     "rules": [({"multiply"}, {"add"}, None, True)],
     # a multiply-add: three operands read, no constant
     "fused": lambda op: op["class"] in ("multiply", "add") and reads(op) >= 3},
]


def family_classes(fam):
    out = set()
    for a, b, between, _ in fam["rules"]:
        out |= a | b | (between or set())
    if "run" in fam:
        out |= fam["run"][0]
    return out


class Table:
    """The opcode table of `pulley-dis --opcodes`: class of each name."""

    def __init__(self, data):
        ops = data.get("opcodes") if isinstance(data, dict) else None
        if not isinstance(ops, list) or not ops:
            raise ValueError("no \"opcodes\" list (is this pulley-dis --opcodes output?)")
        for op in ops:
            if not isinstance(op, dict) or not all(
                    isinstance(op.get(k), str) for k in ("name", "class", "operands", "roles")):
                raise ValueError("an opcode without name, class, operands and roles: %r" % (op,))
        self.ops = ops
        self.cls = {op["name"]: op["class"] for op in ops}
        self.roles = {op["name"]: op["roles"].split() for op in ops}
        self.baseline = [op for op in ops if op["class"] != "macro" and not op.get("macro")]

    def class_of(self, name):
        return self.cls.get(name)

    def address_operand(self, name):
        """The operand an access takes its address from: its first read."""
        roles = self.roles.get(name, [])
        return next((k for k, r in enumerate(roles) if "r" in r), None)

    def check(self):
        """Errors: each family class that no opcode of the table has."""
        have = {op["class"] for op in self.baseline}
        return ["family %s: no opcode of the table is of class %s" % (f["name"], c)
                for f in FAMILIES for c in sorted(family_classes(f)) if c not in have]

    def fused(self, fam):
        """The baseline opcodes that are fam's fused operation."""
        return [op["name"] for op in self.baseline if fam["fused"](op)]


def links(proposal):
    """{(i, j): operands of j}, 0-based: element i writes a register that
    element j reads as those operands (the proposal's "carries", parts
    counted from 1 there)."""
    flow = {}
    for c in proposal.get("carries", []):
        flow.setdefault((c["from_part"] - 1, c["to_part"] - 1), set()).add(c.get("to_operand"))
    return flow


def match_rule(table, ops, cls, flow, rule):
    """The first (i, j) pair of ops (of classes cls) that satisfies rule, or
    None."""
    a_cls, b_cls, between, link = rule
    for i, a in enumerate(cls):
        if a not in a_cls:
            continue
        for j in range(i + 1, len(cls)):
            if cls[j] not in b_cls:
                continue
            if link == "address":
                if table.address_operand(ops[j]) in flow.get((i, j), ()):
                    return i, j
                continue
            if j == i + 1 or (link and (i, j) in flow):
                return i, j
            if between and all(c in between for c in cls[i + 1:j]):
                return i, j
    return None


def match_run(cls, run):
    """(i, j): the first n adjacent elements of the run's classes, or None."""
    classes, n = run
    for i in range(len(cls) - n + 1):
        if all(c in classes for c in cls[i:i + n]):
            return i, i + n - 1
    return None


def partial_rule(cls, rule):
    """For a rule with a "between" class: "ends before B" when an A element
    is followed only by between elements up to the end, "starts after A"
    when a B element is preceded only by between elements; else None."""
    a_cls, b_cls, between, _ = rule
    if between is None:
        return None
    for i, a in enumerate(cls):
        if a in a_cls and all(c in between for c in cls[i + 1:]):
            return "ends before %s" % "/".join(sorted(b_cls))
    for j, b in enumerate(cls):
        if b in b_cls and all(c in between for c in cls[:j]):
            return "starts after %s" % "/".join(sorted(a_cls))
    return None


def classify(table, proposal):
    """({family: "a>b" matched pair}, {family: partial note}) of one
    proposal; the partial notes only when it is in no family."""
    ops = proposal["ops"]
    cls = [table.class_of(o) for o in ops]
    flow = links(proposal)
    found, partial = {}, {}
    for fam in FAMILIES:
        m = None
        for rule in fam["rules"]:
            m = match_rule(table, ops, cls, flow, rule)
            if m:
                break
        if not m and "run" in fam:
            m = match_run(cls, fam["run"])
        if m:
            found[fam["name"]] = "%s>%s" % (ops[m[0]], ops[m[1]])
    if not found:
        for fam in FAMILIES:
            if table.fused(fam):  # no hints towards what the baseline has
                continue
            for rule in fam["rules"]:
                note = partial_rule(cls, rule)
                if note:
                    partial[fam["name"]] = note
                    break
    return found, partial


def proposals_of(data, top):
    props = data.get("proposals") if isinstance(data, dict) else None
    if not isinstance(props, list):
        raise ValueError("no \"proposals\" list (is this pulley-ngrams --format json output?)")
    for p in props:
        if not isinstance(p, dict) or not isinstance(p.get("ops"), list) \
                or not isinstance(p.get("rank"), int):
            raise ValueError("a proposal without \"rank\" and \"ops\": %r" % (p,))
    props = sorted(props, key=lambda p: p["rank"])
    return props[:top] if top is not None else props


def report(table, columns, top):
    """columns: [(name, pulley-ngrams JSON)]."""
    fams = []
    for fam in FAMILIES:
        fused = table.fused(fam)
        fams.append({"family": fam["name"], "in_baseline": bool(fused), "baseline_ops": fused,
                     "classes": sorted(family_classes(fam)), "columns": {}})
    index = {f["family"]: f for f in fams}
    cols, unclassified, found = [], {}, {}
    for name, data in columns:
        props = proposals_of(data, top)
        cols.append({"name": name, "proposals": len(props), "runs": len(data.get("runs", [])),
                     "benchmarks": data.get("benchmarks")})
        for f in fams:
            f["columns"][name] = {"found": False, "rank": None, "ops": None,
                                  "matched": None, "ranks": [], "saving": None,
                                  "time_saving": None}
        member, partials = set(), {}
        for p in props:
            hits, partial = classify(table, p)
            partials[p["rank"]] = partial
            for fname, pair in hits.items():
                c = index[fname]["columns"][name]
                c["ranks"].append(p["rank"])
                member.add(p["rank"])
                if not c["found"]:
                    c.update(found=True, rank=p["rank"], ops=p["ops"], matched=pair,
                             saving=p.get("saving"), time_saving=p.get("time_saving"))
        unclassified[name] = [{"rank": p["rank"], "ops": p["ops"], "saving": p.get("saving"),
                               "partial": partials[p["rank"]]}
                              for p in props if p["rank"] not in member]
        found[name] = sum(f["columns"][name]["found"] for f in fams if not f["in_baseline"])
    return {"columns": cols, "families": fams, "found": found,
            "not_in_baseline": sum(not f["in_baseline"] for f in fams),
            "unclassified": unclassified}


def seq(ops):
    return " + ".join(ops) if ops else "-"


def savings(col):
    """", saves D% of dispatches, T% of time": what a family's best op
    removes (the time where the runs have the build's costs), or ""."""
    parts = []
    if isinstance(col.get("saving"), (int, float)):
        parts.append("%.2f%% of dispatches" % col["saving"])
    if isinstance(col.get("time_saving"), (int, float)):
        parts.append("%.2f%% of time (predicted)" % col["time_saving"])
    return ", saves " + ", ".join(parts) if parts else ""


def print_text(rep, out):
    cols = [c["name"] for c in rep["columns"]]
    out.write("Fusion families among the top proposals (%s)\n\n" % "; ".join(
        "%s: top %d, %s runs, %s benchmarks" % (c["name"], c["proposals"], c["runs"],
                                                 c["benchmarks"]) for c in rep["columns"]))
    cw = max([8] + [len(c) for c in cols])
    out.write("%-30s  %-11s" % ("family", "in baseline") + "".join("  %*s" % (cw, c) for c in cols)
              + "  best macro op (%s)\n" % cols[0])
    for f in rep["families"]:
        ranks = ["%d" % f["columns"][c]["rank"] if f["columns"][c]["found"] else "-" for c in cols]
        first = f["columns"][cols[0]]
        out.write("%-30s  %-11s" % (f["family"], "yes" if f["in_baseline"] else "no")
                  + "".join("  %*s" % (cw, r) for r in ranks)
                  + "  %s%s\n" % (seq(first["ops"]) + (" (%s)" % first["matched"]
                                                       if first["matched"] else ""),
                                  savings(first)))
    out.write("\n")
    for f in rep["families"]:
        if f["in_baseline"]:
            ops = f["baseline_ops"]
            out.write("in the baseline: %s (%s%s)\n" % (
                f["family"], ", ".join(ops[:4]), ", ..." if len(ops) > 4 else ""))
    out.write("Families not in the baseline found: %s (of %d)\n" % (
        ", ".join("%s %d" % (c, rep["found"][c]) for c in cols), rep["not_in_baseline"]))
    for c in cols:
        un = rep["unclassified"][c]
        out.write("\nProposals in no family (%s): %d\n" % (c, len(un)))
        if un:
            out.write("  rank  %-44s  %8s  %s\n" % ("macro op", "saving %", "part of a family?"))
        for p in un:
            saving = p["saving"]
            out.write("  %4d  %-44s  %8s  %s\n" % (
                p["rank"], seq(p["ops"]),
                "%.2f" % saving if isinstance(saving, (int, float)) else "-",
                "; ".join("%s (%s)" % kv for kv in p["partial"].items()) or "-"))


def load_json(path):
    if path == "-":
        return json.load(sys.stdin)
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def load_table(args):
    if args.opcodes:
        return Table(load_json(args.opcodes)), args.opcodes
    try:
        res = subprocess.run([args.dis, "--opcodes"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, check=False)
    except OSError as e:
        raise ValueError("cannot run %s --opcodes: %s" % (args.dis, e))
    if res.returncode != 0:
        raise ValueError("%s --opcodes exited with status %d: %s"
                         % (args.dis, res.returncode, res.stderr.decode(errors="replace")))
    return Table(json.loads(res.stdout)), args.dis


def main(argv):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quietly stop when piped to head
    ap = argparse.ArgumentParser(
        prog="families.py",
        description="Classify pulley-ngrams proposals into the fusion families "
                    "Pulley's maintainers found by hand, by the opcode classes "
                    "of the build's table.")
    ap.add_argument("json", nargs="*", metavar="[NAME=]JSON",
                    help="pulley-ngrams --format json output, a column NAME "
                         "(default: stdin, column \"proposals\")")
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--opcodes", metavar="TABLE.json",
                     help="the opcode table, pulley-dis --opcodes output")
    src.add_argument("--dis", metavar="PULLEY-DIS", help="run this pulley-dis --opcodes")
    ap.add_argument("--top", type=int, metavar="K",
                    help="only the first K proposals of each column (default: all)")
    ap.add_argument("--format", choices=("text", "json"), default="text")
    ap.add_argument("--list", action="store_true",
                    help="print the families, their classes and fused opcodes, and exit")
    args = ap.parse_args(argv)
    if args.top is not None and args.top < 1:
        ap.error("--top must be at least 1")
    specs = []
    for arg in args.json or ["-"]:
        name, sep, path = arg.partition("=")
        specs.append((name, path) if sep and name else ("proposals", arg))
    if len({n for n, _ in specs}) != len(specs):
        ap.error("two columns of one name")
    try:
        table, where = load_table(args)
    except (OSError, ValueError) as e:
        sys.stderr.write("families.py: %s: %s\n" % (args.opcodes or args.dis, e))
        return 1
    errors = table.check()
    for msg in errors:
        sys.stderr.write("families.py: %s (%s)\n" % (msg, where))
    if args.list:
        for fam in FAMILIES:
            print("family %-30s classes %s; in the baseline as: %s" % (
                fam["name"], ",".join(sorted(family_classes(fam))),
                ",".join(table.fused(fam)) or "-"))
        return 3 if errors else 0
    if errors:
        return 3
    columns = []
    for name, path in specs:
        try:
            columns.append((name, load_json(path)))
        except (OSError, ValueError) as e:  # json.JSONDecodeError is a ValueError
            sys.stderr.write("families.py: %s: %s\n" % ("stdin" if path == "-" else path, e))
            return 1
    try:
        rep = report(table, columns, args.top)
    except ValueError as e:
        sys.stderr.write("families.py: %s\n" % e)
        return 1
    if args.format == "json":
        json.dump(rep, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print_text(rep, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
