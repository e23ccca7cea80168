#!/usr/bin/env python3
"""trace_of_kills.py PROGRAM [ARG...]: runs PROGRAM, which must pass and
kill in some cooperative launch (demand_kills), with a scheduler trace
(CK_TRACE) and its statistics (CK_STATS=1), and checks the trace against
them: the driver writes it at exit whatever its backend (zink's dispatch
policy, ck/dispatch.h, or llvmpipe's scheduler). Every cooperative launch
of the statistics is a span named after its kernel, with as many gathers
as the statistics count, each within its launch, and a counter of active
work-groups that ends at 0.
"""
# covers: 15-ck-env
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import trace_report  # noqa: E402

STATS = re.compile(r"ck: cooperative launch (\d+): .* (\d+) kills, \d+ forks, (\d+) gathers")


def main():
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "trace.json")
        run = subprocess.run(sys.argv[1:], env=dict(os.environ, CK_TRACE=path, CK_STATS="1"),
                             capture_output=True, text=True, timeout=120)
        if run.returncode != 0:
            sys.exit(f"trace_of_kills: {sys.argv[1]} failed:\n{run.stdout}{run.stderr}")
        stats = {int(m[1]): (int(m[2]), int(m[3])) for m in STATS.finditer(run.stderr)}
        trace = trace_report.read(path)
    launches, gathers, counters = trace.cooperative, trace.gathers, trace.counters

    problems = []
    if not stats or sorted(launches) != sorted(stats):
        problems.append(f"launches traced {sorted(launches)}, in the statistics {sorted(stats)}")
    if not any(kills for kills, _ in stats.values()):
        problems.append("no launch killed")
    rounding = 0.002  # microseconds written with 3 decimals
    for launch, (start, end) in launches.items():
        if not re.fullmatch(rf"cooperative launch {launch} of '\w+' \(\d+ groups\)",
                            trace.names[launch]):
            problems.append(f"launch {launch} is named {trace.names[launch]!r}, not after its kernel")
        spans = gathers.get(launch, [])
        if launch in stats and len(spans) != stats[launch][1]:
            problems.append(f"launch {launch}: {len(spans)} gathers traced, "
                            f"{stats[launch][1]} counted")
        for gather_start, gather_end in spans:
            if not start <= gather_start <= gather_end <= end + rounding:
                problems.append(f"launch {launch}: a gather outside it")
        samples = counters.get(f"launch {launch}", [])
        if not samples or samples[-1][1] != 0 or abs(samples[-1][0] - end) > rounding:
            problems.append(f"launch {launch}: active work-groups do not end at 0 with it")
    for problem in problems:
        print("trace_of_kills:", problem)
    if problems:
        print(run.stderr)
        sys.exit(1)
    print(f"trace_of_kills: {len(launches)} launches, "
          f"{sum(len(g) for g in gathers.values())} gathers, as the statistics say")


if __name__ == "__main__":
    main()
