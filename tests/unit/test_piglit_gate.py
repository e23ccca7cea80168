"""Unit tests of tools/piglit_gate.py: the gate must catch every regression."""
import bz2
import json
import pathlib
import subprocess
import sys
import tempfile
import unittest

GATE = pathlib.Path(__file__).resolve().parents[2] / "tools" / "piglit_gate.py"


def write_results(directory, statuses, compress=True, seconds=None):
    directory.mkdir(parents=True, exist_ok=True)
    data = {"tests": {name: {"result": status} for name, status in statuses.items()}}
    for name, took in (seconds or {}).items():
        data["tests"][name]["time"] = {"start": 100.0, "end": 100.0 + took}
    if compress:
        with bz2.open(directory / "results.json.bz2", "wt") as f:
            json.dump(data, f)
    else:
        (directory / "results.json").write_text(json.dumps(data))


def gate(*args):
    return subprocess.run([sys.executable, str(GATE), *map(str, args)],
                          capture_output=True, text=True)


def record(results, expectation, *extra):
    return gate("record", results, expectation, "--timeout", 450, *extra)


class PiglitGateTest(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp())
        write_results(self.tmp / "base", {"a": "pass", "b": "pass", "c": "fail", "d": "skip"})
        self.expectation = self.tmp / "expected"
        recorded = record(self.tmp / "base", self.expectation, "--header", "test")
        self.assertEqual(recorded.returncode, 0, recorded.stderr)

    def compare(self, statuses, *extra):
        write_results(self.tmp / "run", statuses, compress=False)
        return self.gate_run(*extra)

    def gate_run(self, *extra, timeout=450):
        return gate("compare", self.expectation, self.tmp / "run", "--timeout", timeout, *extra)

    def test_record_writes_sorted_status_lines(self):
        lines = [l for l in self.expectation.read_text().splitlines() if not l.startswith("#")]
        self.assertEqual(lines, ["pass a", "pass b", "fail c", "skip d"])

    def test_identical_run_passes(self):
        result = self.compare({"a": "pass", "b": "pass", "c": "fail", "d": "skip"})
        self.assertEqual(result.returncode, 0, result.stdout)
        self.assertIn("piglit-gate: 2 passed, 0 failed", result.stdout)

    def test_pass_turned_crash_fails_and_is_named(self):
        result = self.compare({"a": "pass", "b": "crash", "c": "fail", "d": "skip"})
        self.assertEqual(result.returncode, 1)
        self.assertIn("REGRESSION b: pass -> crash", result.stdout)

    def test_pass_turned_skip_fails(self):
        result = self.compare({"a": "skip", "b": "pass", "c": "fail", "d": "skip"})
        self.assertEqual(result.returncode, 1)
        self.assertIn("REGRESSION a: pass -> skip", result.stdout)

    def test_missing_passing_test_fails(self):
        result = self.compare({"a": "pass", "c": "fail"})
        self.assertEqual(result.returncode, 1)
        self.assertIn("MISSING    b", result.stdout)

    def test_subset_run_ignores_tests_not_run(self):
        result = self.compare({"a": "pass"}, "--subset")
        self.assertEqual(result.returncode, 0, result.stdout)

    def test_newly_passing_test_is_reported_not_failed(self):
        result = self.compare({"a": "pass", "b": "pass", "c": "pass", "d": "skip"})
        self.assertEqual(result.returncode, 0)
        self.assertIn("fixed      c: fail -> pass", result.stdout)

    def test_failing_subtest_of_a_passing_test_is_a_regression(self):
        write_results(self.tmp / "base2", {"a": "pass"})
        data = {"tests": {"a": {"result": "pass", "subtests": {"__type__": "Subtests", "x": "pass"}}}}
        (self.tmp / "base2" / "results.json.bz2").unlink()
        (self.tmp / "base2" / "results.json").write_text(json.dumps(data))
        self.assertEqual(record(self.tmp / "base2", self.expectation).returncode, 0)
        data["tests"]["a"]["subtests"]["x"] = "fail"
        (self.tmp / "run").mkdir()
        (self.tmp / "run" / "results.json").write_text(json.dumps(data))
        result = self.gate_run()
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn("REGRESSION a@x: pass -> fail", result.stdout)

    def timed_expectation(self):
        write_results(self.tmp / "timed", {"a": "pass", "b": "pass", "c": "timeout"},
                      seconds={"a": 10.0, "b": 1.0, "c": 180.0})
        self.assertEqual(record(self.tmp / "timed", self.expectation).returncode, 0)

    def test_record_writes_each_tests_time(self):
        self.timed_expectation()
        lines = [l for l in self.expectation.read_text().splitlines() if not l.startswith("#")]
        self.assertEqual(lines, ["pass a\t10.00", "pass b\t1.00", "timeout c\t180.00"])

    def test_more_than_4x_slower_fails_and_2x_is_named(self):
        self.timed_expectation()
        write_results(self.tmp / "run", {"a": "pass", "b": "pass", "c": "timeout"},
                      seconds={"a": 45.0, "b": 1.5})
        result = self.gate_run()
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn("TOO SLOW   a: 45.0 s, 10.0 s unpatched", result.stdout)
        write_results(self.tmp / "run", {"a": "pass", "b": "pass", "c": "timeout"},
                      seconds={"a": 25.0, "b": 3.5})
        result = self.gate_run()
        self.assertEqual(result.returncode, 0, result.stdout)
        self.assertIn("slow       a: 25.0 s, 10.0 s unpatched (2.5x)", result.stdout)
        # b: 3.5 s against 1 s is start-up noise, not a slowdown.
        self.assertNotIn(" b:", result.stdout)

    def test_a_timeout_unpatched_mesa_did_not_have_fails_whatever_its_rerun(self):
        self.timed_expectation()
        write_results(self.tmp / "run", {"a": "timeout", "b": "pass"}, seconds={"a": 450.0})
        listed = gate("timeouts", self.tmp / "run", "--passed-in", self.expectation)
        self.assertEqual(listed.stdout.split(), ["a"])
        write_results(self.tmp / "alone", {"a": "pass"}, seconds={"a": 12.0})
        result = self.gate_run("--rerun", self.tmp / "alone")
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn("REGRESSION a: pass -> timeout", result.stdout)
        self.assertIn("re-run     a: timeout at 450 s unlike unpatched Mesa; alone: pass in 12.0 s",
                      result.stdout)

    def test_a_rerun_never_turns_another_failure_into_a_pass(self):
        self.timed_expectation()
        write_results(self.tmp / "run", {"a": "crash", "b": "pass"}, seconds={"a": 3.0})
        write_results(self.tmp / "alone", {"a": "pass"}, seconds={"a": 12.0})
        result = self.gate_run("--rerun", self.tmp / "alone")
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn("REGRESSION a: pass -> crash", result.stdout)

    def rerun_expectation(self):
        """a timed out unpatched at 450 s with the others and passed alone."""
        write_results(self.tmp / "first", {"a": "timeout", "b": "pass"},
                      seconds={"a": 450.0, "b": 1.0})
        write_results(self.tmp / "first-alone", {"a": "pass", "a@x": "pass"}, seconds={"a": 300.0})
        recorded = record(self.tmp / "first", self.expectation, "--rerun", self.tmp / "first-alone")
        self.assertEqual(recorded.returncode, 0, recorded.stderr)
        lines = [l for l in self.expectation.read_text().splitlines() if not l.startswith("#")]
        self.assertEqual(lines, ["pass a\t300.00\ttimeout 450", "pass a@x", "pass b\t1.00"])

    def test_a_rerun_stands_for_a_timeout_unpatched_mesa_had_at_the_same_limit(self):
        self.rerun_expectation()
        write_results(self.tmp / "run", {"a": "timeout", "b": "pass"}, seconds={"a": 450.0})
        write_results(self.tmp / "alone", {"a": "pass", "a@x": "pass"}, seconds={"a": 320.0})
        result = self.gate_run("--rerun", self.tmp / "alone")
        self.assertEqual(result.returncode, 0, result.stdout)
        self.assertIn("re-run     a: timeout at 450 s as unpatched Mesa did; alone: pass in 320.0 s",
                      result.stdout)
        # The re-run alone is judged like any result, subtests included.
        write_results(self.tmp / "alone", {"a": "pass", "a@x": "fail"}, seconds={"a": 320.0})
        result = self.gate_run("--rerun", self.tmp / "alone")
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn("REGRESSION a@x: pass -> fail", result.stdout)

    def test_a_timeout_at_another_limit_than_unpatched_mesa_had_fails(self):
        self.rerun_expectation()
        write_results(self.tmp / "run", {"a": "timeout", "b": "pass"}, seconds={"a": 600.0})
        write_results(self.tmp / "alone", {"a": "pass", "a@x": "pass"}, seconds={"a": 320.0})
        result = self.gate_run("--rerun", self.tmp / "alone", timeout=600)
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn("REGRESSION a: pass -> timeout", result.stdout)

    def test_a_malformed_first_result_is_an_error(self):
        self.expectation.write_text("pass a\t3.00\tfail 450\n")
        write_results(self.tmp / "run", {"a": "pass"})
        result = self.gate_run()
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("expected 'status name[<tab>seconds[<tab>timeout limit]]'", result.stderr)

    def test_require_pass_fails_on_any_test_that_did_not_pass(self):
        write_results(self.tmp / "all", {"a": "pass", "b": "pass"})
        self.assertEqual(gate("require-pass", self.tmp / "all").returncode, 0)
        for status in ("skip", "fail", "timeout", "crash"):
            write_results(self.tmp / status, {"a": "pass", "b": status})
            result = gate("require-pass", self.tmp / status, "--label", "profile")
            self.assertEqual(result.returncode, 1, status)
            self.assertIn(f"NOT PASSED b: {status}", result.stdout)
            self.assertIn("profile: 1 passed, 1 failed", result.stdout)

    def test_require_pass_prints_the_end_of_a_failed_tests_output(self):
        write_results(self.tmp / "failed", {"a": "pass", "b": "fail"})
        path = self.tmp / "failed" / "results.json.bz2"
        with bz2.open(path, "rt") as f:
            data = json.load(f)
        data["tests"]["a"]["out"] = "a passed quietly"
        data["tests"]["b"]["out"] = "\n".join(f"line {i}" for i in range(100))
        data["tests"]["b"]["err"] = "Expected equality of these values"
        with bz2.open(path, "wt") as f:
            json.dump(data, f)
        result = gate("require-pass", self.tmp / "failed", "--label", "profile")
        self.assertEqual(result.returncode, 1)
        lines = result.stdout.splitlines()
        self.assertIn("    | Expected equality of these values", lines)
        self.assertIn("    | line 99", lines)
        self.assertNotIn("    | line 50", lines)
        self.assertNotIn("a passed quietly", result.stdout)
        self.assertEqual(lines[-1], "profile: 1 passed, 1 failed")

    def test_missing_results_file_is_a_clear_error(self):
        (self.tmp / "empty").mkdir()
        result = gate("compare", self.expectation, self.tmp / "empty", "--timeout", 450)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("no results.json", result.stderr)


if __name__ == "__main__":
    unittest.main()
