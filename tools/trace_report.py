#!/usr/bin/env python3
"""Summarise a scheduler trace (CK_TRACE, Chrome trace-event JSON).

Prints the active work-groups of each cooperative launch over time, the
gather times and the ordinary launches, and with --png draws a timeline like
Figure 1 of FSE'17: active work-groups per cooperative kernel, with the
ordinary (non-cooperative) launches beneath.
"""
import argparse
import json
import statistics
import sys


class Trace:
    """A trace's events by kind. Spans are (start, end) in microseconds.

    counters: "launch N" -> [(ts, active work-groups)], in time order
    cooperative: launch id -> its span
    names: launch id -> its name ("cooperative launch 3 of 'relax' (8 groups)")
    gathers: launch id -> the spans of its gathers
    ordinary: the ordinary launches' (ts, dur), in time order
    """

    def __init__(self, events):
        self.counters, self.cooperative, self.gathers, self.ordinary = {}, {}, {}, []
        self.names = {}
        for event in events:
            if event.get("ph") == "C" and event.get("name") == "active work-groups":
                self.counters.setdefault(event["id"], []).append(
                    (event["ts"], event["args"]["active"]))
            elif event.get("ph") == "X":
                launch = event["args"]["launch"]
                span = (event["ts"], event["ts"] + event["dur"])
                if event.get("cat") == "gather":
                    self.gathers.setdefault(launch, []).append(span)
                else:
                    self.names[launch] = event["name"]
                    if event["name"].startswith("cooperative"):
                        self.cooperative[launch] = span
                    elif event["name"].startswith("ordinary"):
                        self.ordinary.append((event["ts"], event["dur"]))
        for samples in self.counters.values():
            samples.sort()
        self.ordinary.sort()


def read(path):
    """The trace at path; exits naming the file if it cannot be read."""
    try:
        with open(path) as f:
            return Trace(json.load(f)["traceEvents"])
    except (OSError, ValueError, KeyError) as error:
        sys.exit(f"trace_report: cannot read trace {path}: {error}")


def load(path):
    trace = read(path)
    gathers = [end - start for spans in trace.gathers.values() for start, end in spans]
    return trace.counters, gathers, trace.ordinary


def text_timeline(samples, columns=60):
    """Two rows of one character per time slice: the fewest and the most
    work-groups active during the slice."""
    start, end = samples[0][0], samples[-1][0]
    width = max(end - start, 1.0)
    lows, highs = [], []
    current = samples[0][1]
    index = 0
    for column in range(columns):
        slice_end = start + width * (column + 1) / columns
        low = high = current
        while index < len(samples) and samples[index][0] <= slice_end:
            current = samples[index][1]
            low, high = min(low, current), max(high, current)
            index += 1
        lows.append(low)
        highs.append(high)
    digits = lambda values: "".join(str(n) if n < 10 else "+" for n in values)
    return digits(lows), digits(highs), width / 1000.0


def report(counters, gathers, ordinary):
    for launch, samples in counters.items():
        actives = [active for _, active in samples]
        lows, highs, duration_ms = text_timeline(samples)
        print(f"{launch}: active work-groups over {duration_ms:.1f} ms "
              f"(min {min(actives)}, max {max(actives)}, {len(samples)} changes)")
        print(f"  most  |{highs}|")
        print(f"  fewest|{lows}|")
    if gathers:
        ms = sorted(g / 1000.0 for g in gathers)
        p99 = ms[min(len(ms) - 1, int(0.99 * len(ms)))]
        print(f"gathers: {len(ms)}, median {statistics.median(ms):.3f} ms, "
              f"p99 {p99:.3f} ms, max {ms[-1]:.3f} ms")
    else:
        print("gathers: none")
    if ordinary:
        ms = [d / 1000.0 for _, d in ordinary]
        print(f"ordinary launches: {len(ms)}, median {statistics.median(ms):.3f} ms, "
              f"max {max(ms):.3f} ms")


def draw(counters, ordinary, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    origin = min([s[0][0] for s in counters.values()] + [t for t, _ in ordinary] or [0])
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(10, 4.5),
                                      gridspec_kw={"height_ratios": [3, 1]})
    for launch, samples in counters.items():
        times = [(t - origin) / 1000.0 for t, _ in samples]
        top.step(times, [a for _, a in samples], where="post", label=launch)
    top.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    top.set_ylabel("active work-groups")
    top.set_title("cooperative kernels: active work-groups over time")
    top.legend(loc="upper right", fontsize="small")
    top.grid(alpha=0.3)
    bottom.broken_barh([((t - origin) / 1000.0, d / 1000.0) for t, d in ordinary], (0, 1),
                       color="tab:red")
    bottom.set_yticks([])
    bottom.set_ylabel("ordinary", rotation=0, ha="right", va="center")
    bottom.set_xlabel("time (ms)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"timeline written to {path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("trace")
    parser.add_argument("--png", help="also draw the timeline into this PNG file")
    args = parser.parse_args()
    counters, gathers, ordinary = load(args.trace)
    if not counters:
        sys.exit("trace_report: the trace has no cooperative launch")
    report(counters, gathers, ordinary)
    if args.png:
        draw(counters, ordinary, args.png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
