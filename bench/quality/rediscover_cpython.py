"""rediscover_cpython.py DIR K - the table of rediscover_cpython.sh: where
CPython 3.11's five superinstructions rank among pulley-ngrams' pair
proposals and hottest pairs, from exact counts and from samples, and what
else is proposed.  DIR holds pulley-ngrams' JSON for each profile (exact,
sampled) mined two ways: fixed.json with the adaptive opcodes (those
CPython rewrites as the program runs) left out, as any fixed
superinstruction must leave them, and any.json with every opcode mined
(--include-adaptive)."""
import json
import os
import sys

CPYTHON_311 = [("LOAD_FAST", "LOAD_FAST"), ("LOAD_FAST", "LOAD_CONST"),
               ("STORE_FAST", "LOAD_FAST"), ("STORE_FAST", "STORE_FAST"),
               ("LOAD_CONST", "LOAD_FAST")]
# Fused later: compare (or identity/containment test) followed by a
# conditional jump, the shape of compare-and-branch instructions.
TESTS = {"COMPARE_OP", "IS_OP", "CONTAINS_OP"}
COLUMNS = [("proposal", "exact", "fixed"), ("proposal", "sampled", "fixed"),
           ("pair", "exact", "fixed"), ("pair", "sampled", "fixed"),
           ("proposal", "exact", "any"), ("proposal", "sampled", "any")]


def ranks(doc):
    props = {tuple(p["ops"]): p["rank"] for p in doc["proposals"]}
    pairs = {tuple(n["sequence"].split(" + ")): n["rank"] for n in doc["ngrams"] if n["n"] == 2}
    return {"proposal": props, "pair": pairs}


def is_compare_branch(seq):
    return len(seq) == 2 and seq[0] in TESTS and "JUMP" in seq[1] and "IF" in seq[1]


def print_others(title, doc):
    print("\n%s:" % title)
    for p in doc["proposals"]:
        if tuple(p["ops"]) in CPYTHON_311:
            continue
        mark = "  (compare + branch)" if is_compare_branch(p["ops"]) else ""
        print("  %2d  %-40s saves %5.2f%%%s" % (p["rank"], " + ".join(p["ops"]), p["saving"], mark))


def main(where, k):
    docs = {(prof, mined): json.load(open(os.path.join(where, "%s.%s.json" % (prof, mined))))
            for prof in ("exact", "sampled") for mined in ("fixed", "any")}
    rank = {key: ranks(doc) for key, doc in docs.items()}
    show = lambda r: str(r) if r else "-"
    adaptive = docs[("exact", "fixed")]["choice"]["adaptive"]
    print("CPython 3.11's superinstructions among the top %d (ranks; - not in it)\n" % k)
    print("fixed: the %d adaptive opcodes that ran (%.1f%% of the exact dispatches), which CPython"
          % (adaptive["ran"], adaptive["share"]))
    print("rewrites in place as the program runs, are in no n-gram, as in any fixed")
    print("superinstruction; any: every opcode mined (--include-adaptive).\n")
    for row, first in enumerate(("", "", "superinstruction")):
        print("%-24s" % first + "".join("%10s" % c[row] for c in COLUMNS))
    found = [0] * len(COLUMNS)
    for a, b in CPYTHON_311:
        r = [rank[(prof, mined)][kind].get((a, b)) for kind, prof, mined in COLUMNS]
        found = [f + (v is not None) for f, v in zip(found, r)]
        print("%-24s" % (a + "__" + b) + "".join("%10s" % show(v) for v in r))
    print("%-24s" % "found (of 5)" + "".join("%10d" % f for f in found))
    for prof in ("exact", "sampled"):
        print_others("Proposed from %s profiles, fixed, that CPython 3.11 did not add" % prof,
                     docs[(prof, "fixed")])
    for prof in ("exact", "sampled"):
        print_others("Proposed from %s profiles, any opcode, that CPython 3.11 did not add" % prof,
                     docs[(prof, "any")])
    cb = sorted({" + ".join(s) for (prof, mined), r in rank.items() for s in r["proposal"]
                 if is_compare_branch(s)})
    print("\nCompare + branch pairs proposed: %s" % (", ".join(cb) if cb else "none"))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
