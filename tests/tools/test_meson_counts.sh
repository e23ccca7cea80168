#!/usr/bin/env bash
# How 'tools/ck test' counts a meson testlog (meson_counts): a skip fails
# unless tests/allowed-skips lists the test with a reason.
set -uo pipefail

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CK_ROOT=$tmp CK_BUILD=$tmp/_build
# shellcheck source=/dev/null
source "$(dirname "$0")/../../tools/lib/common.sh"
# shellcheck source=/dev/null
source "$(dirname "$0")/../../tools/lib/cmd_test.sh"
mkdir -p "$tmp/tests" "$CK_BUILD"

passed=0 failed=0
expect() {
   if [ "$2" = "$3" ]; then passed=$((passed + 1)); echo "PASS: $1"
   else failed=$((failed + 1)); echo "FAIL: $1: got '$2', expected '$3'"; fi
}
# testlog NAME:RESULT...: a meson testlog.json of the unit suite.
testlog() {
   local test
   for test in "$@"; do
      printf '{"name": "cooperative-kernels:unit / %s", "result": "%s"}\n' "${test%:*}" "${test##*:}"
   done >"$tmp/testlog.json"
}
counts() {
   : >"$CK_BUILD/failed-tests"
   meson_counts "$tmp/testlog.json" unit 2>"$tmp/stderr"
}

printf '# comment\nstress cap:1\tneeds a device\n' >"$CK_ALLOWED_SKIPS"
testlog "lit:OK" "scheduler:OK" "graph:EXPECTEDFAIL"
expect "OK and expected failures pass" "$(counts)" "3 0"
testlog "lit:OK" "scheduler:FAIL" "graph:TIMEOUT"
expect "failures and timeouts fail" "$(counts)" "1 2"
expect "each failure is named" "$(cat "$CK_BUILD/failed-tests")" \
   "unit: cooperative-kernels:unit / scheduler (FAIL)
unit: cooperative-kernels:unit / graph (TIMEOUT)"
testlog "lit:OK" "scheduler:SKIP"
expect "a skip fails" "$(counts)" "1 1"
expect "a skip is named" "$(cat "$CK_BUILD/failed-tests")" "unit: cooperative-kernels:unit / scheduler (SKIP)"
testlog "lit:OK" "stress cap:1:SKIP"
expect "a listed skip neither passes nor fails" "$(counts)" "1 0"
expect "a listed skip is named with its reason" "$(cat "$tmp/stderr")" "unit: stress cap:1 skipped: needs a device"
printf 'scheduler\n' >"$CK_ALLOWED_SKIPS"
testlog "scheduler:SKIP"
expect "a listed skip without a reason is an error" "$(counts || echo error)" "error"

echo "meson counts: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
