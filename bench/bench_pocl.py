#!/usr/bin/env python3
"""Run time of well-known ordinary OpenCL kernels (bench/kernels, run and
checked by ck-kernels) on PoCL and on rusticl and llvmpipe of the patched
Mesa and of the unpatched Mesa: `tools/ck bench pocl`.

Each repeat runs, per kernel, one ck-kernels process on every platform, the
platforms in round-robin order (repeat r starts with the r-th), so that the
machine's drift affects all; each process compiles in an untimed warm-up,
then times --runs runs on the host clock, every run checked against a
sequential host reference. Prints per kernel the median milliseconds over
all runs of each platform (with the spread), then the ratios of the medians
(patched/PoCL, unpatched/PoCL, patched/unpatched) with their
geometric mean and worst case, and the same ratios of the runs' CPU time
(user + system of all the process's threads), which other processes' load
moves less. A kernel whose result is wrong on a platform
(or whose process fails) is named, not timed there, and fails the command.
"""
import argparse
import math
import os
import statistics
import subprocess
import sys

PLATFORMS = ["pocl", "rusticl-patched", "rusticl-unpatched"]
TITLES = {"pocl": "PoCL", "rusticl-patched": "rusticl patched",
          "rusticl-unpatched": "rusticl unpatched"}
SHORT = {"pocl": "PoCL", "patched": "p", "unpatched": "u"}
# (numerator, denominator) of every ratio column.
RATIOS = [("rusticl-patched", "pocl"), ("rusticl-unpatched", "pocl"),
          ("rusticl-patched", "rusticl-unpatched")]


def environment(platform, args):
    """The environment that points the ICD loader at one platform alone."""
    env = dict(os.environ, LP_NUM_THREADS=str(args.threads))
    if platform == "pocl":
        return dict(env, OCL_ICD_VENDORS=args.pocl_icd, POCL_CPU_MAX_CU_COUNT=str(args.threads),
                    POCL_MAX_PTHREAD_COUNT=str(args.threads), POCL_CACHE_DIR=args.pocl_cache)
    icd = args.patched_icd if platform == "rusticl-patched" else args.unpatched_icd
    return dict(env, OCL_ICD_VENDORS=icd, RUSTICL_ENABLE="llvmpipe")


def parse_output(text):
    """(device, {kernel: [(seconds, CPU seconds)]}, {kernel: what was wrong})
    of ck-kernels' output."""
    device, times, wrong = None, {}, {}
    for line in text.splitlines():
        kind, _, rest = line.partition(",")
        name, _, value = rest.partition(",")
        if kind == "device":
            device = f"{name}: {value}"
        elif kind == "time":
            wall, cpu = value.split(",")
            times.setdefault(name, []).append((float(wall), float(cpu)))
        elif kind == "wrong":
            wrong[name] = value
    return device, times, wrong


def round_robin(platforms, repeat):
    """The platforms in the order of one repeat: the r-th first."""
    start = repeat % len(platforms)
    return platforms[start:] + platforms[:start]


def geomean(values):
    values = [v for v in values if v is not None]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def medians(samples, index):
    """{platform: {kernel: median of the samples' index-th figure}}."""
    return {p: {k: statistics.median(t[index] for t in runs) for k, runs in kernels.items()}
            for p, kernels in samples.items()}


def ratio_table(medians, kernels, ratios=RATIOS):
    """{(a, b): {kernel: median a / median b, or None where either is
    missing}}."""
    return {(a, b): {k: medians[a][k] / medians[b][k]
                     if k in medians.get(a, {}) and k in medians.get(b, {}) else None
                     for k in kernels}
            for a, b in ratios}


def worst(column):
    """(largest ratio, its kernel) of one ratio column, or None."""
    found = [(r, k) for k, r in column.items() if r is not None]
    return max(found) if found else None


def ratio_title(a, b):
    """"rusticl p/PoCL" for ("rusticl-patched", "pocl")."""
    return f"{TITLES[a].split()[0]} {SHORT[a.split('-')[1]]}/{SHORT[b.split('-')[-1]]}"


def describe(samples):
    """Median (min-max) milliseconds of the samples' wall times."""
    ms = [wall * 1000 for wall, _ in samples]
    return f"{statistics.median(ms):.1f} ({min(ms):.1f}-{max(ms):.1f})"


def number(value):
    return "-" if value is None else f"{value:.2f}"


def print_table(header, rows):
    """A Markdown table with aligned columns."""
    widths = [max(len(str(row[i])) for row in [header] + rows) for i in range(len(header))]
    for i, row in enumerate([header] + rows):
        print("| " + " | ".join(str(c).ljust(w) for c, w in zip(row, widths)) + " |")
        if i == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


def print_ratios(ratios, kernels):
    header = ["kernel"] + [ratio_title(a, b) for a, b in ratios]
    rows = [[k] + [number(column[k]) for column in ratios.values()] for k in kernels]
    rows.append(["geometric mean"] + [number(geomean(c.values())) for c in ratios.values()])
    rows.append(["worst"] + [f"{w[0]:.2f} ({w[1]})" if w else "-"
                             for w in map(worst, ratios.values())])
    print_table(header, rows)


def run_one(args, platform, kernel):
    """(device, [(seconds, CPU seconds)], what was wrong or None) of one
    process."""
    command = [args.binary, "--dir", args.dir, "--runs", str(args.runs), "--only", kernel]
    try:
        result = subprocess.run(command, env=environment(platform, args), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return None, [], f"no result within {args.timeout} s"
    device, times, wrong = parse_output(result.stdout)
    if kernel in wrong:
        return device, [], wrong[kernel]
    if result.returncode != 0 or len(times.get(kernel, [])) != args.runs:
        tail = " / ".join(result.stdout.strip().splitlines()[-3:])
        return device, [], f"ck-kernels exited with {result.returncode}: {tail}"
    return device, times[kernel], None


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--binary", required=True, help="the ck-kernels program")
    parser.add_argument("--dir", required=True, help="the kernels' sources (bench/kernels)")
    parser.add_argument("--pocl-icd", required=True, help="an ICD directory naming PoCL alone")
    parser.add_argument("--pocl-cache", required=True, help="POCL_CACHE_DIR")
    parser.add_argument("--patched-icd", required=True,
                        help="an ICD directory naming rusticl of the patched Mesa alone")
    parser.add_argument("--unpatched-icd", required=True, help="the same of the unpatched Mesa")
    parser.add_argument("--repeats", type=int, default=3, help="processes per kernel and platform")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per process")
    parser.add_argument("--threads", type=int, default=os.cpu_count(),
                        help="LP_NUM_THREADS and PoCL's compute units")
    parser.add_argument("--kernels", default="", help="only these kernels (comma-separated)")
    parser.add_argument("--platforms", default=",".join(PLATFORMS),
                        help="only these platforms (comma-separated)")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per process")
    args = parser.parse_args()
    if args.repeats < 1 or args.runs < 1:
        parser.error("--repeats and --runs take a positive number")

    listed = subprocess.run([args.binary, "--list"], stdout=subprocess.PIPE, text=True,
                            check=True).stdout.split()
    kernels = args.kernels.split(",") if args.kernels else listed
    platforms = args.platforms.split(",")
    for name, chosen, known in (("kernel", kernels, listed), ("platform", platforms, PLATFORMS)):
        unknown = [c for c in chosen if c not in known]
        if unknown:
            sys.exit(f"bench_pocl: unknown {name} {', '.join(unknown)} "
                     f"(known: {', '.join(known)})")

    samples = {p: {} for p in platforms}
    devices, wrong = {}, {}
    for repeat in range(args.repeats):
        for kernel in kernels:
            for platform in round_robin(platforms, repeat):
                if (platform, kernel) in wrong:
                    continue
                device, times, what = run_one(args, platform, kernel)
                if device:
                    devices.setdefault(platform, device)
                if what:
                    wrong[(platform, kernel)] = what
                    print(f"WRONG: {kernel} on {TITLES[platform]}: {what}", file=sys.stderr)
                else:
                    samples[platform].setdefault(kernel, []).extend(times)
        print(f"repeat {repeat + 1}/{args.repeats} done", file=sys.stderr)

    print(f"\nordinary kernels: milliseconds per run, median (min-max) of {args.repeats} "
          f"processes x {args.runs} runs, interleaved; {args.threads} threads "
          f"(LP_NUM_THREADS, PoCL's compute units)")
    for platform in platforms:
        print(f"  {TITLES[platform]}: {devices.get(platform)}")
    print()
    print_table(["kernel"] + [TITLES[p] for p in platforms],
                [[k] + [describe(samples[p][k]) if k in samples[p] else "wrong"
                        for p in platforms] for k in kernels])

    pairs = [(a, b) for a, b in RATIOS if a in platforms and b in platforms]
    if pairs:
        print("\nratios of the medians (p: patched Mesa, u: unpatched Mesa; above 1: the "
              "first is slower)\n")
        print_ratios(ratio_table(medians(samples, 0), kernels, pairs), kernels)
        # What the run cost the process's threads, less sensitive to other
        # processes' load than the wall time.
        print("\nthe same of the CPU time (user + system, all threads) of the timed runs\n")
        print_ratios(ratio_table(medians(samples, 1), kernels, pairs), kernels)

    runs = sum(len(t) for p in platforms for t in samples[p].values())
    if wrong:
        print(f"\nFAIL: {len(wrong)} kernel(s) wrong or failed, not timed there:")
        for (platform, kernel), what in sorted(wrong.items()):
            print(f"  {kernel} on {TITLES[platform]}: {what}")
        return 1
    print(f"\nall {runs} timed runs (and their warm-ups) matched their references")
    return 0


if __name__ == "__main__":
    sys.exit(main())
