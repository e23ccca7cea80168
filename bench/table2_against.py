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


def geomean(values):
    values = [v for v in values if math.isfinite(v) and v > 0]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else math.nan


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ours", required=True, help="table2.csv of ck-eval table2 on our Mesa")
    parser.add_argument("--other", required=True,
                        help="persistent.csv of ck-eval persistent on the other implementation")
    parser.add_argument("--name", default="other", help="the other implementation's name")
    args = parser.parse_args()
    ours, other = summaries(args.ours), summaries(args.other)
    apps = sorted({key[:2] for key in ours} | {key[:2] for key in other})
    if not apps:
        sys.exit("table2_against: no summaries in either file")

    name = args.name
    print(f"\nTable 2 beside {name}: seconds, median (min-max) over the runs")
    print(f"{'application input':<28} {'ours cooperative':>26} {'ours persistent':>26} "
          f"{name + ' persistent':>26} {'coop/' + name:>10} {'pers/' + name:>10}")
    coop_ratios, pers_ratios = [], []
    for app, input_ in apps:
        coop = ours.get((app, input_, "cooperative"), {})
        pers = ours.get((app, input_, "persistent"), {})
        theirs = other.get((app, input_, "persistent"), {})
        coop_ratios.append(ratio(coop, theirs))
        pers_ratios.append(ratio(pers, theirs))
        print(f"{app + ' ' + input_:<28} {describe(coop):>26} {describe(pers):>26} "
              f"{describe(theirs):>26} {coop_ratios[-1]:>10.3f} {pers_ratios[-1]:>10.3f}")
    print(f"{'geometric mean':<28} {'':>26} {'':>26} {'':>26} "
          f"{geomean(coop_ratios):>10.3f} {geomean(pers_ratios):>10.3f}")
    print(f"(ratios below 1: ours is faster than {name}'s persistent-thread build)")


if __name__ == "__main__":
    main()
