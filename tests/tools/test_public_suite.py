#!/usr/bin/env python3
"""bench/public_suite.py ('tools/ck bench public') without the Rodinia
checkout: its parsing, tables, medians and ratios, the result checks on
small fake outputs, one process of a fake program through run_one, and
bench/kernel_time_shim.c on a tiny OpenCL host (kernel_time_probe) on
PoCL.

usage: test_public_suite.py SHIM PROBE (meson passes both; OCL_ICD_VENDORS
names PoCL)
"""
import array
import contextlib
import io
import math
import os
import pathlib
import stat
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench"))
import public_suite as ps  # noqa: E402

SHIM = PROBE = None


class ParsingTest(unittest.TestCase):
    def test_platform(self):
        self.assertEqual(ps.parse_platform("pocl=/b/pocl-icd,POCL_CPU_MAX_CU_COUNT=2,X=a=b"),
                         ("pocl", "/b/pocl-icd", {"POCL_CPU_MAX_CU_COUNT": "2", "X": "a=b"}))
        self.assertEqual(ps.parse_platform("rusticl=/b/icd-rusticl"),
                         ("rusticl", "/b/icd-rusticl", {}))
        for bad in ("pocl", "=/icd", "pocl=", "pocl=/icd,NOVALUE"):
            with self.assertRaises(ValueError):
                ps.parse_platform(bad)

    def test_kernel_time(self):
        self.assertEqual(ps.parse_kernel_time("device llvmpipe (LLVM 14.0.6, 256 bits)\n"
                                              "launches 94\nkernel_ns 26988726\npending 0\n"
                                              "failed 0\n"),
                         {"device": "llvmpipe (LLVM 14.0.6, 256 bits)", "launches": 94,
                          "kernel_ns": 26988726, "pending": 0, "failed": 0})

    def test_every_program_has_its_parts(self):
        for name in ps.PROGRAMS:
            self.assertIn(name, ps.CHECKS)
            self.assertIn(name, ps.LINKS)
            self.assertEqual(set(ps.SIZES[name]), {"test", "bench"})
            for command in ps.BUILDS[name] + ps.REFERENCE_BUILDS.get(name, []):
                self.assertIn("-o", command)
                self.assertIn(command[0], ("gcc", "g++"))
            self.assertIn("-O2", ps.BUILDS[name][-1])
            self.assertIn("-lOpenCL", ps.BUILDS[name][-1])


class ReportTest(unittest.TestCase):
    samples = {"pocl": {"a": [(0.010, 0.5, 4), (0.020, 0.6, 4), (0.040, 0.7, 4)],
                        "b": [(0.100, 1.0, 2)]},
               "rusticl": {"a": [(0.020, 0.9, 4), (0.040, 1.0, 4), (0.080, 1.1, 4)]}}

    def test_describe_and_counts(self):
        self.assertEqual(ps.describe([0.002, 0.001, 0.004]), "2.0 (1.0-4.0)")
        self.assertEqual(ps.launch_counts(self.samples, ["pocl", "rusticl"], "a"), "4")
        self.assertEqual(ps.launch_counts({"p": {"a": [(1, 1, 3)]}, "q": {"a": [(1, 1, 5)]}},
                                          ["p", "q"], "a"), "p: 3, q: 5")
        self.assertEqual(ps.launch_counts(self.samples, ["pocl", "rusticl"], "c"), "-")

    def test_ratios(self):
        table = ps.ratios(self.samples, ["pocl", "rusticl"], ["a", "b"])
        self.assertEqual(table, {"rusticl": {"a": 2.0, "b": None}})
        wall = ps.ratios(self.samples, ["pocl", "rusticl"], ["a"], index=1)
        self.assertTrue(math.isclose(wall["rusticl"]["a"], 1.0 / 0.6))
        self.assertEqual(ps.geomean(table["rusticl"].values()), 2.0)
        self.assertEqual(ps.worst(table["rusticl"]), (2.0, "a"))

    def test_report(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = ps.print_report(self.samples, ["pocl", "rusticl"], ["a", "b"],
                                 {"pocl": "cpu", "rusticl": "llvmpipe"},
                                 {("b", "rusticl"): "3 of 8 pixels differ"}, {}, 3, "test",
                                 "commit abc")
        text = out.getvalue()
        self.assertEqual(rc, 1)
        self.assertIn("| a       | 4        | 20.0 (10.0-40.0)    | 40.0 (20.0-80.0) |", text)
        self.assertIn("| b       | 2        | 100.0 (100.0-100.0) | wrong            |", text)
        self.assertIn("| b       | 1000.0 (1000.0-1000.0) | wrong                 |", text)
        self.assertIn("| geometric mean | 2.00", text)
        self.assertIn("  rusticl: llvmpipe", text)
        self.assertIn("  b on rusticl: 3 of 8 pixels differ", text)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = ps.print_report({"pocl": {"a": self.samples["pocl"]["a"]}}, ["pocl"], ["a"],
                                 {}, {}, {}, 3, "test", "commit abc")
        self.assertEqual(rc, 0)
        self.assertIn("all 3 timed runs matched their references", out.getvalue())


class ChecksTest(unittest.TestCase):
    def test_lud(self):
        ok = "After LUD\n>>>Verify<<<<\n"
        self.assertIsNone(ps.check_lud(ok))
        # Rodinia prints every element off by more than 1e-4; within 1e-5
        # relative of a value near 10 it still counts as right.
        self.assertIsNone(ps.check_lud(ok + "dismatch at (3, 4): (o)10.000000 (n)10.000050\n"))
        self.assertIn("1 elements", ps.check_lud(ok + "dismatch at (3, 4): (o)10.000000 "
                                                      "(n)10.010000\n"))
        self.assertEqual(ps.check_lud("Exec: 1.0\n"), "no verification printed")

    def test_bfs(self):
        self.assertIsNone(ps.check_bfs("Exec: 0.5\n--cambine:passed:-)\n"))
        self.assertIn("other costs", ps.check_bfs("--cambine: failed:-(\n"))
        self.assertIn("no comparison", ps.check_bfs("ERROR: clBuildProgram\n"))

    def test_backprop(self):
        p = ps.Prepared(sums=array.array("f", [1.0, 2.5]), weights=array.array("f", [0.5, 0.25]),
                        changes=array.array("f", [0.0, 0.01]))
        good_sums = array.array("f", [2.0, 5.0])  # the OpenCL kernel's sums are doubled
        self.assertIsNone(ps.check_backprop(good_sums, array.array("f", [0.5, 0.25]), p))
        self.assertIsNone(ps.check_backprop(good_sums, array.array("f", [0.5, 0.250005]), p))
        self.assertIn("updated weights",
                      ps.check_backprop(good_sums, array.array("f", [0.5, 0.2501]), p))
        self.assertIn("forward pass",
                      ps.check_backprop(array.array("f", [1.0, 2.5]), p.weights, p))

    def test_compare(self):
        self.assertIsNone(ps.compare_exact(["1", "2"], ["1", "2"], "score"))
        self.assertIn("first [1]: got 3, expected 2", ps.compare_exact([1, 3], [1, 2], "score"))
        self.assertIn("1 scores, expected 2", ps.compare_exact([1], [1, 2], "score"))
        self.assertIsNone(ps.compare_close([100.0, 0.0], [100.0005, 0.0], rel=1e-5))
        self.assertIn("1 of 2 pixels", ps.compare_close([3, 5], [3, 7], rel=0, absolute=1,
                                                        what="pixel"))

    def test_centroids(self):
        text = ("\n================= Centroid Coordinates =================\n"
                "0: 1.25 2.50\n\n1: -3.00 4.00\n\nNumber of Iteration: 1\n")
        self.assertEqual(ps.parse_centroids(text.partition("Centroid Coordinates")[2]),
                         [[1.25, 2.5], [-3.0, 4.0]])

    def test_files(self):
        with tempfile.TemporaryDirectory() as d:
            pgm = os.path.join(d, "a.pgm")
            ps.write_image(pgm, rows=3, cols=4, seed=1)
            cols, rows, pixels = ps.read_pgm(pgm)
            self.assertEqual((cols, rows, len(pixels)), (4, 3, 12))
            self.assertTrue(all(1 <= v <= 255 for v in pixels))
            self.assertEqual(ps.last_line(pgm), " ".join(map(str, pixels[-4:])))
            graph = os.path.join(d, "g.txt")
            ps.write_graph(graph, 5, seed=3)
            with open(graph) as f:
                words = [int(w) for w in f.read().split()]
            self.assertEqual(words[0], 5)
            starts, counts = words[1:11:2], words[2:11:2]
            self.assertEqual(starts, [sum(counts[:i]) for i in range(5)])
            self.assertEqual(words[11], 0)  # the source
            self.assertEqual(words[12], sum(counts))
            self.assertEqual(len(words), 13 + 2 * sum(counts))
            self.assertTrue(all(0 <= n < 5 for n in words[13::2]))
            points = os.path.join(d, "p.bin")
            ps.write_points(points, 10, features=3, clusters=5, seed=2)
            data = array.array("i")
            with open(points, "rb") as f:
                data.frombytes(f.read(8))
            self.assertEqual(list(data), [10, 3])
            self.assertEqual(os.path.getsize(points), 8 + 10 * 3 * 4)


class RunOneTest(unittest.TestCase):
    """One process of 'bfs' through run_one, the program a shell script that
    prints what the host would and writes the shim's file itself."""

    def run_fake(self, body):
        with tempfile.TemporaryDirectory() as d:
            suite = ps.Suite(d, d, log=lambda text: None)
            os.makedirs(suite.opencl_dir("bfs"))
            binary = suite.binary("bfs")
            with open(binary, "w") as f:
                f.write("#!/bin/sh\n" + body)
            os.chmod(binary, os.stat(binary).st_mode | stat.S_IEXEC)
            platform = ("fake", d, {"FAKE_VAR": "1"})
            return ps.run_one(suite, "", platform, "bfs", ps.Prepared(graph="g.txt"), 60)

    TIMES = ('[ "$FAKE_VAR" = 1 ] && [ "$OCL_ICD_VENDORS" != "" ] && printf "device dev\\n'
             'launches 18\\nkernel_ns %s\\npending %s\\nfailed 0\\n" > "$CK_KERNEL_TIME_FILE"\n')

    def test_right(self):
        device, sample, what = self.run_fake(self.TIMES % (2500000, 0) +
                                             'echo "--cambine:passed:-)"\n')
        self.assertIsNone(what)
        self.assertEqual(device, "dev")
        self.assertEqual((sample[0], sample[2]), (0.0025, 18))
        self.assertGreater(sample[1], 0)

    def test_wrong(self):
        device, sample, what = self.run_fake(self.TIMES % (1, 0) +
                                             'echo "--cambine: failed:-("\n')
        self.assertEqual((device, sample, what), ("dev", None,
                                                  "the host's CPU BFS found other costs"))

    def test_exit_status(self):
        _, sample, what = self.run_fake('echo "ERROR: clBuildProgram() => -11"\nexit 3\n')
        self.assertIsNone(sample)
        self.assertEqual(what, "exited with 3: ERROR: clBuildProgram() => -11")

    def test_incomplete_time(self):
        _, sample, what = self.run_fake(self.TIMES % (1, 2) + 'echo "--cambine:passed:-)"\n')
        self.assertIsNone(sample)
        self.assertIn("2 pending", what)


class ShimTest(unittest.TestCase):
    """kernel_time_shim.so on kernel_time_probe, on the OpenCL of
    OCL_ICD_VENDORS (PoCL)."""

    def test_probe(self):
        with tempfile.TemporaryDirectory() as d:
            times = os.path.join(d, "kernel-time.txt")
            env = dict(os.environ, LD_PRELOAD=SHIM, CK_KERNEL_TIME_FILE=times,
                       CK_READ_DUMP=os.path.join(d, "read-"))
            out = subprocess.run([PROBE], env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True, timeout=120)
            self.assertEqual(out.returncode, 0, out.stdout)
            self.assertIn("probe ok", out.stdout)
            self.assertIn("profiling 1", out.stdout)  # added to a queue that asked for none
            device = out.stdout.splitlines()[0].partition(" ")[2]
            with open(times) as f:
                fields = ps.parse_kernel_time(f.read())
            self.assertEqual(fields["device"], device)
            self.assertEqual((fields["launches"], fields["pending"], fields["failed"]), (5, 0, 0))
            self.assertGreater(fields["kernel_ns"], 0)
            reads = sorted(os.listdir(d))
            self.assertEqual(reads, ["kernel-time.txt", "read-0001.bin"])
            data = array.array("i")
            with open(os.path.join(d, "read-0001.bin"), "rb") as f:
                data.frombytes(f.read())
            self.assertEqual(list(data), [4 + i for i in range(4096)])
            # Without the shim nothing is written and the queue stays as asked.
            plain = subprocess.run([PROBE], env=dict(os.environ, CK_KERNEL_TIME_FILE=times + "2"),
                                   stdout=subprocess.PIPE, text=True, timeout=120)
            self.assertIn("profiling 0", plain.stdout)
            self.assertFalse(os.path.exists(times + "2"))


if __name__ == "__main__":
    SHIM, PROBE = sys.argv[1:3]
    del sys.argv[1:3]
    unittest.main()
