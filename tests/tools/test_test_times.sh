#!/usr/bin/env bash
# The step table of 'tools/ck test' (timed, print_test_times): each step's
# wall time and the CPU time of the processes it ran, a waiting step's CPU
# time near 0 and a computing step's near its wall time, and the total.
set -uo pipefail

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CK_ROOT=$tmp CK_BUILD=$tmp/_build
# shellcheck source=/dev/null
source "$(dirname "$0")/../../tools/lib/common.sh"
# shellcheck source=/dev/null
source "$(dirname "$0")/../../tools/lib/cmd_test.sh"
mkdir -p "$CK_BUILD"

passed=0 failed=0
check() {
   if eval "$2"; then passed=$((passed + 1)); echo "PASS: $1"
   else failed=$((failed + 1)); echo "FAIL: $1"; cat "$CK_BUILD/test-times.tsv"; fi
}

start=$SECONDS cpu_start=$(children_cpu_seconds)
timed "waits" sleep 2
# a process that computes for 2 s of its own CPU time, however loaded the machine
timed "computes" python3 -c '
import time
t = time.process_time()
while time.process_time() - t < 2:
    pass'
print_test_times "$((SECONDS - start))" "$(( $(children_cpu_seconds) - cpu_start ))" >"$tmp/table"

row() { awk -F'\t' -v name="$1" '$1 == name {print $'"$2"'}' "$CK_BUILD/test-times.tsv"; }
check "a step that waits takes its wall time" '[ "$(row waits 2)" -ge 2 ]'
check "a step that waits uses no CPU time" '[ "$(row waits 3)" -eq 0 ]'
check "a step that computes uses its CPU time" '[ "$(row computes 3)" -ge 1 ] && [ "$(row computes 3)" -le 3 ]'
check "the total's CPU time counts every step" '[ "$(row total 3)" -ge "$(row computes 3)" ]'
check "the printed table has a row per step and the total" \
   '[ "$(grep -c -E "^(waits|computes|total) +[0-9]+ +[0-9]+$" "$tmp/table")" -eq 3 ]'

echo "test times: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
