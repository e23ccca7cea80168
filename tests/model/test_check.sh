#!/usr/bin/env bash
# check.sh's verdicts, with a fake spin, gcc and verifier: a mutant counts
# as caught only when the verifier wrote an error trail; a search that did
# not finish, a verifier that did not compile and output without a verdict
# fail the check.
set -uo pipefail

check=$(cd "$(dirname "$0")" && pwd)/check.sh
fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT

# spin writes pan.c; gcc "compiles" it into ./pan, which runs $fake/pan.sh,
# except for the FAKE_GCC_FAILS_AT-th compile, which fails (compiles are
# counted under a lock: check.sh runs verifiers in parallel).
cat >"$fake/spin" <<'SH'
#!/bin/sh
echo 'int main(void) { return 0; }' >pan.c
SH
cat >"$fake/gcc" <<'SH'
#!/bin/sh
exec 9>"$FAKE_DIR/lock"
flock 9
compiles=$(($(cat "$FAKE_DIR/compiles" 2>/dev/null || echo 0) + 1))
echo "$compiles" >"$FAKE_DIR/compiles"
[ "$compiles" != "${FAKE_GCC_FAILS_AT:-}" ] || { echo 'pan.c: error' >&2; exit 1; }
printf '#!/bin/sh\n. "%s/pan.sh"\n' "$FAKE_DIR" >pan
chmod +x pan
SH
chmod +x "$fake/spin" "$fake/gcc"

verified='echo "State-vector 112 byte, depth reached 220, errors: 0"
echo "      359 states, stored"
echo "pan: elapsed time 0 seconds"'
violation='echo "pan:1: assertion violated (waits_at[i]==(old_gen+1)) (at depth 208)"
echo "pan: wrote protocol.pml.trail"
touch protocol.pml.trail
echo "Warning: Search not completed"
echo "State-vector 112 byte, depth reached 220, errors: 1"
echo "      359 states, stored"'
incomplete='echo "pan: out of memory"
echo "Warning: Search not completed"
echo "State-vector 112 byte, depth reached 220, errors: 0"
echo "  1.5e+07 states, stored"'
killed='echo "pan: out of memory"'
no_trail='echo "pan:1: assertion violated (x) (at depth 3)"
echo "State-vector 112 byte, depth reached 220, errors: 1"
echo "      359 states, stored"'
trail_missing='echo "pan:1: assertion violated (x) (at depth 3)"
echo "pan: wrote protocol.pml.trail"
echo "State-vector 112 byte, depth reached 220, errors: 1"
echo "      359 states, stored"'

passed=0 failed=0
# expect WHAT RC ARGS: check.sh ARGS, with the verifier $pan (and $gcc_fails_at), exits RC.
expect() {
   local what=$1 want=$2 rc=0
   shift 2
   printf '%s\n' "$pan" >"$fake/pan.sh"
   rm -f "$fake/compiles"
   PATH=$fake:$PATH FAKE_DIR=$fake FAKE_GCC_FAILS_AT=${gcc_fails_at:-} CK_MODEL_JOBS=${model_jobs:-} \
      CK_MODEL_ONLY=${only:-} \
      "$check" "$@" >"$fake/log" 2>&1 || rc=$?
   if [ "$rc" = "$want" ]; then passed=$((passed + 1)); echo "PASS: $what"
   else failed=$((failed + 1)); echo "FAIL: $what: exit $rc, expected $want"; sed 's/^/   /' "$fake/log"; fi
}

pan=$violation expect "mutants whose error trails spin wrote are caught" 0 --mutants
pan=$incomplete expect "a mutant whose search ran out of memory is not caught" 1 --mutants
pan=$killed expect "a mutant whose verifier stopped without a verdict is not caught" 1 --mutants
pan=$no_trail expect "a mutant's errors without an error trail do not catch it" 1 --mutants
pan=$trail_missing expect "a mutant whose error trail is not there is not caught" 1 --mutants
pan=$violation gcc_fails_at=2 expect "a mutant whose verifier does not compile is not caught" 1 --mutants
pan=$verified expect "a model verified in every configuration passes" 0
# The failures on the runs of 2 work-groups on 2 units (24 runs), not all
# of the plan's: each verdict is a run's own.
small='-DN=2 -DUNITS=2$'
pan=$incomplete only=$small expect "a search that did not finish fails the model" 1
pan=$killed only=$small expect "a verifier that stopped without a verdict fails the model" 1
pan=$verified gcc_fails_at=2 only=$small expect "a verifier that does not compile fails the model" 1
pan=$verified gcc_fails_at=2 model_jobs=1 only=$small expect "... with one verifier at a time" 1
pan=$verified model_jobs=0 expect "a CK_MODEL_JOBS that is not a positive number is refused" 2
pan=$verified only=$small expect "CK_MODEL_ONLY keeps the runs that match it" 0
test "$(grep -c '^safety \|^liveness ' "$fake/log")" -eq 24 &&
   grep -q "^only the 24 runs that match" "$fake/log" ||
   { failed=$((failed + 1)); echo "FAIL: CK_MODEL_ONLY ran other than the 24 runs it matches"; cat "$fake/log"; }
pan=$verified only=NO-SUCH-RUN expect "a CK_MODEL_ONLY that matches no run is refused" 2

echo "check.sh verdicts: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
