#!/usr/bin/env python3
"""Table 2 beside another OpenCL implementation's persistent-thread figures.

Reads what `ck-eval table2` on this project's Mesa (both builds of every
application) and `ck-eval persistent` on another implementation, which has
no cooperative kernels and so runs only the persistent-thread builds (e.g.
PoCL), summarised: their report's NAME.summary.csv beside each NAME.csv
(bench/eval_report.cpp computes the medians; nothing here does). Prints per
application the median seconds (min-max) of each and the ratios against the
other implementation's persistent build: `tools/ck bench table2 --platform
pocl`, which runs this only when both runs' results were all right.

With --rounds R that command times ours and the other's alternately, R
times; each round's --ours and --other (given in the same order) are
paired, a ratio is taken within each round, where both sides met the same
phase of the machine, and the table gives the median of the rounds'
ratios (min-max over the rounds) and the median of their medians in
seconds.
"""
import argparse
import csv
import math
import os
import sys


def number(text):
    try:
        return float(text)
    except ValueError:
        return math.nan


def summaries(path):
    """{(app, input, variant): {"median_s": .., "min_s": .., "max_s": ..}} of the
    report's summary file beside the CSV at path."""
    base = path[:-len(".csv")] if path.endswith(".csv") else path
    summary = base + ".summary.csv"
    if not os.path.exists(summary):
        sys.exit(f"table2_against: no {summary}: write it with "
                 f"'ck-eval report {path} --summary {summary}'")
    out = {}
    with open(summary, newline="") as f:
        for row in csv.DictReader(f):
            if (row["record"] == "summary" and row["variant"]
                    and row["metric"] in ("median_s", "min_s", "max_s")):
                key = (row["app"], row["input"], row["variant"])
                out.setdefault(key, {})[row["metric"]] = number(row["value"])
    return out


def describe(spread):
    if not spread or not math.isfinite(spread.get("median_s", math.nan)):
        return "n/a"
    return f"{spread['median_s']:.4f} ({spread['min_s']:.4f}-{spread['max_s']:.4f})"


def ratio(a, b):
    return a["median_s"] / b["median_s"] if a and b else math.nan


def median(values):
    values = sorted(v for v in values if math.isfinite(v))
    if not values:
        return math.nan
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2


def across_rounds(spreads):
    """One round's spread as it is; several rounds' as the median of their
    medians, min and max over all of them."""
    spreads = [s for s in spreads if s]
    if len(spreads) <= 1:
        return spreads[0] if spreads else {}
    return {"median_s": median([s["median_s"] for s in spreads]),
            "min_s": min(s["min_s"] for s in spreads),
            "max_s": max(s["max_s"] for s in spreads)}


def describe_ratio(ratios):
    """The median of the rounds' ratios, with their range when several."""
    value = median(ratios)
    finite = [r for r in ratios if math.isfinite(r)]
    if len(finite) <= 1:
        return f"{value:.3f}"
    return f"{value:.3f} ({min(finite):.2f}-{max(finite):.2f})"


def geomean(values):
    values = [v for v in values if math.isfinite(v) and v > 0]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else math.nan


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ours", required=True, action="append",
                        help="table2.csv of ck-eval table2 on our Mesa (once per round)")
    parser.add_argument("--other", required=True, action="append",
                        help="persistent.csv of ck-eval persistent on the other implementation "
                             "(once per round, in the order of --ours)")
    parser.add_argument("--name", default="other", help="the other implementation's name")
    args = parser.parse_args()
    if len(args.ours) != len(args.other):
        sys.exit(f"table2_against: {len(args.ours)} --ours against {len(args.other)} --other: "
                 "give one of each per round")
    rounds = [(summaries(o), summaries(t)) for o, t in zip(args.ours, args.other)]
    apps = sorted({key[:2] for ours, other in rounds for key in list(ours) + list(other)})
    if not apps:
        sys.exit("table2_against: no summaries in any file")

    name = args.name
    over = "the runs" if len(rounds) == 1 else f"{len(rounds)} rounds, ours and {name}'s alternating"
    print(f"\nTable 2 beside {name}: seconds, median (min-max) over {over}")
    print(f"{'application input':<28} {'ours cooperative':>26} {'ours persistent':>26} "
          f"{name + ' persistent':>26} {'coop/' + name:>17} {'pers/' + name:>17}")
    coop_medians, pers_medians = [], []
    for app, input_ in apps:
        coop = [ours.get((app, input_, "cooperative"), {}) for ours, _ in rounds]
        pers = [ours.get((app, input_, "persistent"), {}) for ours, _ in rounds]
        theirs = [other.get((app, input_, "persistent"), {}) for _, other in rounds]
        coop_ratios = [ratio(c, t) for c, t in zip(coop, theirs)]
        pers_ratios = [ratio(p, t) for p, t in zip(pers, theirs)]
        coop_medians.append(median(coop_ratios))
        pers_medians.append(median(pers_ratios))
        print(f"{app + ' ' + input_:<28} {describe(across_rounds(coop)):>26} "
              f"{describe(across_rounds(pers)):>26} {describe(across_rounds(theirs)):>26} "
              f"{describe_ratio(coop_ratios):>17} {describe_ratio(pers_ratios):>17}")
    print(f"{'geometric mean':<28} {'':>26} {'':>26} {'':>26} "
          f"{geomean(coop_medians):>17.3f} {geomean(pers_medians):>17.3f}")
    print(f"(ratios below 1: ours is faster than {name}'s persistent-thread build)")


if __name__ == "__main__":
    main()
