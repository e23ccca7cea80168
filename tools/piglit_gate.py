#!/usr/bin/env python3
# covers: 15-branch-skip
"""Record piglit results as an expectation file, or compare a run against one.

The expectation file has one 'status test-name' line per test, sorted, after
'#' comment lines that say where it came from; a tab and the test's wall time
in seconds follow the name (subtests have none of their own). Names may hold
spaces. A test that timed out in the run with the others and was re-run
alone (--rerun) has its result alone, and a tab and 'timeout LIMIT' after
its time: the limit, in seconds, at which it timed out first.

The gate fails when a test that passes in the expectation does not pass in
the run, or takes more than SLOW_FAIL times its recorded time; it names those
above SLOW_NOTE times. A timeout in the run is a failure unless the
expectation's test timed out at the same limit too; only then does its
re-run alone stand for it. A re-run never turns any other failure into a
pass: it is printed beside the first result.
"""
import argparse
import bz2
import gzip
import json
import lzma
import pathlib
import sys

OPENERS = {"": open, ".bz2": bz2.open, ".gz": gzip.open, ".xz": lzma.open}
SLOW_NOTE = 2.0
SLOW_FAIL = 4.0
# Times below this many seconds count as this many: start-up noise.
SLOW_FLOOR = 2.0
# How many of a failed test's last output lines require-pass prints.
OUTPUT_LINES = 40


def flatten(tests):
    """Each test, and each of its subtests as 'test@subtest', with its status;
    and each test's wall time in seconds, where piglit recorded one."""
    statuses, seconds = {}, {}
    for name, test in tests.items():
        statuses[name] = test["result"]
        time = test.get("time") or {}
        if "start" in time and "end" in time:
            seconds[name] = time["end"] - time["start"]
        for subtest, status in (test.get("subtests") or {}).items():
            if subtest != "__type__":
                statuses[f"{name}@{subtest}"] = status
    return statuses, seconds


def replace_tests(statuses, seconds, names, by_statuses, by_seconds):
    """Replaces each named test, with its subtests, by its result in by_*."""
    def of_named(key):
        return key in names or key.partition("@")[0] in names
    for results, replacements in ((statuses, by_statuses), (seconds, by_seconds)):
        for key in [k for k in results if of_named(k)]:
            del results[key]
        results.update({k: v for k, v in replacements.items() if of_named(k)})


def load_reruns(reruns):
    """(test name -> status, test name -> seconds) of the tests re-run alone."""
    statuses, seconds = {}, {}
    for rerun in reruns:
        more_statuses, more_seconds = load_results(rerun)
        statuses.update(more_statuses)
        seconds.update(more_seconds)
    return statuses, seconds


def load_tests(results_dir):
    """The 'tests' object of a piglit results directory."""
    directory = pathlib.Path(results_dir)
    for suffix, opener in OPENERS.items():
        path = directory / ("results.json" + suffix)
        if path.exists():
            with opener(path, "rt") as f:
                return json.load(f)["tests"]
    sys.exit(f"piglit_gate: no results.json in {directory} (did piglit finish?)")


def load_results(results_dir):
    """(test name -> status, test name -> seconds) from a piglit results directory."""
    return flatten(load_tests(results_dir))


def load_expectation(path):
    """(test name -> status, test name -> seconds, test name -> the limit
    in seconds at which it timed out before its re-run alone) from an
    expectation file."""
    expected, seconds, first_timeouts = {}, {}, {}
    with open(path) as f:
        for line_no, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            test, _, times = line.partition("\t")
            status, _, name = test.partition(" ")
            time, _, first = times.partition("\t")
            first_status, _, limit = first.partition(" ")
            if not name or (first and (first_status != "timeout" or not limit.isdigit())):
                sys.exit(f"piglit_gate: {path}:{line_no}: expected "
                         "'status name[<tab>seconds[<tab>timeout limit]]'")
            expected[name] = status
            if time:
                seconds[name] = float(time)
            if first:
                first_timeouts[name] = int(limit)
    return expected, seconds, first_timeouts


def count(statuses):
    totals = {}
    for status in statuses:
        totals[status] = totals.get(status, 0) + 1
    return ", ".join(f"{n} {s}" for s, n in sorted(totals.items()))


def record(args):
    results, seconds = load_results(args.results)
    alone, alone_seconds = load_reruns(args.rerun)
    rerun = {name for name in alone_seconds if results.get(name) == "timeout"}
    replace_tests(results, seconds, rerun, alone, alone_seconds)
    with open(args.expectation, "w") as f:
        f.write("# piglit cl profile expectation: generated by 'tools/ck piglit-baseline', do not edit.\n")
        f.write(f"# {args.header}\n# {count(results.values())}\n")
        for name in sorted(results):
            time = f"\t{seconds[name]:.2f}" if name in seconds else ""
            first = f"\ttimeout {args.timeout}" if name in rerun else ""
            f.write(f"{results[name]} {name}{time}{first}\n")
    print(f"piglit_gate: recorded {len(results)} tests ({count(results.values())}) in {args.expectation}")
    return 0


def timeouts(args):
    """The tests (not subtests) that timed out in the run, and passed in the
    expectation if one is given: one per line, to be re-run alone with a
    longer limit."""
    expected = load_expectation(args.passed_in)[0] if args.passed_in else None
    actual, seconds = load_results(args.results)
    for name, status in sorted(actual.items()):
        if status == "timeout" and name in seconds and (
                expected is None or expected.get(name) == "pass"):
            print(name)
    return 0


def compare(args):
    expected, expected_seconds, first_timeouts = load_expectation(args.expectation)
    actual, seconds = load_results(args.results)
    alone, alone_seconds = load_reruns(args.rerun)
    rerun = sorted(name for name in alone_seconds if actual.get(name) == "timeout")
    # Unpatched Mesa timed out at the same limit: the re-runs alone compare.
    timed_out_alike = {name for name in rerun if first_timeouts.get(name) == args.timeout}
    replace_tests(actual, seconds, timed_out_alike, alone, alone_seconds)
    regressions, missing, fixed = [], [], []
    for name, status in sorted(expected.items()):
        if name not in actual:
            if not args.subset and status == "pass":
                missing.append(name)
            continue
        if status == "pass" and actual[name] != "pass":
            regressions.append((name, actual[name]))
        elif status != "pass" and actual[name] == "pass":
            fixed.append((name, status))
    new_tests = sorted(set(actual) - set(expected))
    slow, too_slow = [], []
    for name, took in sorted(seconds.items()):
        before = expected_seconds.get(name)
        if before is None or actual.get(name) != "pass" or took < SLOW_FLOOR:
            continue
        ratio = took / max(before, SLOW_FLOOR)
        if ratio > SLOW_FAIL:
            too_slow.append((name, before, took, ratio))
        elif ratio > SLOW_NOTE:
            slow.append((name, before, took, ratio))

    print(f"piglit gate: {len(actual)} tests run ({count(actual.values())})")
    for name, status in regressions:
        print(f"  REGRESSION {name}: pass -> {status}")
    for name in rerun:
        unpatched = "as unpatched Mesa did" if name in timed_out_alike else "unlike unpatched Mesa"
        took = f" in {alone_seconds[name]:.1f} s" if name in alone_seconds else ""
        print(f"  re-run     {name}: timeout at {args.timeout} s {unpatched}; "
              f"alone: {alone[name]}{took}")
    for name in missing:
        print(f"  MISSING    {name}: passed unpatched, not run")
    for name, status in fixed:
        print(f"  fixed      {name}: {status} -> pass")
    for name in new_tests:
        print(f"  new        {name}: {actual[name]} (not in the expectation)")
    for name, before, took, ratio in too_slow:
        print(f"  TOO SLOW   {name}: {took:.1f} s, {before:.1f} s unpatched ({ratio:.1f}x > {SLOW_FAIL:g}x)")
    for name, before, took, ratio in slow:
        print(f"  slow       {name}: {took:.1f} s, {before:.1f} s unpatched ({ratio:.1f}x)")
    if seconds and expected_seconds:
        common = [n for n in seconds if n in expected_seconds]
        print(f"piglit gate: {sum(seconds[n] for n in common):.0f} s of tests, "
              f"{sum(expected_seconds[n] for n in common):.0f} s unpatched")
    failed = len(regressions) + len(missing) + len(too_slow)
    kept = sum(1 for n, s in expected.items() if s == "pass" and actual.get(n) == "pass")
    print(f"piglit-gate: {kept} passed, {failed} failed")
    return 1 if failed else 0


def require_pass(args):
    """Every test of the run must pass (the extension's own profile: a skip
    means a test did not run where it must)."""
    tests = load_tests(args.results)
    failed = sorted((name, test["result"]) for name, test in tests.items()
                    if test["result"] != "pass")
    print(f"{args.label}: {len(tests)} tests run ({count(t['result'] for t in tests.values())})")
    for name, status in failed:
        print(f"  NOT PASSED {name}: {status}")
        # The output's end says why, where the results do not outlive the run (CI).
        output = "\n".join(tests[name].get(stream) or "" for stream in ("out", "err")).split("\n")
        for line in [line for line in output if line.strip()][-OUTPUT_LINES:]:
            print(f"    | {line}")
    print(f"{args.label}: {len(tests) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="write an expectation file from results")
    rec.add_argument("results")
    rec.add_argument("expectation")
    rec.add_argument("--header", default="")
    rec.add_argument("--timeout", type=int, required=True,
                     help="the run's limit in seconds per test")
    rec.add_argument("--rerun", action="append", default=[],
                     help="results of the tests that timed out, re-run alone: they are recorded")
    cmp_ = sub.add_parser("compare", help="compare results with an expectation file")
    cmp_.add_argument("expectation")
    cmp_.add_argument("results")
    cmp_.add_argument("--subset", action="store_true",
                      help="the run covered only some tests: do not flag the others as missing")
    cmp_.add_argument("--timeout", type=int, required=True,
                      help="the run's limit in seconds per test")
    cmp_.add_argument("--rerun", action="append", default=[],
                      help="results of the tests that timed out, re-run alone: they stand "
                           "for those that timed out at the same limit unpatched")
    tmo = sub.add_parser("timeouts", help="list the tests that timed out")
    tmo.add_argument("results")
    tmo.add_argument("--passed-in", metavar="EXPECTATION",
                     help="only those that pass in this expectation file")
    req = sub.add_parser("require-pass", help="fail unless every test passed")
    req.add_argument("results")
    req.add_argument("--label", default="piglit")
    args = parser.parse_args()
    return {"record": record, "compare": compare, "timeouts": timeouts,
            "require-pass": require_pass}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
