#!/usr/bin/python3
"""families.py - which of the fusion families that Pulley's maintainers
added by hand appear among pulley-ngrams' proposals.

    families.py [--top K] [--db PROFILE.db] [--format text|json] [JSON]

JSON is the output of `pulley-ngrams --format json` (a file, or stdin when
it is absent or "-").  Each of the first K proposals (default: all of them)
is classified by the opcode names of its elements into the families below;
a proposal may belong to several, or to none.  For each family the report
gives whether it was found, the best (lowest) rank, that proposal's opcode
sequence, the pair of elements that made it a member, and every rank that
belongs to it; then the proposals that belong to no family, each with the
families it is a piece of, if any (a sequence of the family's pattern cut
before its second part or after its first: "bcheck32 + xadd64" is a bounds
check + load/store that ends before the load).  Pieces are a hint, never
counted as found.

With --db, the opcode names of the database's runs (the `opcodes` table) are
read and every opcode class below must match at least one of them: a class
that matches nothing means the ISA's names changed and this file needs
updating (reported as a warning, and exit status 3).

A family is a pair of opcode classes (A, B): a proposal is a member when an
element in A comes before an element in B and either they are adjacent,
or every element between them is in the family's "between" class, or (for
the families that say so) the operand pattern shows the register written by
the A element being read by the B element ("1.a>3.c").

Exit status: 0, 1 unreadable input, 2 usage, 3 a class matched no opcode.
Python 3 standard library only.
"""

import argparse
import json
import re
import signal
import sqlite3
import sys

# Opcode classes: a name is in a class when the regular expression matches
# all of it.  Written from the names in interp/opcodes.def.
CLASSES = {
    "compare": r"[xf](eq|ne|lt|le|gt|ge)z?(32|64)(_[su])?",
    "cond-branch": r"br_if(_not)?",
    "int-const": r"xconst(8|16|32|64)",
    "int-alu": r"x(add|sub|mul|div|rem|band|bor|bxor|shl|shr|rotl|rotr"
               r"|eq|ne|lt|le|gt|ge)(32|64)(_[su])?",
    "bounds-check": r"bcheck(32|64)",
    "address": r"xadd(32|64)|heap_base",
    "load-store": r"[xf](load|store)(8|16|32|64)(_[su](32|64)?)?",
    "frame-push": r"push_frame",
    "register-save": r"[xf]push|stack_alloc",
    "register-restore": r"[xf]pop|stack_free",
    "frame-pop": r"pop_frame",
    "move": r"[xf]mov",
    "call": r"call(_indirect|_host)?",
    "multiply": r"[xf]mul(32|64)",
    "add": r"[xf]add(32|64)",
}

# name, [(A class, B class, between class or None, dataflow link counts)].
# Several rules: a member by any of them.
FAMILIES = [
    ("compare + branch", [("compare", "cond-branch", None, True)]),
    ("constant + arithmetic", [("int-const", "int-alu", None, True)]),
    # The access itself checks a Wasm address's bounds (the translator emits
    # no bcheck32), so Pulley's folded-check access is the heap-address add
    # and the access; the explicit check is kept for code that has it.
    ("bounds check + load/store", [("bounds-check", "load-store", "address", True),
                                   ("address", "load-store", None, True)]),
    ("frame push + register saves", [
        ("frame-push", "register-save", "register-save", False),
        # the mirror image, Pulley's pop_frame_restore
        ("register-restore", "frame-pop", "register-restore", False)]),
    ("argument moves + call", [("move", "call", "move", False)]),
    ("multiply + add", [("multiply", "add", None, True)]),
]

COMPILED = {k: re.compile(v) for k, v in CLASSES.items()}


def in_class(name, cls):
    return cls is not None and COMPILED[cls].fullmatch(name) is not None


def links(proposal):
    """(i, j) pairs, 0-based: element i writes a register element j reads
    (the proposal's "carries", parts counted from 1 there)."""
    return {(c["from_part"] - 1, c["to_part"] - 1) for c in proposal.get("carries", [])}


def match_rule(ops, flow, rule):
    """The first (i, j) pair of ops that satisfies rule, or None."""
    a_cls, b_cls, between, use_links = rule
    for i, a in enumerate(ops):
        if not in_class(a, a_cls):
            continue
        for j in range(i + 1, len(ops)):
            if not in_class(ops[j], b_cls):
                continue
            if j == i + 1 or (use_links and (i, j) in flow):
                return i, j
            if between and all(in_class(o, between) for o in ops[i + 1:j]):
                return i, j
    return None


def partial_rule(ops, rule):
    """For a rule with a "between" class: "ends before B" when an A element
    is followed only by between elements up to the end (the sequence stops
    before the B element), "starts after A" when a B element is preceded
    only by between elements from the start; else None."""
    a_cls, b_cls, between, _ = rule
    if between is None:
        return None
    for i, a in enumerate(ops):
        if in_class(a, a_cls) and all(in_class(o, between) for o in ops[i + 1:]):
            return "ends before %s" % b_cls
    for j, b in enumerate(ops):
        if in_class(b, b_cls) and all(in_class(o, between) for o in ops[:j]):
            return "starts after %s" % a_cls
    return None


def classify(proposal):
    """({family name: "a>b" matched pair}, {family name: partial note}) for
    one proposal; the partial notes only when it belongs to no family."""
    ops = proposal["ops"]
    flow = links(proposal)
    found = {}
    for name, rules in FAMILIES:
        for rule in rules:
            m = match_rule(ops, flow, rule)
            if m:
                found[name] = "%s>%s" % (ops[m[0]], ops[m[1]])
                break
    partial = {}
    if not found:
        for name, rules in FAMILIES:
            for rule in rules:
                note = partial_rule(ops, rule)
                if note:
                    partial[name] = note
                    break
    return found, partial


def report(data, top):
    props = data.get("proposals")
    if not isinstance(props, list):
        raise ValueError("no \"proposals\" list (is this pulley-ngrams --format json output?)")
    for p in props:
        if not isinstance(p, dict) or not isinstance(p.get("ops"), list) \
                or not isinstance(p.get("rank"), int):
            raise ValueError("a proposal without \"rank\" and \"ops\": %r" % (p,))
    props = sorted(props, key=lambda p: p["rank"])
    if top is not None:
        props = props[:top]
    families = []
    member = set()
    for name, _ in FAMILIES:
        families.append({"family": name, "found": False, "rank": None,
                         "ops": None, "matched": None, "ranks": []})
    index = {f["family"]: f for f in families}
    partials = {}
    for p in props:
        found, partial = classify(p)
        partials[p["rank"]] = partial
        for name, pair in found.items():
            f = index[name]
            f["ranks"].append(p["rank"])
            member.add(p["rank"])
            if not f["found"]:
                f.update(found=True, rank=p["rank"], ops=p["ops"], matched=pair)
    unclassified = [{"rank": p["rank"], "ops": p["ops"], "saving": p.get("saving"),
                     "partial": partials[p["rank"]]}
                    for p in props if p["rank"] not in member]
    return {"proposals": len(props), "runs": len(data.get("runs", [])),
            "benchmarks": data.get("benchmarks"), "families": families,
            "found": sum(f["found"] for f in families),
            "unclassified": unclassified}


def check_classes(db):
    """Warnings for classes that match no opcode name stored in db."""
    try:
        con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
        names = [r[0] for r in con.execute("SELECT DISTINCT name FROM opcodes")]
        con.close()
    except sqlite3.Error as e:
        raise ValueError("%s: cannot read its opcodes table: %s" % (db, e))
    if not names:
        raise ValueError("%s: the opcodes table is empty" % db)
    return ["opcode class %s (%s) matches no opcode in %s" % (c, CLASSES[c], db)
            for c in CLASSES if not any(in_class(n, c) for n in names)]


def seq(ops):
    return " + ".join(ops) if ops else "-"


def print_text(rep, out):
    w = max(len(seq(f["ops"])) for f in rep["families"])
    w = max(w, len("macro op"))
    out.write("Fusion families among the top %d proposals (%s runs, %s benchmarks)\n\n"
              % (rep["proposals"], rep["runs"], rep["benchmarks"]))
    out.write("%-28s  %-5s  %4s  %-*s  %-22s  %s\n"
              % ("family", "found", "rank", w, "macro op", "matched", "all ranks"))
    for f in rep["families"]:
        out.write("%-28s  %-5s  %4s  %-*s  %-22s  %s\n" % (
            f["family"], "yes" if f["found"] else "no",
            f["rank"] if f["found"] else "-", w, seq(f["ops"]),
            f["matched"] or "-",
            ",".join(str(r) for r in f["ranks"]) or "-"))
    out.write("\nFamilies found: %d of %d\n" % (rep["found"], len(rep["families"])))
    out.write("\nProposals in no family: %d\n" % len(rep["unclassified"]))
    if rep["unclassified"]:
        out.write("  rank  %-44s  %8s  %s\n" % ("macro op", "saving %", "part of a family?"))
    for p in rep["unclassified"]:
        saving = p["saving"]
        out.write("  %4d  %-44s  %8s  %s\n" % (
            p["rank"], seq(p["ops"]),
            "%.2f" % saving if isinstance(saving, (int, float)) else "-",
            "; ".join("%s (%s)" % kv for kv in p["partial"].items()) or "-"))
    for msg in rep.get("warnings", []):
        out.write("warning: %s\n" % msg)


def main(argv):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quietly stop when piped to head
    ap = argparse.ArgumentParser(
        prog="families.py",
        description="Classify pulley-ngrams proposals into the fusion families "
                    "Pulley's maintainers found by hand.")
    ap.add_argument("json", nargs="?", default="-",
                    help="pulley-ngrams --format json output (default: stdin)")
    ap.add_argument("--top", type=int, metavar="K",
                    help="only the first K proposals (default: all)")
    ap.add_argument("--db", metavar="PROFILE.db",
                    help="check that every opcode class matches an opcode of this database")
    ap.add_argument("--format", choices=("text", "json"), default="text")
    ap.add_argument("--list-classes", action="store_true",
                    help="print the opcode classes and families and exit")
    args = ap.parse_args(argv)
    if args.top is not None and args.top < 1:
        ap.error("--top must be at least 1")
    if args.list_classes:
        for c, r in CLASSES.items():
            print("class %-16s %s" % (c, r))
        for name, rules in FAMILIES:
            print("family %-28s %s" % (name, "; ".join(
                "%s then %s%s%s" % (a, b, " (between: %s)" % m if m else "",
                                    ", or linked" if l else "")
                for a, b, m, l in rules)))
        return 0
    source = "stdin" if args.json == "-" else args.json
    try:
        if args.json == "-":
            data = json.load(sys.stdin)
        else:
            with open(args.json, encoding="utf-8") as f:
                data = json.load(f)
        rep = report(data, args.top)
    except (OSError, ValueError) as e:  # json.JSONDecodeError is a ValueError
        sys.stderr.write("families.py: %s: %s\n" % (source, e))
        return 1
    try:
        rep["warnings"] = check_classes(args.db) if args.db else []
    except ValueError as e:
        sys.stderr.write("families.py: %s\n" % e)
        return 1
    if args.format == "json":
        json.dump(rep, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print_text(rep, sys.stdout)
    return 3 if rep["warnings"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
