#!/usr/bin/python3
"""A fuzzing run stopped by SIGTERM, as a user stops a long one: it must kill
its workers (they run in sessions of their own, out of reach of a signal to
the fuzzer's process group), print its summary with the programs it
finished, and exit with 128 + the signal's number.

usage: test_stop.py FUZZ.PY OUT [FUZZ.PY PATH OPTIONS...]
"""
import os
import re
import signal
import subprocess
import sys
import time
import uuid

SUMMARY = re.compile(r"^fuzz: [1-9][0-9]* programs, 0 mismatches, 0 crashes, 0 hangs, "
                     r"0 wrong diagnostics$")


def processes_with(token):
    """The processes whose environment holds token (the run's workers)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if token in f.read().split(b"\0"):
                    found.append(int(pid))
        except OSError:
            pass
    return found


def main():
    fuzz, out, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
    run_id = uuid.uuid4().hex
    token = f"CK_FUZZ_STOP_TEST={run_id}".encode()

    def give_up(signum, frame):
        """A run that hangs (before its second program, or after the
        signal): kill the fuzzer and its workers, which carry the token too,
        and fail."""
        for pid in processes_with(token):
            os.kill(pid, signal.SIGKILL)
        print("test_stop: FAIL: the run did not end within 600 s", flush=True)
        os._exit(1)

    signal.signal(signal.SIGALRM, give_up)
    signal.alarm(600)
    proc = subprocess.Popen(
        [sys.executable, fuzz, "--out", out, "--count", "1000", "--seed", "9001",
         "--max-size", "1", "--launches", "1", "--invalid-every", "0",
         "--platforms", "pocl,rusticl", "--policies", "never", *paths],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env=dict(os.environ, CK_FUZZ_STOP_TEST=run_id))
    lines = []
    for line in proc.stdout:
        lines.append(line.rstrip("\n"))
        if line.startswith("program 1/"):
            break
    workers = [pid for pid in processes_with(token) if pid != proc.pid]
    proc.send_signal(signal.SIGTERM)  # in the second program, its workers busy
    sent = time.monotonic()
    lines += proc.stdout.read().splitlines()
    rc = proc.wait()
    waited = time.monotonic() - sent
    left = []
    for _ in range(50):
        left = processes_with(token)
        if not left:
            break
        time.sleep(0.1)
    print("\n".join(lines[-8:]))
    problems = []
    if not workers:
        problems.append("no worker was running when the signal came")
    if rc != 128 + signal.SIGTERM:
        problems.append(f"exit status {rc}, not {128 + signal.SIGTERM}")
    if not any(SUMMARY.match(line) for line in lines):
        problems.append("no summary line")
    if not any(line.startswith("fuzz: stopped by SIGTERM") for line in lines):
        problems.append("no line saying that SIGTERM stopped the run")
    if left:
        problems.append(f"workers left running: {left}")
        for pid in left:
            os.kill(pid, signal.SIGKILL)
    print(f"test_stop: {len(workers)} workers at the signal, exit {rc} after {waited:.1f} s")
    for problem in problems:
        print(f"test_stop: FAIL: {problem}")
    if not problems:
        print("test_stop: PASS")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
