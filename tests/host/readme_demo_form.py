#!/usr/bin/env python3
"""README.md's quoted demo output has the form of what the demo prints.

    readme_demo_form.py README.md DEMO [ARGS...]

runs DEMO ARGS as `tools/ck demo` does (ck-demo with a scheduler trace,
then tools/trace_report.py on the trace: the active work-groups and the
gathers) and compares what they print, line by line, with the first fenced block after the
README's sentence that starts "`tools/ck demo` runs": the same number of
lines, and each line the same once every number is read as "a number"
(timings and counts change from run to run; the words, the order and the
lines do not). Fails naming the first line that differs.
"""
import os
import re
import subprocess
import sys
import tempfile

TRACE_REPORT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools",
                            "trace_report.py")
NUMBER = re.compile(r"\d+(?:\.\d+)?")


def quoted_block(readme):
    text = open(readme).read()
    start = text.index("`tools/ck demo` runs")
    fence = text.index("```\n", start) + 4
    return text[fence:text.index("```", fence)].splitlines()


def form(line):
    """A regular expression that matches LINE with any numbers in it."""
    parts = NUMBER.split(line)
    return "".join(re.escape(p) + (r"\d+(?:\.\d+)?" if i < len(parts) - 1 else "")
                   for i, p in enumerate(parts))


def main():
    readme, demo = sys.argv[1], sys.argv[2:]
    quoted = quoted_block(readme)
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, CK_TRACE=os.path.join(tmp, "trace.json"))
        run = subprocess.run(demo, capture_output=True, text=True, timeout=300, env=env)
        if run.returncode != 0:
            print(f"readme_demo_form: the demo exited with {run.returncode}:\n{run.stderr[-2000:]}")
            return 1
        report = subprocess.run([sys.executable, TRACE_REPORT, env["CK_TRACE"]],
                                capture_output=True, text=True, timeout=60)
        if report.returncode != 0:
            print(f"readme_demo_form: trace_report.py exited with {report.returncode}:\n"
                  f"{report.stderr[-2000:]}")
            return 1
    printed = (run.stdout + report.stdout).splitlines()
    for i, (want, got) in enumerate(zip(quoted, printed), 1):
        if not re.fullmatch(form(want), got):
            print(f"readme_demo_form: line {i} differs in form:\n  README: {want}\n  demo:   {got}")
            return 1
    if len(quoted) != len(printed):
        print(f"readme_demo_form: README quotes {len(quoted)} lines, the demo printed "
              f"{len(printed)}:\n" + "\n".join(printed))
        return 1
    print(f"readme_demo_form: {len(quoted)} lines, the same form")
    return 0


if __name__ == "__main__":
    sys.exit(main())
