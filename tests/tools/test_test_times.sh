#!/usr/bin/env bash
# The step table of 'tools/ck test' (timed, print_test_times): each step's
# wall time and the CPU time of the processes it ran, a waiting step's CPU
# time near 0 and a computing step's near its wall time, and the total; and
# steps run side by side (side_by_side): the group's time, its lanes' steps,
# counts and failures.
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
# Two lanes side by side: each counts a passed test after 2 s; the second
# then stops as a step that fails would.
TOTAL_PASSED=0 TOTAL_FAILED=0
: >"$CK_BUILD/failed-tests"
passes_after() { sleep "$1"; TOTAL_PASSED=$((TOTAL_PASSED + 1)); }
lane_that_passes() { timed "first sleeper" passes_after 2; echo "first lane's output"; }
lane_that_stops() { timed "second sleeper" passes_after 2; CK_STEP="the stopping step"; exit 3; }
side_by_side "two sleepers" lane_that_passes lane_that_stops >"$tmp/lanes" 2>"$tmp/lanes.err"
print_test_times "$((SECONDS - start))" "$(( $(children_cpu_seconds) - cpu_start ))" >"$tmp/table"

row() { awk -F'\t' -v name="$1" '$1 == name {print $'"$2"'}' "$CK_BUILD/test-times.tsv"; }
check "a step that waits takes its wall time" '[ "$(row waits 2)" -ge 2 ]'
check "a step that waits uses no CPU time" '[ "$(row waits 3)" -eq 0 ]'
check "a step that computes uses its CPU time" '[ "$(row computes 3)" -ge 1 ] && [ "$(row computes 3)" -le 3 ]'
check "the total's CPU time counts every step" '[ "$(row total 3)" -ge "$(row computes 3)" ]'
check "lanes side by side take the time of the longest" \
   '[ "$(row "two sleepers" 2)" -ge 2 ] && [ "$(row "two sleepers" 2)" -lt 4 ]'
check "each lane's steps are rows under the group, named with the lane's letter" \
   '[ "$(row "  a: first sleeper" 2)" -ge 2 ] && [ "$(row "  b: second sleeper" 2)" -ge 2 ]'
check "the lanes' counts join the totals" '[ "$TOTAL_PASSED" -eq 2 ]'
check "a lane that stops is a failure of its step" \
   '[ "$TOTAL_FAILED" -eq 1 ] && grep -qx "the stopping step (exit 3): failed" "$CK_BUILD/failed-tests"'
check "each lane's output is printed under its name" \
   'grep -A1 -x -- "--- lane a: lane_that_passes ---" "$tmp/lanes" | grep -qx "first lane.s output" &&
    grep -qx -- "--- lane b: lane_that_stops ---" "$tmp/lanes"'
check "the printed table has a row per step and the total" \
   '[ "$(grep -c -E "^(waits|computes|two sleepers|  a: first sleeper|  b: second sleeper|total) +[0-9]+ +[0-9]+$" "$tmp/table")" -eq 6 ]'

# Every step and lane that cmd_test names is a function once tools/ck has
# sourced its libraries (a step that is not fails only when it is reached).
for lib in mesa cmd_build cmd_run cmd_piglit cmd_install cmd_bench cmd_series cmd_fuzz; do
   # shellcheck source=/dev/null
   source "$(dirname "$0")/../../tools/lib/$lib.sh"
done
named=$(python3 - "$(dirname "$0")/../../tools/lib/cmd_test.sh" <<'PY'
import re, sys
text = open(sys.argv[1]).read().replace("\\\n", " ")
names = set(re.findall(r'\btimed "[^"]*" (\w+)', text))
for lanes in re.findall(r'\bside_by_side "[^"]*" ([^\n]+)', text):
    names.update(w for w in lanes.split() if re.fullmatch(r"\w+", w))
names.update(re.findall(r'gates\+=\("(\w+)', text))
print(" ".join(sorted(names)))
PY
)
undefined=""
for name in $named; do
   declare -F "$name" >/dev/null || undefined+=" $name"
done
check "cmd_test's steps and lanes are functions ($(wc -w <<<"$named") named)" \
   '[ -z "$undefined" ] && [ "$(wc -w <<<"$named")" -ge 10 ] || { echo "undefined:$undefined"; false; }'

echo "test times: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
