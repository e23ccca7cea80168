# tools/ck test. Sourced by tools/ck.

test_help() {
   cat <<EOF2
usage: tools/ck test [--no-piglit]

Builds if needed, then runs every test the project has:
  0. 'tools/ck check-series --changed': the prefix of patches/series that
     ends at each patch changed since patches/series.checked must build
     (nothing to do while the record is current);
  1. unit tests (meson test --suite unit: GoogleTest, lit/FileCheck), the
     protocol's model checked with spin (--suite model), the scheduler's
     tests again under ThreadSanitizer and AddressSanitizer, and the tests
     of the build pipeline itself (--suite tools); a test that skips
     fails unless tests/allowed-skips lists it with its reason;
  2. the extension's conformance profile on rusticl and llvmpipe of the
     patched Mesa: piglit runs _build/mesa-VERSION/ck/tests/cooperative_kernels.xml.gz,
     which holds every test of meson's opencl suite (piglit-format .cl
     tests and host programs), and every test must pass;
  3. the fuzz suite: the differential fuzzer's self-test (it must catch a
     nondeterministic program, a blocking block that ends off the value
     the generator computed, a hang and a wrong diagnostic), then fixed
     seeds on PoCL and rusticl (with an ordinary variant), the same seeds
     on zink under the random policy, and a run stopped by SIGTERM
     (tests/fuzz/, 'tools/ck fuzz');
  4. the piglit gate ('tools/ck piglit') on llvmpipe and on zink over
     lavapipe, unless --no-piglit.
Steps that leave a CPU idle run side by side, each group's output printed
when it ends: the unit and tools suites beside the sanitizer builds, the
conformance profile beside the model checker (which runs at idle priority,
so that the profile's kernels keep their units), and the two gates
together.
Prints each step's wall time and the CPU time its processes used at the
end, as a table (also written to _build/test-times.tsv), then the name of
each test that failed, then one 'N passed, N failed' line; exits non-zero
if anything failed.
EOF2
}

# The tests that may skip, one 'name<tab>reason' line each.
CK_ALLOWED_SKIPS=$CK_ROOT/tests/allowed-skips

# Count OK and failing results in a meson testlog.json; prints "passed failed"
# and appends "WHAT: name (result)" of each failing test to $CK_BUILD/failed-tests.
# A skip fails unless $CK_ALLOWED_SKIPS lists the test (by its name in
# meson.build) with a reason; an allowed skip is named, and counts as neither.
meson_counts() {
   python3 - "$1" "$2" "$CK_BUILD/failed-tests" "$CK_ALLOWED_SKIPS" <<'PY'
import json, sys
log, what, failed_list, allowed_list = sys.argv[1:]
allowed = {}
with open(allowed_list) as f:
    for line_no, line in enumerate(f, 1):
        if line.strip() and not line.startswith("#"):
            name, _, reason = line.rstrip("\n").partition("\t")
            if not reason.strip():
                sys.exit(f"{allowed_list}:{line_no}: expected 'test name<tab>reason'")
            allowed[name] = reason
ok = bad = 0
with open(log) as f, open(failed_list, "a") as failed:
    for line in f:
        test = json.loads(line)
        name = test["name"].partition(" / ")[2]
        if test["result"] in ("OK", "EXPECTEDFAIL"):
            ok += 1
        elif test["result"] == "SKIP" and name in allowed:
            print(f"{what}: {name} skipped: {allowed[name]}", file=sys.stderr)
        else:
            bad += 1
            failed.write(f"{what}: {test['name']} ({test['result']})\n")
print(ok, bad)
PY
}

# add_counts LINE: adds the counts of a "...: N passed, M failed" line to
# TOTAL_PASSED/TOTAL_FAILED, and sets LINE_FAILED to M.
add_counts() {
   local line=${1##*: }
   LINE_FAILED=${line#*, }
   LINE_FAILED=${LINE_FAILED%% failed}
   TOTAL_PASSED=$((TOTAL_PASSED + ${line%% passed*}))
   TOTAL_FAILED=$((TOTAL_FAILED + LINE_FAILED))
}

# note_failure WHAT: a step that failed without a failing test to name.
note_failure() {
   printf '%s: failed\n' "$1" >>"$CK_BUILD/failed-tests"
   TOTAL_FAILED=$((TOTAL_FAILED + 1))
}

# run_meson_suite SUITE [WHAT]: runs it, adds its counts to
# TOTAL_PASSED/TOTAL_FAILED.
run_meson_suite() {
   local suite=$1 rc=0 counts
   step "meson test --suite $suite${2:+ ($2)}"
   # a log of its own: suites may run side by side
   with_toolchain meson test -C "$CK_PLUGIN_BUILD" --suite "$suite" --print-errorlogs \
      --num-processes 1 --no-rebuild --logbase "testlog-$suite" || rc=$?
   counts=$(meson_counts "$CK_PLUGIN_BUILD/meson-logs/testlog-$suite.json" "$suite${2:+ ($2)}")
   TOTAL_PASSED=$((TOTAL_PASSED + ${counts% *}))
   TOTAL_FAILED=$((TOTAL_FAILED + ${counts#* }))
   [ "$rc" -eq 0 ] || [ "${counts#* }" -gt 0 ] || note_failure "meson test --suite $suite${2:+ ($2)}"
   CK_STEP=""
}

# The scheduler's unit tests again, built with a sanitizer (thread|address)
# in a build directory of their own.
run_sanitized_scheduler_tests() {
   local sanitizer=$1 build=$CK_LINE/ck-$1san rc=0 counts
   step "scheduler unit tests under ${sanitizer} sanitizer"
   if [ ! -f "$build/build.ninja" ]; then
      with_toolchain meson setup "$build" "$CK_ROOT" --native-file "$CK_NATIVE_FILE" \
         --buildtype=debug -Db_sanitize="$sanitizer" >"$build.setup.log" 2>&1 ||
         { tail -n 20 "$build.setup.log" >&2; rm -rf "$build"; false; }
   fi
   with_toolchain ninja -C "$build" ${CK_JOBS:+-j "$CK_JOBS"} \
      tests/unit/ck_scheduler_tests tests/unit/ck_scheduler_stress_tests \
      tests/unit/ck_protocol_check_tests tests/unit/ck_barrier_identity_tests \
      tests/unit/ck_hints_tests tests/unit/ck_dispatch_tests \
      >"$build.build.log" 2>&1 ||
      { grep -E -A12 '^FAILED|error:' "$build.build.log" | head -n 40 >&2; false; }
   TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 ASAN_OPTIONS=detect_leaks=1 \
      with_toolchain meson test -C "$build" --no-rebuild --print-errorlogs \
      --num-processes 1 scheduler scheduler_stress protocol_check barrier_identity hints \
      'dispatch policy' || rc=$?
   counts=$(meson_counts "$build/meson-logs/testlog.json" "${sanitizer} sanitizer")
   TOTAL_PASSED=$((TOTAL_PASSED + ${counts% *}))
   TOTAL_FAILED=$((TOTAL_FAILED + ${counts#* }))
   [ "$rc" -eq 0 ] || [ "${counts#* }" -gt 0 ] || note_failure "${sanitizer} sanitizer"
   CK_STEP=""
}

# run_extension_profile DRIVER: piglit runs the conformance profile
# (tests/piglit/cooperative_kernels.py) on rusticl and DRIVER; every test
# must pass.
run_extension_profile() {
   local driver=$1 results=$CK_BUILD/profile-results-$1 rc=0 line
   step "piglit run cooperative_kernels ($driver, results: $results)"
   rm -rf "$results"
   (
      eval "$(mesa_env_exports "$driver")"
      piglit run --timeout 900 -l dummy "$CK_PLUGIN_BUILD/tests/cooperative_kernels.xml.gz" \
         "$results" >/dev/null
   ) || rc=$?
   CK_STEP=""
   if [ "$rc" -ne 0 ]; then
      note_failure "piglit run cooperative_kernels ($driver)"
      return
   fi
   python3 "$CK_ROOT/tools/piglit_gate.py" require-pass "$results" \
      --label "cooperative_kernels ($driver)" | tee "$results.summary" || true
   line=$(tail -n 1 "$results.summary")
   add_counts "$line"
   grep '^  NOT PASSED ' "$results.summary" |
      sed "s/^ *NOT PASSED /cooperative_kernels ($driver): /" >>"$CK_BUILD/failed-tests" || true
}

# The CPU time, in seconds, that the processes this shell (or the lane
# subshell CK_SHELL_PID names) has waited for used (user + system; /proc's
# cutime and cstime, in clock ticks). Called as $(...), so not $BASHPID.
children_cpu_seconds() {
   local stat
   read -r stat <"/proc/${CK_SHELL_PID:-$$}/stat"
   # the fields after "pid (comm) ", from the state (field 3) on
   set -- ${stat##*) }
   echo $(( (${14} + ${15}) / $(getconf CLK_TCK) ))
}

# timed NAME COMMAND...: runs COMMAND and records its wall time and the CPU
# time of its processes as step NAME (CK_TEST_TIMES, printed by
# print_test_times): a step whose CPU time is near twice its wall time keeps
# 2 CPUs busy, one far below its wall time waits.
CK_TEST_TIMES=()
timed() {
   local name=$1 t0=$SECONDS cpu0
   cpu0=$(children_cpu_seconds)
   shift
   "$@"
   CK_TEST_TIMES+=("$name"$'\t'"$((SECONDS - t0))"$'\t'"$(( $(children_cpu_seconds) - cpu0 ))")
}

# side_by_side NAME LANE...: runs the lanes at once, each a command (a
# function and its words) in a subshell of its own, and waits for all of
# them: for steps that leave a CPU idle (one process that waits, or computes
# on one CPU) and share no build directory or cache. Each lane's output goes
# to its log, printed when the lanes are done; its counts, failed tests and
# step times join this shell's. A lane that stops on an error is a failure
# of the step it was in. The group is one row of the step table, the lanes'
# steps rows under it, named with their lane's letter.
side_by_side() {
   local group=$1 t0=$SECONDS cpu0 lane letter letters=abcdefgh pids=() i=0 rc
   shift
   local lanes=("$@")
   cpu0=$(children_cpu_seconds)
   local dir
   dir=$CK_BUILD/side-by-side/$(tr -cs 'a-z0-9' '-' <<<"${group,,}")
   dir=${dir%-}
   rm -rf "$dir" && mkdir -p "$dir"
   for lane in "${lanes[@]}"; do
      letter=${letters:i:1}
      note "side by side, lane $letter: $lane (log: $dir/$letter.log)"
      (
         CK_SHELL_PID=$BASHPID CK_TEST_TIMES=() TOTAL_PASSED=0 TOTAL_FAILED=0
         trap 'printf "%s\n" "$? $TOTAL_PASSED $TOTAL_FAILED $CK_STEP" >"$dir/$letter.counts"
               printf "%s\n" "${CK_TEST_TIMES[@]}" >"$dir/$letter.times"' EXIT
         # shellcheck disable=SC2086  # a lane is a function and its words
         $lane
      ) >"$dir/$letter.log" 2>&1 &
      pids+=("$!")
      i=$((i + 1))
   done
   CK_TEST_TIMES+=("$group"$'\t'"?"$'\t'"?")
   local group_row=$((${#CK_TEST_TIMES[@]} - 1)) status passed failed failed_step name wall cpu
   for i in "${!pids[@]}"; do
      letter=${letters:i:1} lane=${lanes[i]} rc=0
      wait "${pids[$i]}" || rc=$?
      printf '\n--- lane %s: %s ---\n' "$letter" "$lane"
      cat "$dir/$letter.log"
      if read -r status passed failed failed_step <"$dir/$letter.counts" 2>/dev/null; then
         TOTAL_PASSED=$((TOTAL_PASSED + passed))
         TOTAL_FAILED=$((TOTAL_FAILED + failed))
         [ "$status" -eq 0 ] || note_failure "${failed_step:-lane $letter: $lane} (exit $status)"
      else
         note_failure "lane $letter: $lane (exit $rc, no counts)"
      fi
      while IFS=$'\t' read -r name wall cpu; do
         if [ -n "$name" ]; then
            CK_TEST_TIMES+=("  $letter: $name"$'\t'"$wall"$'\t'"$cpu")
         fi
      done <"$dir/$letter.times"
   done
   CK_TEST_TIMES[group_row]="$group"$'\t'"$((SECONDS - t0))"$'\t'"$(( $(children_cpu_seconds) - cpu0 ))"
}

print_test_times() {
   local total=$1 cpu=$2 name wall
   printf '%s\n' "${CK_TEST_TIMES[@]}" "total"$'\t'"$total"$'\t'"$cpu" >"$CK_BUILD/test-times.tsv"
   printf '\n%-46s %8s %12s\n' "tools/ck test, step" "seconds" "CPU seconds"
   while IFS=$'\t' read -r name wall cpu; do
      printf '%-46s %8s %12s\n' "$name" "$wall" "$cpu"
   done <"$CK_BUILD/test-times.tsv"
   printf '\n'
}

check_series_changed() {
   (cmd_check_series --changed) || note_failure "check-series (patches changed since patches/series.checked)"
}

# run_piglit_gate DRIVER: the gate's counts added, its failures named.
run_piglit_gate() {
   local driver=$1 log=$CK_BUILD/piglit-gate-$1.log rc=0 line
   (cmd_piglit --driver "$driver") 2>&1 | tee "$log" || rc=$?
   line=$(grep -E '^piglit-gate: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1 || true)
   if [ -n "$line" ]; then
      add_counts "$line"
      [ "$LINE_FAILED" -eq 0 ] || grep -E '^  (REGRESSION|MISSING|TOO SLOW) ' "$log" |
         sed "s/^ */piglit gate ($driver): /" >>"$CK_BUILD/failed-tests"
   fi
   [ "$rc" -eq 0 ] || [ -n "$line" ] || note_failure "piglit gate ($driver)"
}

# The lanes of cmd_test's side-by-side steps.
unit_and_tools_tests() {
   timed "unit tests" run_meson_suite unit
   CK_BUILD_DIR=$CK_BUILD timed "tools tests" run_meson_suite tools
}

sanitizer_tests() {
   timed "ThreadSanitizer build and tests" run_sanitized_scheduler_tests thread
   timed "AddressSanitizer build and tests" run_sanitized_scheduler_tests address
}

conformance_profile() {
   timed "conformance profile (llvmpipe)" run_extension_profile llvmpipe
}

# The model checker on the CPU time nothing else wants (SCHED_IDLE, for its
# verifiers too): beside the conformance profile, whose kernels must have
# their units, it takes only what the profile leaves idle.
model_checking_when_idle() {
   chrt --idle --pid 0 "$BASHPID" || note "chrt failed: model checking at normal priority"
   timed "model checking (spin, idle priority)" run_meson_suite model
}

piglit_gate() {
   timed "piglit gate ($1)" run_piglit_gate "$1"
}

cmd_test() {
   local piglit=1
   while [ $# -gt 0 ]; do
      case "$1" in
         --no-piglit) piglit=0 ;;
         -h|--help) test_help; return 0 ;;
         *) test_help >&2; die "unknown option '$1'" ;;
      esac
      shift
   done
   local start=$SECONDS cpu_start
   cpu_start=$(children_cpu_seconds)
   timed "build (if needed)" build_if_needed
   TOTAL_PASSED=0 TOTAL_FAILED=0
   : >"$CK_BUILD/failed-tests"
   timed "check-series --changed" check_series_changed
   # Side by side where each step leaves a CPU idle: the unit and tools
   # suites beside the sanitizer builds (other build directories); the
   # conformance profile, whose cooperative kernels must have their units,
   # beside the model checker at idle priority (at normal priority the pair
   # took longer than one after the other); the two gates (piglit runs a
   # profile's tests one at a time).
   side_by_side "unit, tools | sanitizers" unit_and_tools_tests sanitizer_tests
   side_by_side "conformance profile | model checking" conformance_profile \
      model_checking_when_idle
   timed "PoCL (if needed)" ensure_pocl
   timed "fuzz suite" run_fuzz_suite
   if [ $piglit -eq 1 ]; then
      local driver gates=()
      for driver in "${CK_DRIVERS[@]}"; do
         gates+=("piglit_gate $driver")
      done
      side_by_side "piglit gates (${CK_DRIVERS[*]})" "${gates[@]}"
   fi
   print_test_times "$((SECONDS - start))" "$(( $(children_cpu_seconds) - cpu_start ))"
   note "tests took $((SECONDS - start))s"
   [ ! -s "$CK_BUILD/failed-tests" ] || { echo "failed:"; sed 's/^/  /' "$CK_BUILD/failed-tests"; }
   printf 'tests: %d passed, %d failed\n' "$TOTAL_PASSED" "$TOTAL_FAILED"
   [ "$TOTAL_FAILED" -eq 0 ]
}
