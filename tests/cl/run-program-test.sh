#!/bin/sh
# Runs one piglit-format .cl program test with piglit's cl-program-tester and
# passes only if piglit reports "pass" (a skip is a failure here: every
# project test must run on the patched Mesa).
set -u
tester=$1
test_file=$2
out=$("$tester" "$test_file" 2>&1)
rc=$?
printf '%s\n' "$out"
printf '%s\n' "$out" | grep -q '"result": "pass"' && [ "$rc" -eq 0 ] && exit 0
echo "run-program-test: $test_file did not pass (exit $rc)" >&2
exit 1
