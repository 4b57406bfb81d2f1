"""rediscover_cpython.py EXACT.json SAMPLED.json K - the table of
rediscover_cpython.sh: where CPython 3.11's five superinstructions rank
among pulley-ngrams' pair proposals and hottest pairs, from exact counts
and from samples, and what else is proposed."""
import json
import sys

CPYTHON_311 = [("LOAD_FAST", "LOAD_FAST"), ("LOAD_FAST", "LOAD_CONST"),
               ("STORE_FAST", "LOAD_FAST"), ("STORE_FAST", "STORE_FAST"),
               ("LOAD_CONST", "LOAD_FAST")]
# Fused later: compare (or identity/containment test) followed by a
# conditional jump, the shape of compare-and-branch instructions.
TESTS = {"COMPARE_OP", "IS_OP", "CONTAINS_OP"}


def ranks(doc):
    props = {tuple(p["ops"]): p["rank"] for p in doc["proposals"]}
    pairs = {tuple(n["sequence"].split(" + ")): n["rank"] for n in doc["ngrams"] if n["n"] == 2}
    return props, pairs


def is_compare_branch(seq):
    return len(seq) == 2 and seq[0] in TESTS and "JUMP" in seq[1] and "IF" in seq[1]


def main(exact_path, sampled_path, k):
    exact, sampled = json.load(open(exact_path)), json.load(open(sampled_path))
    (ep, en), (sp, sn) = ranks(exact), ranks(sampled)
    show = lambda r: str(r) if r else "-"
    print("CPython 3.11's superinstructions among the top %d (ranks; - not in it)\n" % k)
    print("%-26s %14s %14s %12s %12s" % ("superinstruction", "proposal exact", "proposal sampled",
                                         "pair exact", "pair sampled"))
    found = {"proposal exact": 0, "proposal sampled": 0, "pair exact": 0, "pair sampled": 0}
    for a, b in CPYTHON_311:
        r = (ep.get((a, b)), sp.get((a, b)), en.get((a, b)), sn.get((a, b)))
        for key, v in zip(found, r):
            found[key] += v is not None
        print("%-26s %14s %16s %12s %12s" % (a + "__" + b, *map(show, r)))
    print("%-26s %14s %16s %12s %12s" % ("found (of 5)", *[str(v) for v in found.values()]))
    for name, doc, own in (("exact", exact, ep), ("sampled", sampled, sp)):
        others = [p for p in doc["proposals"] if tuple(p["ops"]) not in CPYTHON_311]
        print("\nProposed from %s %s that CPython 3.11 did not add:" % (name, doc["shares"]))
        for p in others:
            mark = "  (compare + branch)" if is_compare_branch(p["ops"]) else ""
            print("  %2d  %-40s saves %5.2f%%%s" % (p["rank"], " + ".join(p["ops"]), p["saving"], mark))
    cb = sorted({" + ".join(s) for s in list(ep) + list(sp) if is_compare_branch(s)})
    print("\nCompare + branch pairs proposed: %s" % (", ".join(cb) if cb else "none"))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
