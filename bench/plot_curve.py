#!/usr/bin/env python3
"""plot_curve.py - bench/curve.sh's CSV as a plot: dispatches removed and
time saved (predicted, and measured with its 95% interval) against the
number of macro ops, one line per fold design.

    python3 bench/plot_curve.py CURVE.csv OUT.png
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(src, out):
    rows = list(csv.DictReader(open(src)))
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=100)
    for design, label in (("loo", "suite, leave-one-out"), ("ext", "programs outside the suite")):
        rs = [r for r in rows if r["design"] == design]
        if not rs:
            continue
        k = [int(r["K"]) for r in rs]
        ax.plot(k, [float(r["dispatches_pct"]) for r in rs], "o-", label=f"dispatches removed ({label})")
        if all(r["time_pred_pct"] for r in rs):
            ax.plot(k, [float(r["time_pred_pct"]) for r in rs], "s--", label=f"time saved, predicted ({label})")
        meas = [float(r["time_meas_pct"]) for r in rs]
        lo = [meas[i] - float(r["time_meas_lo"]) for i, r in enumerate(rs)]
        hi = [float(r["time_meas_hi"]) - meas[i] for i, r in enumerate(rs)]
        ax.errorbar(k, meas, yerr=[lo, hi], fmt="^-", capsize=3, label=f"time saved, measured ({label})")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("macro ops chosen (K)")
    ax.set_ylabel("% of the held-out program's (geometric mean)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
