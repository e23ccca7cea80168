#!/usr/bin/env python3
"""Unit tests of the progress runner's parts that need no OpenCL device
(bench/progress_bench.py): the id mappings, the kernels' shape, the judging
of a launch and the model bookkeeping."""
import contextlib
import io
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))

import progress_bench as bench  # noqa: E402
import litmus  # noqa: E402
import oracle  # noqa: E402

MUTEX = litmus.parse("cas x 0 1; st x 0 | cas x 0 1; st x 0")
FAIR_ONLY = litmus.parse("ld x 1 | st x 1")


class Launches(unittest.TestCase):
    def test_sizes(self):
        # 2 threads on 4 units: plain N=2, then 2 instances (N=4) and 16 (N=32).
        self.assertEqual(bench.launches(2, 4, 4),
                         [("plain", 1, 2), ("round-robin", 2, 4), ("round-robin", 16, 32),
                          ("chunked", 2, 4), ("chunked", 16, 32)])
        self.assertEqual(bench.launches(3, 2, 4, ("chunked",)),
                         [("chunked", 1, 3), ("chunked", 8, 24)])
        self.assertEqual(bench.size_class(4, 4), "N<=units")
        self.assertEqual(bench.size_class(5, 4), "N>units")


class Kernels(unittest.TestCase):
    def test_ordinary(self):
        source = bench.kernel_source(MUTEX, "ordinary")
        # Each instruction spins like litmus.to_opencl, then records it passed.
        self.assertIn("while (atomic_cmpxchg(&m[0], 0, 1) != 0)\n            ;\n"
                      "        atomic_or(&status[g], 1);", source)
        self.assertIn("atomic_or(&status[g], 2);", source)
        self.assertNotIn("offer_kill", source)

    def test_cooperative(self):
        source = bench.kernel_source(MUTEX, "cooperative")
        for text in ("offer_kill();", "request_fork();", "atomic_xchg(&status[g], 256 | next);",
                     "case 18:", "if (atomic_cmpxchg(&m[0], 0, 1) != 0)\n                next = pc;"):
            self.assertIn(text, source)
        # The mapping reads the kernel's arguments, never get_num_groups (M).
        self.assertNotIn("get_num_groups", source)


class Judge(unittest.TestCase):
    def finals(self, test):
        return bench.final_memories(oracle.StateGraph(test), test)

    def test_ordinary(self):
        finals = self.finals(FAIR_ONLY)
        done = {"status": [1, 1], "mem": [1] + [0] * 15}
        self.assertEqual(bench.judge(FAIR_ONLY, finals, 1, 2, done, "ordinary", False), "ok")
        limited = {"status": [0, 1], "mem": [1] + [0] * 15}
        self.assertEqual(bench.judge(FAIR_ONLY, finals, 1, 2, limited, "ordinary", False),
                         "gave-up")
        wrong = {"status": [1, 1], "mem": [0] * 16}
        self.assertEqual(bench.judge(FAIR_ONLY, finals, 1, 2, wrong, "ordinary", False), "wrong")

    def test_cooperative(self):
        finals = self.finals(MUTEX)
        done = {"status": [258, 258], "mem": [0] * 16}
        self.assertEqual(bench.judge(MUTEX, finals, 1, 2, done, "cooperative", False), "ok")
        never_forked = {"status": [258, 0], "mem": [0] * 16}
        self.assertEqual(bench.judge(MUTEX, finals, 1, 2, never_forked, "cooperative", False),
                         "unstarted")

    def test_chunked_threads(self):
        # Chunked with 2 instances: work-groups 0, 1 run thread 0, 2, 3 thread 1.
        test = litmus.parse("st x 1; st x 0 | ld x 0")
        finals = self.finals(test)
        answer = {"status": [3, 3, 1, 1], "mem": [0] * 32}
        self.assertEqual(bench.judge(test, finals, 2, 4, answer, "ordinary", True), "ok")
        self.assertEqual(bench.judge(test, finals, 2, 4, answer, "ordinary", False), "gave-up")


class Models(unittest.TestCase):
    def test_refutation(self):
        verdicts = {litmus.format_test(t): oracle.StateGraph(t).verdicts()
                    for t in (MUTEX, FAIR_ONLY)}
        consistent = bench.consistent_models({"ld x 1 | st x 1": False,
                                              litmus.format_test(MUTEX): True}, verdicts)
        self.assertEqual(bench.strongest(consistent["weak"]), ["LOBE"])
        consistent = bench.consistent_models({"ld x 1 | st x 1": True,
                                              litmus.format_test(MUTEX): False}, verdicts)
        # The mutex ends under weak OBE but not weak HSA.
        self.assertEqual(bench.strongest(consistent["weak"]), ["HSA"])

    def promises(self, result, *expect):
        """check_promises on one launch of FAIR_ONLY with N > units."""
        record = {"test": litmus.format_test(FAIR_ONLY), "mapping": "chunked", "instances": 4,
                  "N": 8, "size": "N>units", "result": result}
        verdicts = {record["test"]: oracle.StateGraph(FAIR_ONLY).verdicts()}
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            rc = bench.check_promises({"config": "test", "records": [record]}, verdicts, expect)
        return rc, printed.getvalue()

    def test_a_hang_that_the_model_allows_keeps_its_promise(self):
        self.assertEqual(self.promises("hang", "N>units=LOBE")[0], 0)
        rc, printed = self.promises("hang", "N>units=fair")
        self.assertEqual(rc, 1, printed)

    def test_a_wrong_or_gave_up_launch_breaks_any_promise(self):
        for result in ("wrong", "gave-up", "error"):
            rc, printed = self.promises(result, "N>units=LOBE")
            self.assertEqual(rc, 1, printed)
            self.assertIn(f"progress: FAIL 1 launches {bench.FAULTS[result]}: "
                          "ld x 1 | st x 1 (chunked, N=8)", printed)

    def test_short_sample_is_generated(self):
        generated = {litmus.format_test(t) for b in ((2, 2), (2, 3), (2, 4), (3, 3), (3, 4))
                     for t in litmus.generate(*b)}
        for text in bench.SHORT_TESTS:
            self.assertIn(text, generated)


if __name__ == "__main__":
    unittest.main()
