#!/usr/bin/env python3
"""bench/table2_against.py pairs rounds: each ratio is taken within a round
(ours against the other implementation's run beside it), and the table gives
the median of the rounds' ratios with their range, not a ratio of medians
taken over rounds that met different phases of the machine."""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SCRIPT = os.path.join(ROOT, "bench", "table2_against.py")
HEADER = "record,app,input,kind,variant,barrier,load,k_label,k,repeat,index,metric,value\n"


def write_summary(path, seconds):
    """A report's summary (NAME.summary.csv beside NAME.csv) with one
    application: {variant: median seconds}, min and max 10% around it."""
    with open(path + ".csv", "w") as f:
        f.write(HEADER)
    with open(path + ".summary.csv", "w") as f:
        f.write(HEADER)
        for variant, median in seconds.items():
            for metric, value in (("median_s", median), ("min_s", median * 0.9),
                                  ("max_s", median * 1.1)):
                f.write(f"summary,game,connect4,work-stealing,{variant},,,,2,,,{metric},{value}\n")


def run(args):
    return subprocess.run([sys.executable, SCRIPT] + args, capture_output=True, text=True)


def main():
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        # Three rounds whose phases differ: PoCL slow in the second, ours slow
        # in the third. Within each round: cooperative/other 2.0, 1.0, 1.5.
        rounds = [({"cooperative": 2.0, "persistent": 2.0}, {"persistent": 1.0}),
                  ({"cooperative": 2.0, "persistent": 4.0}, {"persistent": 2.0}),
                  ({"cooperative": 6.0, "persistent": 6.0}, {"persistent": 4.0})]
        args = []
        for i, (ours, other) in enumerate(rounds):
            write_summary(os.path.join(tmp, f"ours{i}"), ours)
            write_summary(os.path.join(tmp, f"other{i}"), other)
            args += ["--ours", os.path.join(tmp, f"ours{i}.csv"),
                     "--other", os.path.join(tmp, f"other{i}.csv")]
        result = run(args + ["--name", "PoCL"])
        row = next((line for line in result.stdout.splitlines() if line.startswith("game ")), "")
        # the median of the rounds' ratios (1.5, range 1.00-2.00), not the
        # ratio of the medians in seconds (2.0 / 2.0 = 1.0)
        if result.returncode != 0 or "1.500 (1.00-2.00)" not in row:
            failures.append(f"three rounds: cooperative/PoCL should read '1.500 (1.00-2.00)':\n"
                            f"{result.stdout}{result.stderr}")
        if "3 rounds, ours and PoCL's alternating" not in result.stdout:
            failures.append(f"three rounds: the heading should say so:\n{result.stdout}")
        # persistent/other 2.0, 2.0, 1.5: median 2.0
        if "2.000 (1.50-2.00)" not in row:
            failures.append(f"three rounds: persistent/PoCL should read '2.000 (1.50-2.00)':\n{row}")

        single = run(args[:4] + ["--name", "PoCL"])
        row = next((line for line in single.stdout.splitlines() if line.startswith("game ")), "")
        if single.returncode != 0 or not row.rstrip().endswith("2.000             2.000"):
            failures.append(f"one round: plain ratios, no range:\n{single.stdout}{single.stderr}")

        unpaired = run(args[:6])
        if unpaired.returncode == 0 or "give one of each per round" not in unpaired.stderr:
            failures.append(f"two --ours against one --other should fail:\n{unpaired.stderr}")
    for failure in failures:
        print("FAIL:", failure)
    print("test_table2_against:", "FAIL" if failures else "PASS")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
