#!/usr/bin/env python3
"""Writes the cl_ext_cooperative_kernels conformance profile for piglit.

    tests/piglit/cooperative_kernels.py BUILD_DIR OUTPUT.xml.gz

Piglit imports Python profiles only from its own tests/ package, but it
runs any XML profile given by absolute path, as Mesa's CI runs the
profiles piglit's build serialises. This program writes one from the test
list of the project's meson build (BUILD_DIR/meson-info/intro-tests.json,
suite 'opencl'), so that meson.build stays the only list of tests:

  - piglit-format .cl program tests become cl-program-tester tests (type
    'cl_prog'), named as in piglit's cl profile: program@execute@NAME@POLICY
    (those that must also resize stay wrapped, as below);
  - host programs become wrapped commands (type 'cl'): piglit-wrap.sh runs
    each with meson's time limit and turns its exit status into a piglit
    result.

Each test keeps meson's environment (CK_POLICY, CK_CHECK, LP_NUM_THREADS).
Run it like any profile, with a default time limit above the longest
per-test limit (the wrapper enforces each test's own):

    piglit run --timeout 900 /abs/path/cooperative_kernels.xml.gz results/
    piglit summary console results/
"""
import gzip
import json
import os
import sys
from xml.etree import ElementTree as et

PROFILE_NAME = "cooperative_kernels"
WRAPPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "piglit-wrap.sh")
SUITE = "cooperative-kernels:opencl"
# meson's limit for a test that names none (intro-tests.json gives one anyway).
DEFAULT_TIMEOUT = 30


def piglit_name(meson_name):
    """piglit's group@test form of a meson test name:
      cl/program/execute/x.cl cap_1      -> program@execute@x@cap_1
      build_check cl/program/build/x.cl  -> build_check@program@build@x
      transmit random_1                  -> host@transmit@random_1
      demo --single-thread               -> host@demo@single-thread"""
    words = meson_name.split()
    program = [i for i, w in enumerate(words) if w.startswith("cl/") and w.endswith(".cl")]
    if program:
        at = program[0]
        path = words[at][len("cl/"):-len(".cl")].split("/")
        return "@".join(words[:at] + path + words[at + 1:])
    variant = "-".join(w.lstrip("-") for w in words[1:])
    return "@".join(["host", words[0]] + ([variant] if variant else []))


def option(test, name, value):
    et.SubElement(test, "option", name=name, value=repr(value))


def test_element(meson_test):
    name = piglit_name(meson_test["name"])
    cmd = [os.path.normpath(c) if os.path.isabs(c) else c for c in meson_test["cmd"]]
    env = dict(meson_test.get("env") or {})
    test = et.Element("Test", name=name)
    if os.path.basename(cmd[0]) == "run-program-test.sh" and len(cmd) == 3:
        # [run-program-test.sh, cl-program-tester, FILE.cl]; with an option
        # (--require-resizing) it stays a wrapped command.
        test.set("type", "cl_prog")
        option(test, "filename", cmd[2])
    else:
        test.set("type", "cl")
        timeout = meson_test.get("timeout") or DEFAULT_TIMEOUT
        option(test, "command", [WRAPPER, str(timeout)] + cmd)
    option(test, "run_concurrent", False)
    environment = et.SubElement(test, "environment")
    for key, value in sorted(env.items()):
        et.SubElement(environment, "env", name=key, value=value)
    return name, test


def profile_tests(build_dir):
    with open(os.path.join(build_dir, "meson-info", "intro-tests.json")) as f:
        tests = json.load(f)
    return [t for t in tests if SUITE in t["suite"]]


def write_profile(build_dir, output):
    elements = [test_element(t) for t in profile_tests(build_dir)]
    names = [name for name, _ in elements]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise SystemExit(f"{sys.argv[0]}: two tests named {', '.join(duplicates)}")
    root = et.Element("PiglitTestList", name=PROFILE_NAME, count=str(len(elements)))
    for _, element in elements:
        root.append(element)
    tmp = output + ".tmp"
    with gzip.open(tmp, "wb") as f:
        et.ElementTree(root).write(f, encoding="utf-8", xml_declaration=True)
    os.replace(tmp, output)
    return len(elements)


def main(argv):
    if len(argv) != 3 or not argv[2].endswith(".xml.gz"):
        print(__doc__, file=sys.stderr)
        return 2
    count = write_profile(argv[1], os.path.abspath(argv[2]))
    print(f"{argv[2]}: {count} tests")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
