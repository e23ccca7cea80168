#!/usr/bin/python3
"""Draw the FSE'17 evaluation figures from ck-eval's CSV files.

Reads table2.csv, fig5.csv and fig6.csv (whichever exist) from --dir, with
the summaries that ck-eval's report wrote beside each (NAME.summary.csv:
every median here is the report's, bench/eval_report.cpp), and writes PNGs
beside them (or to --out):

  table2.png  slowdown of each application/input, cooperative against
              persistent, with the geometric mean and the paper's figures;
  fig5.png    like FSE'17 Figure 5, one panel per application/input: gather
              time (query and without-query barriers) and the light and heavy
              matmul times against the work-groups k given to the matmul, on
              a log time axis, with the graphics loads' periods;
  fig6.png    like FSE'17 Figure 6: median slowdown of the cooperative kernel
              against k per load (with the kernel-level preemption model
              P/(P-D) dashed), and the median period achieved per load with
              the loads' periods as goals (both from the CSV's meta records).

Run with Debian's python3 (python3-matplotlib): /usr/bin/python3.
"""
import argparse
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import NullFormatter, ScalarFormatter  # noqa: E402

LOAD_COLOURS = {"light": "tab:green", "medium": "tab:orange", "heavy": "tab:red"}


def number(text):
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def read(path):
    try:
        with open(path, newline="") as f:
            return list(csv.DictReader(f))
    except OSError as error:
        sys.exit(f"eval_plots: cannot read {path}: {error}")


def meta(rows):
    return {r["metric"]: r["value"] for r in rows if r["record"] == "meta" and not r["load"]}


def load_shapes(rows):
    """{load: (period ms, work ms)}, as ck-eval's meta records give them."""
    shapes = {}
    for r in rows:
        if r["record"] == "meta" and r["load"]:
            shapes.setdefault(r["load"], {})[r["metric"]] = number(r["value"])
    return {load: (s.get("load_period_ms"), s.get("load_work_ms")) for load, s in shapes.items()}


def period_goals(rows):
    """[(period ms, "light" or "medium/heavy")]: the loads' periods, shortest first."""
    names = {}
    for load, (period, _) in load_shapes(rows).items():
        if period:
            names.setdefault(period, []).append(load)
    return [(period, "/".join(names[period])) for period in sorted(names)]


def subtitle(rows):
    m = meta(rows)
    return (f"{m.get('device', '?')}, N = {m.get('units', '?')} units "
            f"(LP_NUM_THREADS={m.get('lp_num_threads', '?')}, {m.get('cpus', '?')} CPUs), "
            f"scale {m.get('scale', '?')}, {m.get('repeats', '?')} runs")


def k_axis(rows):
    """The k values present, sorted, with their labels ("1=N/4")."""
    ks = {}
    for r in rows:
        k = number(r["k"])
        if k is not None and r["k_label"] and r["load"] != "alone":
            ks[int(k)] = r["k_label"]
    return sorted(ks), ks


def plot_table2(rows, out):
    pairs, slowdowns = [], []
    for r in rows:
        if r["record"] == "summary" and r["metric"] == "slowdown" and r["app"] != "*":
            value = number(r["value"])
            if value is not None:
                pairs.append(f"{r['app']} {r['input']}")
                slowdowns.append(value)
    if not pairs:
        print("eval_plots: table2.csv has no slowdowns; no table2.png", file=sys.stderr)
        return
    summary = {(r["kind"], r["metric"]): number(r["value"]) for r in rows
               if r["record"] in ("summary",) and r["app"] == "*"}
    fig, ax = plt.subplots(figsize=(8, 0.35 * len(pairs) + 1.8))
    ax.barh(range(len(pairs)), slowdowns, color="tab:blue")
    ax.set_yticks(range(len(pairs)))
    ax.set_yticklabels(pairs)
    ax.invert_yaxis()
    ax.axvline(1.0, color="black", linewidth=0.8)
    mean = summary.get(("all", "geomean_slowdown"))
    if mean is not None:
        ax.axvline(mean, color="tab:blue", linestyle="--", label=f"geometric mean {mean:.3f}")
    ax.axvline(1.07, color="grey", linestyle=":", label="paper mean 1.07")
    ax.axvline(1.23, color="grey", linestyle="-.", label="paper max 1.23")
    ax.set_xlabel("slowdown (cooperative / persistent, medians)")
    fig.suptitle("Table 2: cooperative kernel slowdown without multitasking\n" + subtitle(rows),
                 fontsize=9)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)
    print(f"eval_plots: {out}")


def plot_fig5(rows, out):
    summary = [r for r in rows if r["record"] == "summary"]
    ks, labels = k_axis(summary)
    apps = []
    for r in summary:
        pair = (r["app"], r["input"])
        if pair not in apps:
            apps.append(pair)
    if not apps or not ks:
        print("eval_plots: fig5.csv has no summaries; no fig5.png", file=sys.stderr)
        return

    def series(app, metric, barriers, load=""):
        xs, ys = [], []
        for k in ks:
            for r in summary:
                if ((r["app"], r["input"]) == app and r["metric"] == metric
                        and r["barrier"] in barriers and r["load"] == load
                        and number(r["k"]) == k):
                    value = number(r["value"])
                    if value is not None and value > 0:
                        xs.append(k)
                        ys.append(value)
                    break
        return xs, ys

    columns = min(3, len(apps))
    rows_n = math.ceil(len(apps) / columns)
    fig, axes = plt.subplots(rows_n, columns, figsize=(4.3 * columns, 3.4 * rows_n),
                             squeeze=False)
    for index, app in enumerate(apps):
        ax = axes[index // columns][index % columns]
        drawn = [
            (series(app, "gather_median_ms", ("without-query",)), "gather time (W/O query)",
             dict(color="tab:purple", marker="s", linestyle="--")),
            (series(app, "gather_median_ms", ("query", "-")), "gather time",
             dict(color="tab:blue", marker="o")),
            (series(app, "gather_p99_ms", ("query", "-")), "gather p99",
             dict(color="tab:blue", marker=".", linestyle=":", linewidth=0.8)),
            (series(app, "matmul_median_ms", ("*",), "light"), "light task",
             dict(color="tab:green", marker="^")),
            (series(app, "matmul_median_ms", ("*",), "heavy"), "heavy task",
             dict(color="tab:red", marker="v")),
        ]
        for (xs, ys), label, style in drawn:
            if xs:
                ax.plot(xs, ys, label=label, **style)
        for period, names in period_goals(rows):
            ax.axhline(period, color="grey", linewidth=0.8, linestyle="--")
            ax.text(ks[-1], period, f" {names} ({period:g})", va="bottom", ha="right",
                    fontsize=7, color="grey")
        ax.set_yscale("log")
        ax.set_xticks(ks)
        ax.set_xticklabels([f"{labels[k]}\n({k})" for k in ks], fontsize=8)
        ax.set_title(f"{app[0]} {app[1]}", fontsize=9)
        ax.set_ylabel("time (ms)", fontsize=8)
        ax.grid(True, which="major", axis="y", alpha=0.3)
        if index == 0:
            ax.legend(fontsize=7)
    for index in range(len(apps), rows_n * columns):
        axes[index // columns][index % columns].axis("off")
    fig.supxlabel("number of non-cooperative work-groups (k)", fontsize=9)
    fig.suptitle("Figure 5: gather time and non-cooperative (matmul) time\n" + subtitle(rows),
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)
    print(f"eval_plots: {out}")


def plot_fig6(rows, out):
    summary = [r for r in rows if r["record"] == "summary" and r["app"] == "*"]
    ks, labels = k_axis(summary)
    loads = [load for load in ("light", "medium", "heavy")
             if any(r["load"] == load for r in summary)]
    if not ks or not loads:
        print("eval_plots: fig6.csv has no summaries; no fig6.png", file=sys.stderr)
        return

    def series(load, metric):
        xs, ys = [], []
        for k in ks:
            for r in summary:
                if r["load"] == load and r["metric"] == metric and number(r["k"]) == k:
                    value = number(r["value"])
                    if value is not None and value > 0:
                        xs.append(k)
                        ys.append(value)
                    break
        return xs, ys

    shapes = load_shapes(rows)
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for load in loads:
        colour = LOAD_COLOURS[load]
        xs, ys = series(load, "slowdown_median")
        if xs:
            left.plot(xs, ys, marker="o", color=colour, label=load)
        period, work = shapes.get(load, (None, None))
        if period and work is not None:
            left.axhline(period / (period - work), color=colour, linestyle="--", linewidth=0.8)
        xs, ys = series(load, "period_median_ms")
        if xs:
            right.plot(xs, ys, marker="o", color=colour, label=load)
    left.axhline(1.0, color="black", linewidth=0.6)
    left.set_ylabel("median overhead (slowdown)")
    left.set_title("cooperative kernel slowdown\n(dashed: kernel-level model P/(P-D))", fontsize=9)
    goals = period_goals(rows)
    for period, _ in goals:
        right.axhline(period, color="grey", linewidth=0.8, linestyle="--")
    right.set_yscale("log")
    right.yaxis.set_major_formatter(ScalarFormatter())
    right.yaxis.set_minor_formatter(NullFormatter())
    low, high = right.get_ylim()
    right.set_ylim(min(low, 30), max(high, 90))
    # Within 30-90 ms a log axis has no decade to label: name the goals.
    right.set_yticks([period for period, _ in goals] + ([] if high <= 100 else [100, 1000]))
    right.set_ylabel("median period (ms)")
    right.set_title("period achieved by the matmul\n(goals: " +
                    ", ".join(f"{period:g} ms {names}" for period, names in goals) + ")",
                    fontsize=9)
    for ax in (left, right):
        ax.set_xticks(ks)
        ax.set_xticklabels([f"{labels[k]}\n({k})" for k in ks], fontsize=8)
        ax.set_xlabel("work-groups (k)")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Figure 6: multitasking cooperative and non-cooperative workloads "
                 "(median over applications)\n" + subtitle(rows), fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)
    print(f"eval_plots: {out}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", default="_build/eval", help="where the CSV files are")
    parser.add_argument("--out", help="where the PNGs go (default: --dir)")
    args = parser.parse_args()
    out = args.out or args.dir
    os.makedirs(out, exist_ok=True)
    plots = (("table2", plot_table2), ("fig5", plot_fig5), ("fig6", plot_fig6))
    found = False
    for name, plot in plots:
        path = os.path.join(args.dir, name + ".csv")
        if os.path.exists(path):
            found = True
            summary = os.path.join(args.dir, name + ".summary.csv")
            if not os.path.exists(summary):
                print(f"eval_plots: no {summary} (write it with 'ck-eval report {path} "
                      f"--summary {summary}'); no {name}.png", file=sys.stderr)
                continue
            plot(read(path) + read(summary), os.path.join(out, name + ".png"))
    if not found:
        sys.exit(f"eval_plots: no table2.csv, fig5.csv or fig6.csv in {args.dir}")


if __name__ == "__main__":
    main()
