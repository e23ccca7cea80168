#!/usr/bin/env python3
"""Build docs/spec-coverage.md's coverage tables from the tests themselves.

The statements (id, one-line text, and what is known to be missing) are in
docs/spec-statements.txt. Each test names the statements it covers where it
is defined, in a comment line that starts with 'covers:'

    // covers: 10.3-kill-top-only 12-stuck-status        (C++, OpenCL C)
    ; covers: 10.8-dep-merge                             (lit)
    # covers: 15-branch-skip                             (Python, shell, meson)
    # covers(replay, every CK_CHECK=1 run): 10.4-k-range (a named test)

A .cl test puts it after its /*! ... !*/ block. The test is the file, or
the gtest TEST that follows the line, or the name in parentheses.

Without options the tables and counts between the marker comments of
docs/spec-coverage.md are rewritten. With --check nothing is written; the
exit status is 1, with one line per problem, if a statement has no covering
test and is not a listed gap (gap:, n/a:, see:), if a listed gap or n/a is
claimed by a test, if a partly covered one has no test, if an annotation
names an unknown id, or if the document differs from what would be written.
Python 3 standard library only.
"""
import argparse
import os
import re
import sys

BEGIN = {'tables': '<!-- spec_coverage.py: tables begin (generated: edit the tests\' "covers:" lines and docs/spec-statements.txt, then run tools/spec_coverage.py) -->',
         'counts': '<!-- spec_coverage.py: counts begin (generated) -->'}
END = {'tables': '<!-- spec_coverage.py: tables end -->',
       'counts': '<!-- spec_coverage.py: counts end -->'}
SCAN = ['tests', 'examples', 'tools/piglit_gate.py']
EXTS = ('.cpp', '.hpp', '.h', '.c', '.cl', '.ll', '.py', '.sh', '.pml', 'meson.build')
ID_RE = r'[0-9][0-9.]*-[a-z0-9-]+'
ANNOT = re.compile(r'^\s*(?://|#|;|/\*|\*)\s*covers(?:\(([^)]*)\))?:(.*?)(?:\*/)?\s*$')
TEST_RE = re.compile(r'^\s*TEST(?:_F|_P)?\(\s*(\w+)\s*,\s*(\w+)\s*\)')
KINDS = ('partly', 'gap', 'n/a', 'see', 'note')


def id_key(sid):
    sec = sid.split('-', 1)[0]
    return [int(x) for x in sec.split('.')]


def read_statements(path, errors):
    """Sections as [(title, prose lines, [statement dicts])]."""
    sections, ids = [], {}
    cur = None
    for n, line in enumerate(open(path, encoding='utf-8').read().split('\n'), 1):
        where = f'{path}:{n}'
        if line.startswith('## '):
            sections.append((line[3:].strip(), [], []))
            cur = None
        elif not line.strip() or line.startswith('#'):
            continue
        elif line.startswith('> '):
            if not sections:
                errors.append(f'{where}: prose before the first section')
                continue
            sections[-1][1].append(line[2:])
        elif line[0].isspace():
            m = re.match(r'\s+(partly|gap|n/a|see|note):\s*(.*)$', line)
            if not m or cur is None or not m.group(2):
                errors.append(f'{where}: expected "  partly|gap|n/a|see|note: TEXT" under a statement')
                continue
            if m.group(1) in cur['marks']:
                errors.append(f'{where}: {cur["id"]} has two "{m.group(1)}:" lines')
            cur['marks'][m.group(1)] = m.group(2)
        else:
            m = re.match(rf'({ID_RE})\s+(.+)$', line)
            if not m or not sections:
                errors.append(f'{where}: expected "ID TEXT" in a section')
                continue
            if m.group(1) in ids:
                errors.append(f'{where}: statement {m.group(1)} listed twice')
            cur = {'id': m.group(1), 'text': m.group(2), 'marks': {}, 'where': where}
            ids[cur['id']] = cur
            sections[-1][2].append(cur)
    for st in ids.values():
        kinds = [k for k in ('partly', 'gap', 'n/a', 'see') if k in st['marks']]
        if len(kinds) > 1:
            errors.append(f'{st["where"]}: {st["id"]} is {" and ".join(kinds)} at once')
    return sections, ids


def scan_files(root):
    for entry in SCAN:
        top = os.path.join(root, entry)
        if os.path.isfile(top):
            yield entry
            continue
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = sorted(d for d in dirnames if d != 'data')
            for name in sorted(filenames):
                if name.endswith(EXTS):
                    yield os.path.relpath(os.path.join(dirpath, name), root)


def read_annotations(root, errors):
    """{id: set of test labels}, and the list of (where, id) for each claim."""
    claims = []
    for rel in scan_files(root):
        try:
            lines = open(os.path.join(root, rel), encoding='utf-8').read().split('\n')
        except UnicodeDecodeError:
            continue
        label = rel[len('tests/'):] if rel.startswith('tests/') else rel
        for i, line in enumerate(lines):
            m = ANNOT.match(line)
            if not m:
                continue
            name = m.group(1)
            if name is None:
                name = label
                for nxt in lines[i + 1:i + 4]:
                    t = TEST_RE.match(nxt)
                    if t:
                        name = f'{label} {t.group(1)}.{t.group(2)}'
                        break
            ids = m.group(2).split()
            if not ids:
                errors.append(f'{rel}:{i + 1}: "covers:" names no statement')
            for sid in ids:
                claims.append((f'{rel}:{i + 1}', sid, name.strip()))
    return claims


def build(root, statements_path):
    errors = []
    sections, ids = read_statements(statements_path, errors)
    tests = {sid: set() for sid in ids}
    for where, sid, name in read_annotations(root, errors):
        if sid not in ids:
            errors.append(f'{where}: unknown statement id {sid}')
        else:
            tests[sid].add(name)
    rows = {}
    for sid, st in ids.items():
        marks, covered = st['marks'], sorted(tests[sid])
        if 'see' in marks:
            targets = marks['see'].split()
            for t in targets:
                if t not in ids:
                    errors.append(f'{st["where"]}: {sid} sees unknown id {t}')
            if covered:
                errors.append(f'{sid} is counted under {", ".join(targets)}, but {", ".join(covered)} '
                              f'claim it: annotate those ids instead')
            rows[sid] = ('see', ', '.join(f'`{t}`' for t in targets), '(counted there)')
            continue
        for kind in ('gap', 'n/a'):
            if kind in marks and covered:
                errors.append(f'{sid} is listed as {kind} ("{marks[kind]}") but {", ".join(covered)} '
                              f'claim it: drop the {kind} line or the claim')
        tests_cell = ', '.join(f'`{t}`' for t in covered)
        if 'n/a' in marks:
            rows[sid] = ('n/a', 'none', 'n/a: ' + marks['n/a'])
        elif 'gap' in marks:
            rows[sid] = ('N', 'none', 'N: ' + marks['gap'])
        elif not covered:
            errors.append(f'{sid} ({st["where"]}): no test covers it and it is not listed as a '
                          f'known gap (gap: REASON) in docs/spec-statements.txt')
            rows[sid] = ('N', 'none', 'N: not listed as a gap')
        elif 'partly' in marks:
            rows[sid] = ('P', tests_cell, 'P: ' + marks['partly'])
        else:
            rows[sid] = ('C', tests_cell, 'C (' + marks['note'] + ')' if 'note' in marks else 'C')
    return sections, rows, errors


def render(sections, rows):
    out = []
    for title, prose, stmts in sections:
        out += [f'## {title}', '']
        if prose:
            out += prose + ['']
        out += ['| id | statement (section) | tests | status |', '| --- | --- | --- | --- |']
        for st in stmts:
            _, tests_cell, status = rows[st['id']]
            if rows[st['id']][0] == 'see':
                tests_cell = 'see ' + tests_cell
            out.append(f'| `{st["id"]}` | {st["text"]} | {tests_cell} | {status} |')
        out.append('')
    tables = '\n'.join(out).rstrip('\n')

    def count(pred):
        c = {'C': 0, 'P': 0, 'N': 0, 'n/a': 0}
        for title, _, stmts in sections:
            for st in stmts:
                kind = rows[st['id']][0]
                if pred(st['id']) and kind != 'see':
                    c[kind] += 1
        return c
    norm = count(lambda s: id_key(s)[0] < 15)
    impl = count(lambda s: id_key(s)[0] >= 15)
    seen = sum(1 for _, _, stmts in sections for st in stmts
               if id_key(st['id'])[0] < 15 and rows[st['id']][0] == 'see')
    total = sum(norm.values())
    counts = (f'Sections 1–13 (normative), one row per id, the {seen} rows that point elsewhere not '
              f'counted: **covered {norm["C"]}, partly {norm["P"]}, not covered {norm["N"]}**, '
              f'n/a {norm["n/a"]} ({total} rows).\n'
              f'Section 15 (implementation notes): covered {impl["C"]}, partly {impl["P"]}, '
              f'not covered {impl["N"]}.')
    return {'tables': tables, 'counts': counts}, norm, impl


def splice(doc, parts, errors, doc_name):
    for key, text in parts.items():
        b, e = doc.find(BEGIN[key]), doc.find(END[key])
        if b < 0 or e < b:
            errors.append(f'{doc_name}: the {key} markers are missing ({BEGIN[key]} ... {END[key]})')
            continue
        doc = doc[:b + len(BEGIN[key])] + '\n' + text + '\n' + doc[e:]
    return doc


def main(argv=None):
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--check', action='store_true', help='write nothing; fail on any problem')
    ap.add_argument('--root', default=here, help='repository root (default: this checkout)')
    args = ap.parse_args(argv)
    statements = os.path.join(args.root, 'docs', 'spec-statements.txt')
    doc_path = os.path.join(args.root, 'docs', 'spec-coverage.md')
    sections, rows, errors = build(args.root, statements)
    parts, norm, impl = render(sections, rows)
    doc = open(doc_path, encoding='utf-8').read()
    new = splice(doc, parts, errors, 'docs/spec-coverage.md')
    if args.check:
        if new != doc and not any('markers are missing' in e for e in errors):
            errors.append('docs/spec-coverage.md: its generated tables or counts differ from the '
                          'tests\' "covers:" lines; run tools/spec_coverage.py and commit the result')
    elif new != doc:
        with open(doc_path, 'w', encoding='utf-8') as f:
            f.write(new)
        print(f'spec_coverage: wrote {doc_path}')
    for e in errors:
        print(f'spec_coverage: {e}', file=sys.stderr)
    print(f'spec_coverage: sections 1-13: covered {norm["C"]}, partly {norm["P"]}, '
          f'not covered {norm["N"]}, n/a {norm["n/a"]}; section 15: covered {impl["C"]}, '
          f'partly {impl["P"]}, not covered {impl["N"]}; {len(errors)} problem(s)')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
