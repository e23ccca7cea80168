#!/usr/bin/env python3
"""bench/bench_pocl.py's parts that need no device: reading ck-kernels'
output, the round-robin order, the environments, and the ratios with their
geometric mean and worst case."""
import math
import pathlib
import sys
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench"))
import bench_pocl  # noqa: E402


class Args:
    threads = 2
    pocl_icd, pocl_cache = "/pocl-icd", "/pocl-cache"
    patched_icd, unpatched_icd = "/p/icd-rusticl", "/u/icd-rusticl"


class BenchPoclTest(unittest.TestCase):
    def test_parse_output(self):
        device, times, wrong = bench_pocl.parse_output(
            "device,rusticl,llvmpipe (LLVM 15.0.6, 256 bits)\n"
            "time,scan,0.5,0.9\ntime,scan,0.25,0.5\n"
            "wrong,bfs,3 of 8 elements wrong, first [2]: got 1, expected 2 (run 1)\n")
        self.assertEqual(device, "rusticl: llvmpipe (LLVM 15.0.6, 256 bits)")
        self.assertEqual(times, {"scan": [(0.5, 0.9), (0.25, 0.5)]})
        self.assertEqual(wrong, {"bfs": "3 of 8 elements wrong, first [2]: got 1, expected 2 (run 1)"})

    def test_round_robin(self):
        order = [bench_pocl.round_robin(["a", "b", "c"], r) for r in range(4)]
        self.assertEqual(order, [["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"],
                                 ["a", "b", "c"]])

    def test_environment(self):
        pocl = bench_pocl.environment("pocl", Args)
        self.assertEqual((pocl["OCL_ICD_VENDORS"], pocl["POCL_MAX_PTHREAD_COUNT"]),
                         ("/pocl-icd", "2"))
        # the ICD directories as given, each naming one Mesa's rusticl
        unpatched = bench_pocl.environment("rusticl-unpatched", Args)
        self.assertEqual((unpatched["OCL_ICD_VENDORS"], unpatched["RUSTICL_ENABLE"],
                          unpatched["LP_NUM_THREADS"]),
                         ("/u/icd-rusticl", "llvmpipe", "2"))
        patched = bench_pocl.environment("rusticl-patched", Args)
        self.assertEqual((patched["OCL_ICD_VENDORS"], patched["RUSTICL_ENABLE"]),
                         ("/p/icd-rusticl", "llvmpipe"))

    def test_medians(self):
        samples = {"pocl": {"a": [(1.0, 3.0), (2.0, 1.0), (9.0, 2.0)]}}
        self.assertEqual(bench_pocl.medians(samples, 0), {"pocl": {"a": 2.0}})
        self.assertEqual(bench_pocl.medians(samples, 1), {"pocl": {"a": 2.0}})

    def test_ratios(self):
        medians = {"pocl": {"a": 1.0, "b": 2.0, "c": 4.0},
                   "rusticl-patched": {"a": 2.0, "b": 8.0},
                   "rusticl-unpatched": {"a": 4.0, "b": 4.0, "c": 4.0}}
        pairs = bench_pocl.RATIOS
        ratios = bench_pocl.ratio_table(medians, ["a", "b", "c"])
        self.assertEqual(ratios[pairs[0]], {"a": 2.0, "b": 4.0, "c": None})
        self.assertEqual(ratios[pairs[2]], {"a": 0.5, "b": 2.0, "c": None})
        self.assertTrue(math.isclose(bench_pocl.geomean(ratios[pairs[0]].values()),
                                     math.sqrt(8)))
        self.assertTrue(math.isclose(bench_pocl.geomean(ratios[pairs[1]].values()), 2.0))
        self.assertEqual(bench_pocl.worst(ratios[pairs[0]]), (4.0, "b"))
        self.assertEqual(bench_pocl.worst({"a": None}), None)
        self.assertEqual(bench_pocl.geomean([None]), None)

    def test_titles(self):
        self.assertEqual([bench_pocl.ratio_title(a, b) for a, b in bench_pocl.RATIOS],
                         ["rusticl p/PoCL", "rusticl u/PoCL", "rusticl p/u"])

    def test_describe(self):
        self.assertEqual(bench_pocl.describe([(0.002, 1), (0.001, 1), (0.004, 1)]),
                         "2.0 (1.0-4.0)")


if __name__ == "__main__":
    unittest.main()
