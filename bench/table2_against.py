#!/usr/bin/env python3
"""Table 2 beside another OpenCL implementation's persistent-thread figures.

Reads the raw samples of `ck-eval table2` on this project's Mesa (both
builds of every application) and of `ck-eval persistent` on another
implementation, which has no cooperative kernels and so runs only the
persistent-thread builds (e.g. PoCL), and prints per application the median
seconds (min-max) of each and the ratios against the other implementation's
persistent build: `tools/ck bench table2 --platform pocl`.
"""
import argparse
import csv
import math
import statistics
import sys
from collections import defaultdict


def samples(path):
    """{(app, input, variant): [seconds of the runs whose result was right]}."""
    seconds, correct = {}, {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["record"] != "sample":
                continue
            key = (row["app"], row["input"], row["variant"], row["repeat"])
            if row["metric"] == "seconds":
                seconds[key] = float(row["value"])
            elif row["metric"] == "correct":
                correct[key] = row["value"] == "1"
    out = defaultdict(list)
    for key, value in seconds.items():
        if correct.get(key, False):
            out[key[:3]].append(value)
    return out


def describe(values):
    if not values:
        return "n/a"
    return f"{statistics.median(values):.4f} ({min(values):.4f}-{max(values):.4f})"


def ratio(a, b):
    return statistics.median(a) / statistics.median(b) if a and b else math.nan


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
    ours, other = samples(args.ours), samples(args.other)
    apps = sorted({key[:2] for key in ours} | {key[:2] for key in other})
    if not apps:
        sys.exit("table2_against: no samples with right results in either file")

    name = args.name
    print(f"\nTable 2 beside {name}: seconds, median (min-max) over the runs with right results")
    print(f"{'application input':<28} {'ours cooperative':>26} {'ours persistent':>26} "
          f"{name + ' persistent':>26} {'coop/' + name:>10} {'pers/' + name:>10}")
    coop_ratios, pers_ratios = [], []
    for app, input_ in apps:
        coop = ours.get((app, input_, "cooperative"), [])
        pers = ours.get((app, input_, "persistent"), [])
        theirs = other.get((app, input_, "persistent"), [])
        coop_ratios.append(ratio(coop, theirs))
        pers_ratios.append(ratio(pers, theirs))
        print(f"{app + ' ' + input_:<28} {describe(coop):>26} {describe(pers):>26} "
              f"{describe(theirs):>26} {coop_ratios[-1]:>10.3f} {pers_ratios[-1]:>10.3f}")
    print(f"{'geometric mean':<28} {'':>26} {'':>26} {'':>26} "
          f"{geomean(coop_ratios):>10.3f} {geomean(pers_ratios):>10.3f}")
    print(f"(ratios below 1: ours is faster than {name}'s persistent-thread build)")


if __name__ == "__main__":
    main()
