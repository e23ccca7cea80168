#!/usr/bin/env python3
"""README.md's figures are docs/results.md's.

The speed table under README's "Speed against PoCL" must be, row for row,
the one under that heading in docs/results.md, and the test time README
gives (seconds, with its commit) must be the one docs/results.md gives, so
that a figure changed in one place and not the other fails.
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def section(text, heading):
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    return text[start:end if end >= 0 else len(text)]


def first_table(text):
    rows, started = [], False
    for line in text.splitlines():
        if line.startswith("|"):
            rows.append(line.strip())
            started = True
        elif started:
            break
    return rows


def test_time(text):
    """(seconds, commit) of the sentence that gives tools/ck test's CI time."""
    m = re.search(r"\**(\d[\d,]*) s\**.*?(?:at|\n)[^.]*?commit\s+([0-9a-f]{7,})", text, re.S)
    return (m.group(1).replace(",", ""), m.group(2)) if m else None


def main():
    readme = open(os.path.join(ROOT, "README.md")).read()
    results = open(os.path.join(ROOT, "docs", "results.md")).read()
    errors = []
    a = first_table(section(readme, "## Speed against PoCL"))
    b = first_table(section(results, "## Speed against PoCL"))
    if not a:
        errors.append("README has no table under '## Speed against PoCL'")
    if a != b:
        errors.append("the speed tables differ:\n  README:\n    " + "\n    ".join(a)
                      + "\n  docs/results.md:\n    " + "\n    ".join(b))
    ra = test_time(readme.split("## What this is")[0])
    rb = test_time(section(results, "## Test time"))
    if ra is None or rb is None or ra != rb:
        errors.append(f"the test time differs: README {ra}, docs/results.md {rb}")
    for e in errors:
        print(e)
    print("test_readme_results: " + ("FAIL" if errors else "PASS"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
