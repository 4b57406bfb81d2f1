#!/usr/bin/python3
"""fidelity.py - do proposals computed from samples agree with proposals
computed from exact counts?

    fidelity.py [--top K] [--format text|json] DIR...

Each DIR holds one benchmark's files (fidelity.sh writes them):

    sampled.json   pulley-ngrams --format json on the sampled run; made with
                   --train sampled --test exact it also holds what the
                   sampled proposals remove on the exact run ("test")
    exact.json     pulley-ngrams --format json on the exact run
    profile.db     optional: the database, for the sample count and rate

and the benchmark's name is DIR's last component.  Proposals are matched by
their opcode sequence ("xlt64_s + br_if_not"); of each list the first K
(default 20) are compared.  Per benchmark:

    lists            proposals in each list (pulley-ngrams may give fewer
                     than K)
    overlap          |S & E|: proposals in both lists
    rho/tau common   Spearman's rho and Kendall's tau-b between the two
                     ranks of the proposals in both lists (n/a below 2)
    rho/tau union    the same over S | E, a proposal missing from one list
                     taking rank K+1 there (ties handled as tau-b and
                     average ranks do)
    exact best %     dispatches the exact proposals remove on the exact run
    sampled on exact %  dispatches the sampled proposals remove on the exact
                     run (present when sampled.json has "test")

Exit status: 0, 1 unreadable input, 2 usage.  Standard library only.
"""

import argparse
import json
import math
import os
import signal
import sqlite3
import sys


def average_ranks(xs):
    """Ranks 1..n of xs, ties given their average rank."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    ranks = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return ranks


def pearson(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def spearman(xs, ys):
    """Spearman's rho (Pearson on average ranks); None if undefined."""
    if len(xs) < 2:
        return None
    return pearson(average_ranks(xs), average_ranks(ys))


def kendall_tau_b(xs, ys):
    """Kendall's tau-b; None if undefined (fewer than 2 items, all tied)."""
    n = len(xs)
    if n < 2:
        return None
    concordant = discordant = tie_x = tie_y = 0
    for i in range(n):
        for j in range(i + 1, n):
            dx = (xs[i] > xs[j]) - (xs[i] < xs[j])
            dy = (ys[i] > ys[j]) - (ys[i] < ys[j])
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                tie_x += 1
            elif dy == 0:
                tie_y += 1
            elif dx == dy:
                concordant += 1
            else:
                discordant += 1
    denom = math.sqrt((concordant + discordant + tie_x) * (concordant + discordant + tie_y))
    if denom == 0:
        return None
    return (concordant - discordant) / denom


def ranked(data, top, what):
    """{opcode sequence: rank} of the first `top` proposals (first rank wins)."""
    props = data.get("proposals") if isinstance(data, dict) else None
    if not isinstance(props, list):
        raise ValueError("%s: no \"proposals\" list" % what)
    out = {}
    for p in sorted(props, key=lambda p: p.get("rank", 0)):
        if not isinstance(p.get("ops"), list) or not isinstance(p.get("rank"), int):
            raise ValueError("%s: a proposal without \"rank\" and \"ops\"" % what)
        key = " + ".join(p["ops"])
        if key not in out and len(out) < top:
            out[key] = len(out) + 1
    return out


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def sample_info(db):
    """(samples written, rate achieved Hz) of the sampled runs, or (None, None)."""
    try:
        con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
        row = con.execute(
            "SELECT sum(samples_written), sum(samples_taken), sum(sampled_ns) "
            "FROM runs WHERE exact = 0").fetchone()
        con.close()
    except sqlite3.Error:
        return None, None
    if not row or row[0] is None:
        return None, None
    rate = row[1] / (row[2] / 1e9) if row[2] else None
    return row[0], rate


def compare(name, sampled, exact, top, db=None):
    s = ranked(sampled, top, name + "/sampled.json")
    e = ranked(exact, top, name + "/exact.json")
    common = [k for k in s if k in e]
    union = list(s) + [k for k in e if k not in s]
    miss = top + 1
    res = {
        "benchmark": name, "top": top, "sampled": len(s), "exact": len(e),
        "overlap": len(common),
        "spearman_common": spearman([s[k] for k in common], [e[k] for k in common]),
        "kendall_common": kendall_tau_b([s[k] for k in common], [e[k] for k in common]),
        "spearman_union": spearman([s.get(k, miss) for k in union], [e.get(k, miss) for k in union]),
        "kendall_union": kendall_tau_b([s.get(k, miss) for k in union], [e.get(k, miss) for k in union]),
        "only_sampled": [k for k in s if k not in e],
        "only_exact": [k for k in e if k not in s],
        "exact_removed": None, "sampled_on_exact": None,
        "samples": None, "rate_hz": None,
    }
    eprops = exact.get("proposals") or []
    if eprops:
        last = max(eprops[:top], key=lambda p: p.get("rank", 0))
        res["exact_removed"] = last.get("cumulative")
    test = sampled.get("test")
    if isinstance(test, dict):
        res["sampled_on_exact"] = test.get("removed")
    if db:
        res["samples"], res["rate_hz"] = sample_info(db)
    return res


def fmt(x, spec="%.3f"):
    return "n/a" if x is None else spec % x


def print_text(rows, top, out):
    out.write("Sampled vs exact proposals: top %d of each, matched by opcode sequence\n"
              "(lists: proposals in the sampled/exact list; overlap: proposals in both;\n"
              "rho = Spearman, tau = Kendall tau-b; 'common' over the proposals in both\n"
              "lists, 'union' over either list with a missing rank counted as %d)\n\n"
              % (top, top + 1))
    hdr = ("%-10s %8s %7s %7s %7s %9s %9s %9s %9s %9s %9s %8s\n"
           % ("benchmark", "samples", "rate Hz", "lists", "overlap", "rho comm", "tau comm",
              "rho union", "tau union", "exact %", "smp->ex %", "ratio"))
    out.write(hdr)
    for r in rows:
        ratio = (r["sampled_on_exact"] / r["exact_removed"]
                 if r["sampled_on_exact"] is not None and r["exact_removed"] else None)
        out.write("%-10s %8s %7s %7s %7d %9s %9s %9s %9s %9s %9s %8s\n" % (
            r["benchmark"][:10], fmt(r["samples"], "%d"), fmt(r["rate_hz"], "%.0f"),
            "%d/%d" % (r["sampled"], r["exact"]),
            r["overlap"], fmt(r["spearman_common"]), fmt(r["kendall_common"]),
            fmt(r["spearman_union"]), fmt(r["kendall_union"]),
            fmt(r["exact_removed"], "%.2f"), fmt(r["sampled_on_exact"], "%.2f"),
            fmt(ratio, "%.3f")))
    if len(rows) > 1:
        def mean(key):
            vals = [r[key] for r in rows if r[key] is not None]
            return sum(vals) / len(vals) if vals else None
        out.write("%-10s %8s %7s %7s %7s %9s %9s %9s %9s %9s %9s\n" % (
            "mean", "", "", "", fmt(mean("overlap"), "%.1f"),
            fmt(mean("spearman_common")), fmt(mean("kendall_common")),
            fmt(mean("spearman_union")), fmt(mean("kendall_union")),
            fmt(mean("exact_removed"), "%.2f"), fmt(mean("sampled_on_exact"), "%.2f")))
    out.write("\nexact %%: dispatches the exact run's own top %d remove from it;\n"
              "smp->ex %%: what the ops chosen from samples remove from the exact run;\n"
              "ratio: the second over the first.\n" % top)
    for r in rows:
        if r["only_sampled"] or r["only_exact"]:
            out.write("\n%s: only sampled: %s\n%s  only exact:   %s\n" % (
                r["benchmark"], "; ".join(r["only_sampled"]) or "-",
                " " * len(r["benchmark"]), "; ".join(r["only_exact"]) or "-"))


def main(argv):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quietly stop when piped to head
    ap = argparse.ArgumentParser(
        prog="fidelity.py",
        description="Compare the top proposals of a sampled run with those of an exact run.")
    ap.add_argument("dirs", nargs="+", metavar="DIR",
                    help="a benchmark's directory: sampled.json, exact.json [, profile.db]")
    ap.add_argument("--top", type=int, default=20, metavar="K",
                    help="proposals compared from each list (default 20)")
    ap.add_argument("--format", choices=("text", "json"), default="text")
    args = ap.parse_args(argv)
    if args.top < 1:
        ap.error("--top must be at least 1")
    rows = []
    for d in args.dirs:
        name = os.path.basename(os.path.normpath(d))
        try:
            sampled = load(os.path.join(d, "sampled.json"))
            exact = load(os.path.join(d, "exact.json"))
            db = os.path.join(d, "profile.db")
            rows.append(compare(name, sampled, exact, args.top,
                                db if os.path.exists(db) else None))
        except (OSError, ValueError) as e:
            sys.stderr.write("fidelity.py: %s: %s\n" % (d, e))
            return 1
    if args.format == "json":
        json.dump({"top": args.top, "benchmarks": rows}, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print_text(rows, args.top, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
