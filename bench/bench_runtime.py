#!/usr/bin/env python3
"""Run time of ordinary (non-cooperative) kernels, patched against unpatched
Mesa, rusticl on llvmpipe or (--driver zink) on zink over each Mesa's
lavapipe: the FSE'17 applications' persistent-thread builds, which need no
extension and so run on both. By default with one work-group on one
compute thread and the test-scale inputs: stock llvmpipe cannot run their
occupancy-bound barriers across work-groups, and on the bench-scale inputs
even one work-group's loops run past its loop limiter (65535 iterations),
which ends them early; a run whose result is wrong is reported, not timed.

Each repeat runs `ck-eval persistent --repeats RUNS` once on each Mesa, in
alternating order, so that the machine's drift affects both; each process
compiles its kernels in an untimed warm-up before the timed runs, so this
measures run time, not compile time (`bench compile` measures that).
Prints, per application, the median seconds over all runs of each (with
the spread), their ratio, and the geometric mean and the worst ratio.
"""
import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile

from bench_compile import add_mesa_arguments, geomean, mesa_environments


def describe(times):
    return f"{statistics.median(times):.4f} s ({min(times):.4f}-{max(times):.4f})"


def run_eval(args, env, out):
    """{application label: [seconds, or None where the result was wrong]}
    of one `ck-eval persistent` process."""
    command = [args.eval, "persistent", "--repeats", str(args.runs), "--groups", str(args.groups),
               "--scale", args.scale, "--kernels", args.kernels, "--include", args.include,
               "--out", out]
    if args.apps:
        command += ["--apps", args.apps]
    result = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    path = os.path.join(out, "persistent.csv")
    if result.returncode not in (0, 1) or not os.path.exists(path):
        sys.exit(f"bench_runtime: ck-eval failed:\n{result.stdout[-3000:]}")
    seconds, correct = {}, {}
    with open(path) as f:
        for row in csv.DictReader(f):
            if row["record"] != "sample":
                continue
            run = (f"{row['app']} {row['input']}", row["repeat"])
            if row["metric"] == "seconds":
                seconds[run] = float(row["value"])
            elif row["metric"] == "correct":
                correct[run] = float(row["value"]) == 1
    runs = {}
    for (label, repeat), t in seconds.items():
        runs.setdefault(label, []).append(t if correct.get((label, repeat)) else None)
    return runs


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--eval", required=True, help="the ck-eval binary")
    parser.add_argument("--kernels", required=True)
    parser.add_argument("--include", required=True)
    add_mesa_arguments(parser, zink=True)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--groups", type=int, default=1)
    parser.add_argument("--runs", type=int, default=10, help="timed runs per process")
    parser.add_argument("--scale", default="test", choices=["test", "bench"])
    parser.add_argument("--apps", default="")
    args = parser.parse_args()

    # As many compute threads as work-groups, on both (unpatched llvmpipe
    # reports 8 compute units whatever its thread count).
    envs = mesa_environments(args, LP_NUM_THREADS=str(args.groups))
    samples = {"unpatched": {}, "patched": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for repeat in range(args.repeats):
            order = ["unpatched", "patched"] if repeat % 2 == 0 else ["patched", "unpatched"]
            for which in order:
                out = os.path.join(tmp, f"{which}-{repeat}")
                for label, runs in run_eval(args, envs[which], out).items():
                    samples[which].setdefault(label, []).extend(runs)
            print(f"repeat {repeat + 1}/{args.repeats} done", file=sys.stderr)

    print(f"\nrun time of the persistent-thread builds on rusticl and {args.driver}, "
          f"{args.groups} work-groups and compute threads, {args.repeats} paired processes "
          f"of {args.runs} runs, scale {args.scale}\n")
    print(f"{'application input':32} {'unpatched':26} {'patched':26} ratio")
    ratios = []
    for label in sorted(samples["unpatched"]):
        before, after = samples["unpatched"][label], samples["patched"].get(label, [])
        wrong = [which for which, times in (("unpatched", before), ("patched", after))
                 if not times or None in times]
        if wrong:
            print(f"{label:32} wrong results {' and '.join(wrong)}: not timed")
            continue
        ratio = statistics.median(after) / statistics.median(before)
        ratios.append((ratio, label))
        print(f"{label:32} {describe(before):26} {describe(after):26} {ratio:.3f}")
    if ratios:
        worst = max(ratios)
        print(f"\ngeometric mean of the ratios {geomean([r for r, _ in ratios]):.3f}, "
              f"worst {worst[0]:.3f} ({worst[1]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
