"""Unit tests of the profile generator (cooperative_kernels.py): names, test
types, environment and limits carried over from meson's test list."""
import gzip
import json
import pathlib
import sys
import tempfile
import unittest
from xml.etree import ElementTree as et

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import cooperative_kernels  # noqa: E402

SUITE = ["cooperative-kernels:opencl"]


def meson_test(name, cmd, env=None, timeout=30, suite=SUITE):
    return {"name": name, "cmd": cmd, "env": env or {}, "timeout": timeout, "suite": suite}


class ProfileTest(unittest.TestCase):
    def write(self, tests):
        build = pathlib.Path(tempfile.mkdtemp())
        (build / "meson-info").mkdir()
        (build / "meson-info" / "intro-tests.json").write_text(json.dumps(tests))
        output = build / "profile.xml.gz"
        cooperative_kernels.write_profile(str(build), str(output))
        with gzip.open(output, "rt") as f:
            root = et.parse(f).getroot()
        return root, {t.get("name"): t for t in root.findall("Test")}

    @staticmethod
    def options(test):
        return {o.get("name"): o.get("value") for o in test.findall("option")}

    def test_names_follow_piglit_groups(self):
        name = cooperative_kernels.piglit_name
        self.assertEqual(name("cl/program/execute/x.cl cap_1"), "program@execute@x@cap_1")
        self.assertEqual(name("cl/program/build-fail/y.cl"), "program@build-fail@y")
        self.assertEqual(name("build_check cl/program/build/z.cl"), "build_check@program@build@z")
        self.assertEqual(name("transmit random_1"), "host@transmit@random_1")
        self.assertEqual(name("demo --single-thread"), "host@demo@single-thread")
        self.assertEqual(name("apps graph files"), "host@apps@graph-files")

    def test_only_the_opencl_suite_is_in_the_profile(self):
        root, tests = self.write([
            meson_test("lit", ["/usr/bin/python3"], suite=["cooperative-kernels:unit"]),
            meson_test("transmit default", ["/b/tests/transmit"]),
        ])
        self.assertEqual(list(tests), ["host@transmit@default"])
        self.assertEqual(root.get("count"), "1")

    def test_program_tests_run_in_cl_program_tester(self):
        _, tests = self.write([meson_test(
            "cl/program/execute/x.cl default",
            ["/s/tests/cl/run-program-test.sh", "/usr/bin/cl-program-tester",
             "/b/../s/tests/cl/program/execute/x.cl"], env={"CK_POLICY": "default"})])
        test = tests["program@execute@x@default"]
        self.assertEqual(test.get("type"), "cl_prog")
        self.assertEqual(self.options(test)["filename"], repr("/s/tests/cl/program/execute/x.cl"))
        env = {e.get("name"): e.get("value") for e in test.findall("environment/env")}
        self.assertEqual(env, {"CK_POLICY": "default"})

    def test_host_programs_and_checked_program_runs_are_wrapped_with_their_limit(self):
        _, tests = self.write([
            meson_test("apps default", ["/b/tests/apps", "/s/kernels"], timeout=600),
            meson_test("cl/program/execute/r.cl random_1",
                       ["/s/tests/cl/run-program-test.sh", "--require-resizing",
                        "/usr/bin/cl-program-tester", "/s/tests/cl/program/execute/r.cl"]),
        ])
        apps = tests["host@apps@default"]
        self.assertEqual(apps.get("type"), "cl")
        self.assertEqual(self.options(apps)["command"],
                         repr([cooperative_kernels.WRAPPER, "600", "/b/tests/apps", "/s/kernels"]))
        resizing = tests["program@execute@r@random_1"]
        self.assertEqual(resizing.get("type"), "cl")
        self.assertIn("--require-resizing", self.options(resizing)["command"])

    def test_two_tests_with_one_name_are_an_error(self):
        with self.assertRaises(SystemExit):
            self.write([meson_test("demo never", ["/b/a"]), meson_test("demo  never", ["/b/b"])])


if __name__ == "__main__":
    unittest.main()
