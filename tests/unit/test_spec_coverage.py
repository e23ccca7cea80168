#!/usr/bin/env python3
"""tools/spec_coverage.py on a fake repository: a clean one passes --check,
and each way the map can be wrong makes --check fail and name the culprit.
Run directly with python3; no build needed."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, '..', '..', 'tools', 'spec_coverage.py')
sys.path.insert(0, os.path.dirname(SCRIPT))
import spec_coverage  # noqa: E402

STATEMENTS = '\n'.join([
    '## 10.3 offer_kill',
    '10.3-kill-top-only only the last active work-group may be ended (10.3)',
    '10.3-no-effect otherwise the call returns with no effect (10.3)',
    '  partly: the order is not checked',
    '## 15 Implementation notes',
    '> Not part of the contract.',
    '15-binary-records binaries record which kernels are cooperative (15)',
    '  gap: no round trip test',
    '15-alias counted elsewhere (15)',
    '  see: 10.3-kill-top-only',
    ''])
HOST = '\n'.join(['// a host test', '#include <x>', 'int main() {}', ''])
ANNOTATION_HOST = '// cov' + 'ers: 10.3-kill-top-only'
ANNOTATION_UNIT = '// cov' + 'ers: 10.3-no-effect'
UNIT = '\n'.join([ANNOTATION_UNIT, 'TEST(Kills, FromTheTop) {}', ''])
DOC = '\n'.join(['# Coverage', 'hand-written prose', spec_coverage.BEGIN['tables'],
                 spec_coverage.END['tables'], 'more prose', spec_coverage.BEGIN['counts'],
                 spec_coverage.END['counts'], 'end', ''])


class SpecCoverage(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        self.write('docs/spec-statements.txt', STATEMENTS)
        self.write('tests/host/kills.cpp', ANNOTATION_HOST + '\n' + HOST)
        self.write('tests/unit/test_kills.cpp', UNIT)
        self.write('docs/spec-coverage.md', DOC)
        rc, out = self.run_script()
        self.assertEqual(rc, 0, out)

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write(text)

    def read(self, rel):
        with open(os.path.join(self.root, rel)) as f:
            return f.read()

    def run_script(self, *args):
        p = subprocess.run([sys.executable, SCRIPT, '--root', self.root, *args],
                           capture_output=True, text=True)
        return p.returncode, p.stdout + p.stderr

    def check_fails_naming(self, *words):
        rc, out = self.run_script('--check')
        self.assertEqual(rc, 1, out)
        for w in words:
            self.assertIn(w, out)

    def test_clean_tree_passes_and_keeps_prose(self):
        rc, out = self.run_script('--check')
        self.assertEqual(rc, 0, out)
        doc = self.read('docs/spec-coverage.md')
        self.assertIn('hand-written prose', doc)
        self.assertIn('more prose', doc)
        self.assertIn('| `10.3-kill-top-only` | only the last active work-group may be ended (10.3) '
                      '| `host/kills.cpp` | C |', doc)
        self.assertIn('`unit/test_kills.cpp Kills.FromTheTop` | P: the order is not checked |', doc)
        self.assertIn('| none | N: no round trip test |', doc)
        self.assertIn('see `10.3-kill-top-only` | (counted there) |', doc)
        self.assertIn('> Not part of the contract.'[2:], doc)
        self.assertIn('covered 0, partly 0, not covered 1', doc)
        self.assertIn('**covered 1, partly 1, not covered 0**', doc)

    def test_statement_without_test_fails(self):
        self.write('docs/spec-statements.txt',
                   STATEMENTS + '10.3-never-wg0 work-group 0 is never killed (10.3)\n')
        self.run_script()  # the doc is up to date: only the missing test is wrong
        self.check_fails_naming('10.3-never-wg0', 'no test covers it')

    def test_partly_without_test_fails(self):
        self.write('tests/unit/test_kills.cpp', 'TEST(Kills, FromTheTop) {}\n')
        self.run_script()
        self.check_fails_naming('10.3-no-effect', 'no test covers it')

    def test_unknown_id_fails(self):
        self.write('tests/cl/program/execute/k.cl',
                   '/*!\n[config]\n!*/\n' + '// cov' + 'ers: 10.3-kill-top-only 10.9-no-such\n')
        self.run_script()
        self.check_fails_naming('tests/cl/program/execute/k.cl:4', 'unknown statement id 10.9-no-such')

    def test_claimed_gap_fails(self):
        self.write('tests/lit/x.ll', '; cov' + 'ers: 15-binary-records\n')
        self.run_script()
        self.check_fails_naming('15-binary-records is listed as gap', 'lit/x.ll')

    def test_claimed_alias_fails(self):
        self.write('tests/tools/t.sh', '#!/bin/sh\n# cov' + 'ers: 15-alias\n')
        self.run_script()
        self.check_fails_naming('15-alias is counted under 10.3-kill-top-only')

    def test_stale_doc_fails_and_a_run_fixes_it(self):
        self.write('tests/host/kills.cpp', HOST)
        self.write('tests/host/other.cpp', ANNOTATION_HOST + '\n' + HOST)
        self.check_fails_naming('differ')
        rc, out = self.run_script()
        self.assertEqual(rc, 0, out)
        self.assertIn('`host/other.cpp`', self.read('docs/spec-coverage.md'))
        rc, out = self.run_script('--check')
        self.assertEqual(rc, 0, out)

    def test_hand_edit_of_the_table_fails(self):
        doc = self.read('docs/spec-coverage.md')
        self.write('docs/spec-coverage.md', doc.replace('| `host/kills.cpp` | C |',
                                                        '| `host/kills.cpp`, `host/all.cpp` | C |'))
        self.check_fails_naming('differ')

    def test_missing_markers_fail(self):
        self.write('docs/spec-coverage.md', '# Coverage\nno markers\n')
        self.check_fails_naming('markers are missing')

    def test_malformed_statement_file_fails(self):
        self.write('docs/spec-statements.txt',
                   STATEMENTS + '10.3-no-effect duplicate\n  bogus: x\n')
        self.check_fails_naming('listed twice', 'expected "  partly|gap|n/a|see|note: TEXT"')


if __name__ == '__main__':
    unittest.main()
