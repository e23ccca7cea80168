#!/usr/bin/env python3
# covers: 8-token-values
"""The host header's tokens against the specification's tables.

docs/cl_ext_cooperative_kernels.md gives every new token's value in a
table (`| `CL_..._EXT` | `0x4F00` | ...`, sections "New API Enums" and
"Errors"); include/CL/cl_ext_cooperative_kernels.h defines them for
programs and both frontends. Every token of the tables must be defined in
the header with the same value, every numeric CL_*_EXT of the header must
be in the tables, and the extension's name and version must agree
(docs/spec-coverage.md, `8-token-values`).
"""
import pathlib
import re
import sys
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPEC = ROOT / "docs" / "cl_ext_cooperative_kernels.md"
HEADER = ROOT / "include" / "CL" / "cl_ext_cooperative_kernels.h"

# | `CL_TOKEN_EXT` | `0x4F00` | ... and | `CL_TOKEN_EXT` | `-1150` | ...
TABLE_ROW = re.compile(r"^\|\s*`(CL_\w+)`\s*\|\s*`(0x[0-9A-Fa-f]+|-?[0-9]+)`\s*\|", re.M)
# #define CL_TOKEN_EXT 0x4F00, #define CL_TOKEN_EXT (-1150)
DEFINE = re.compile(r"^#define\s+(CL_\w+_EXT)\s+\(?\s*(0x[0-9A-Fa-f]+|-?[0-9]+)\s*\)?\s*$", re.M)
SPEC_VERSION = re.compile(r"Extension version ([0-9]+)\.([0-9]+)\.([0-9]+)")
HEADER_VERSION = re.compile(
    r"#define\s+CL_EXT_COOPERATIVE_KERNELS_EXTENSION_VERSION\s+"
    r"CL_MAKE_VERSION\(\s*([0-9]+)\s*,\s*([0-9]+)\s*,\s*([0-9]+)\s*\)")
HEADER_NAME = re.compile(r'#define\s+CL_EXT_COOPERATIVE_KERNELS_EXTENSION_NAME\s+"([^"]+)"')


def spec_tokens(text):
    return {name: int(value, 0) for name, value in TABLE_ROW.findall(text)}


def header_tokens(text):
    return {name: int(value, 0) for name, value in DEFINE.findall(text)}


def mismatches(spec_text, header_text):
    """Every disagreement between the two, as lines; empty if none."""
    spec, header = spec_tokens(spec_text), header_tokens(header_text)
    problems = []
    for name, value in sorted(spec.items()):
        if name not in header:
            problems.append(f"{name}: in the spec ({value:#x}), not defined in the header")
        elif header[name] != value:
            problems.append(f"{name}: spec {value:#x}, header {header[name]:#x}")
    for name in sorted(set(header) - set(spec)):
        problems.append(f"{name}: defined in the header ({header[name]:#x}), in no spec table")
    values = {}
    for name, value in spec.items():
        if value in values:
            problems.append(f"{name} and {values[value]} share the value {value:#x}")
        values[value] = name
    return problems


class TokenValues(unittest.TestCase):
    def setUp(self):
        self.spec = SPEC.read_text()
        self.header = HEADER.read_text()

    def test_tables_parsed(self):
        # The 2 kernel queries, 6 profiling tokens and 1 status of revision 10;
        # a table the pattern no longer reads would make the comparison vacuous.
        self.assertGreaterEqual(len(spec_tokens(self.spec)), 9, spec_tokens(self.spec))
        self.assertGreaterEqual(len(header_tokens(self.header)), 9, header_tokens(self.header))

    def test_header_matches_spec(self):
        self.assertEqual(mismatches(self.spec, self.header), [])

    def test_name_and_version(self):
        version = SPEC_VERSION.search(self.spec)
        self.assertIsNotNone(version, "the spec states no 'Extension version X.Y.Z'")
        header_version = HEADER_VERSION.search(self.header)
        self.assertIsNotNone(header_version, "the header defines no extension version")
        self.assertEqual(version.groups(), header_version.groups())
        name = HEADER_NAME.search(self.header)
        self.assertIsNotNone(name)
        self.assertIn(f"`{name.group(1)}`", self.spec.split("## Contact")[0])

    def test_a_wrong_value_is_caught(self):
        # The comparison itself can fail: one value off, one token missing.
        name, value = sorted(header_tokens(self.header).items())[0]
        wrong = value + 0x1000
        off = re.sub(rf"^(#define\s+{name}\s+).*$", rf"\g<1>{wrong:#x}", self.header, flags=re.M)
        self.assertTrue(any(f"header {wrong:#x}" in p for p in mismatches(self.spec, off)))
        missing = re.sub(rf"^#define\s+{name}\s.*$", "", self.header, flags=re.M)
        self.assertTrue(any("not defined" in p for p in mismatches(self.spec, missing)))


if __name__ == "__main__":
    sys.exit(unittest.main())
