# tools/ck test. Sourced by tools/ck.

test_help() {
   cat <<EOF2
usage: tools/ck test [--no-piglit]

Builds if needed, then runs every test the project has:
  1. unit tests (meson test --suite unit: GoogleTest, lit/FileCheck), the
     protocol's model checked with spin (--suite model), the scheduler's
     tests again under ThreadSanitizer and AddressSanitizer, and the tests
     of the build pipeline itself (--suite tools);
  2. the project's OpenCL tests on the patched Mesa (meson test --suite opencl:
     host programs and piglit-format .cl tests run by cl-program-tester),
     once through each frontend: Clover, then rusticl;
  3. the piglit gate ('tools/ck piglit') of each frontend, unless --no-piglit.
Exits non-zero if anything failed, and ends with one 'N passed, N failed' line.
EOF2
}

# Count OK and failing results in a meson testlog.json; prints "passed failed".
meson_counts() {
   python3 - "$1" <<'PY'
import json, sys
ok = bad = 0
with open(sys.argv[1]) as f:
    for line in f:
        result = json.loads(line)["result"]
        if result in ("OK", "EXPECTEDFAIL", "SKIP"):
            ok += result != "SKIP"
        else:
            bad += 1
print(ok, bad)
PY
}

# run_meson_suite SUITE [WHAT]: runs it, adds its counts to
# TOTAL_PASSED/TOTAL_FAILED.
run_meson_suite() {
   local suite=$1 rc=0 counts
   step "meson test --suite $suite${2:+ ($2)}"
   with_debian_python meson test -C "$CK_PLUGIN_BUILD" --suite "$suite" --print-errorlogs \
      --num-processes 1 || rc=$?
   counts=$(meson_counts "$CK_PLUGIN_BUILD/meson-logs/testlog.json")
   TOTAL_PASSED=$((TOTAL_PASSED + ${counts% *}))
   TOTAL_FAILED=$((TOTAL_FAILED + ${counts#* }))
   [ "$rc" -eq 0 ] || [ "${counts#* }" -gt 0 ] || TOTAL_FAILED=$((TOTAL_FAILED + 1))
   CK_STEP=""
}

# The scheduler's unit tests again, built with a sanitizer (thread|address)
# in a build directory of their own.
run_sanitized_scheduler_tests() {
   local sanitizer=$1 build=$CK_BUILD/ck-$1san rc=0 counts
   step "scheduler unit tests under ${sanitizer} sanitizer"
   if [ ! -f "$build/build.ninja" ]; then
      with_debian_python meson setup "$build" "$CK_ROOT" --native-file "$CK_NATIVE_FILE" \
         --buildtype=debug -Db_sanitize="$sanitizer" >"$build.setup.log" 2>&1 ||
         { tail -n 20 "$build.setup.log" >&2; rm -rf "$build"; false; }
   fi
   with_debian_python ninja -C "$build" ${CK_JOBS:+-j "$CK_JOBS"} \
      tests/unit/ck_scheduler_tests tests/unit/ck_scheduler_stress_tests \
      tests/unit/ck_protocol_check_tests >"$build.build.log" 2>&1 ||
      { grep -E -A12 '^FAILED|error:' "$build.build.log" | head -n 40 >&2; false; }
   TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 ASAN_OPTIONS=detect_leaks=1 \
      with_debian_python meson test -C "$build" --no-rebuild --print-errorlogs \
      --num-processes 1 scheduler scheduler_stress protocol_check || rc=$?
   counts=$(meson_counts "$build/meson-logs/testlog.json")
   TOTAL_PASSED=$((TOTAL_PASSED + ${counts% *}))
   TOTAL_FAILED=$((TOTAL_FAILED + ${counts#* }))
   [ "$rc" -eq 0 ] || [ "${counts#* }" -gt 0 ] || TOTAL_FAILED=$((TOTAL_FAILED + 1))
   CK_STEP=""
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
   local start=$SECONDS
   build_if_needed
   TOTAL_PASSED=0 TOTAL_FAILED=0
   run_meson_suite unit
   run_meson_suite model
   run_sanitized_scheduler_tests thread
   run_sanitized_scheduler_tests address
   CK_BUILD_DIR=$CK_BUILD run_meson_suite tools
   local frontend
   for frontend in "${CK_FRONTENDS[@]}"; do
      (
         CK_FRONTEND=$frontend
         eval "$(mesa_env_exports)"
         run_meson_suite opencl "$frontend"
         printf '%s %s\n' "$TOTAL_PASSED" "$TOTAL_FAILED" >"$CK_BUILD/opencl-counts"
      )
      read -r TOTAL_PASSED TOTAL_FAILED <"$CK_BUILD/opencl-counts"
   done
   if [ $piglit -eq 1 ]; then
      for frontend in "${CK_FRONTENDS[@]}"; do
         local log=$CK_BUILD/piglit-gate-$frontend.log rc=0
         (cmd_piglit --frontend "$frontend") 2>&1 | tee "$log" || rc=$?
         local line
         line=$(grep -E '^piglit-gate: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1 || true)
         if [ -n "$line" ]; then
            line=${line#piglit-gate: }
            TOTAL_PASSED=$((TOTAL_PASSED + ${line%% passed*}))
            local f=${line#*, }
            TOTAL_FAILED=$((TOTAL_FAILED + ${f%% failed}))
         fi
         [ "$rc" -eq 0 ] || [ -n "$line" ] || TOTAL_FAILED=$((TOTAL_FAILED + 1))
      done
   fi
   note "tests took $((SECONDS - start))s"
   printf 'tests: %d passed, %d failed\n' "$TOTAL_PASSED" "$TOTAL_FAILED"
   [ "$TOTAL_FAILED" -eq 0 ]
}
