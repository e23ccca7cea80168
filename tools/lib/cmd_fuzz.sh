# tools/ck fuzz, and the short fuzz suite of tools/ck test. Sourced by tools/ck.

fuzz_help() {
   cat <<EOF2
usage: tools/ck fuzz [--count N] [--seed S] [--self-test] [-- FUZZ.PY OPTIONS...]

Builds if needed, then runs the differential fuzzer (tests/fuzz/fuzz.py,
docs/fuzzing.md): N random cooperative kernels from seeds S, S+1, ...
(tests/fuzz/generate.py), deterministic by construction, each run on PoCL
with the builtins defined away (the reference), and on rusticl and llvmpipe
of the patched Mesa under the policies never, default, random:1, random:2
and cap:1 with N work-groups from 1 to 4x the compute units; every third
program also has an invalid variant that must be rejected naming its rule
and line. Prints the programs, configurations, launches, rejections right
and wrong and programs per minute, then

   fuzz: P programs, M mismatches, C crashes, H hangs, W wrong diagnostics

A PoCL run with N > 1 that alone disagrees with PoCL's N = 1 is PoCL's own
bug (tests/fuzz/known/pocl-concurrent-groups.cl): it is counted as a
reference disagreement, saved, and not a mismatch.

Findings (program, launch, what happened, and with --shrink a reduced
program) are saved under $CK_BUILD/fuzz/findings/. Exits non-zero on any.
'tools/ck fuzz -- --help' lists the fuzzer's own options (--shrink,
--policies, --units, --time-limit, ...). With CK_FUZZ_VENDORS=DIR (a
directory of .icd files naming an installed rusticl, as 'tools/ck install'
writes), nothing is built and that Mesa is fuzzed.
EOF2
}

# fuzz_paths: the fuzzer's options that say where the OpenCL
# implementations are (the build's, or CK_FUZZ_VENDORS').
fuzz_paths() {
   if [ -n "${CK_FUZZ_VENDORS:-}" ]; then
      printf '%s\n' --vendors "$CK_FUZZ_VENDORS"
   else
      printf '%s\n' --rusticl-icd "$CK_ICD_DIR"
   fi
   printf '%s\n' --pocl-icd "$CK_POCL_ICD"
}

fuzz_prepare() {
   if [ -z "${CK_FUZZ_VENDORS:-}" ]; then
      build_if_needed
      require_build
   fi
   ensure_pocl
}

cmd_fuzz() {
   local args=() count=100 seed=1
   while [ $# -gt 0 ]; do
      case "$1" in
         -h|--help) fuzz_help; return 0 ;;
         --count) [[ ${2:-} =~ ^[0-9]+$ ]] || die "--count takes a number"; count=$2; shift ;;
         --seed) [[ ${2:-} =~ ^[0-9]+$ ]] || die "--seed takes a number"; seed=$2; shift ;;
         --self-test) args+=(--self-test) ;;
         --) shift; args+=("$@"); break ;;
         *) fuzz_help >&2; die "unknown option '$1'" ;;
      esac
      shift
   done
   fuzz_prepare
   local paths
   mapfile -t paths < <(fuzz_paths)
   # exec: a SIGTERM or Ctrl-C reaches the fuzzer, which kills its workers
   # and prints its summary
   exec /usr/bin/python3 "$CK_ROOT/tests/fuzz/fuzz.py" --count "$count" --seed "$seed" \
      --out "$CK_BUILD/fuzz" "${paths[@]}" "${args[@]}"
}

# The short deterministic run of tools/ck test: the fuzzer's self-test (the
# oracle must catch a nondeterministic program, a blocking block off its
# expected value, a hang and a wrong diagnostic), then fixed seeds on PoCL
# and rusticl, each with an invalid variant (active-count, and three of the
# four kinds the seeds took before it was added: group-barrier left out, to
# keep four programs) and the first with an ordinary variant. Adds
# to TOTAL_PASSED/TOTAL_FAILED; a platform that is missing fails (no skip).
CK_FUZZ_TEST_ARGS=(--count 4 --seed 9001 --max-size 2 --launches 1 --invalid-every 1
                   --policies default,random:7
                   --invalid-kinds active-count,recursion,transmit-in-helper,transmit-local-pointer)
# The same seeds on zink over the build's lavapipe, where the random policy
# kills in the running dispatch (ck/dispatch.h) and every SPIR-V module zink
# builds must pass spirv-val.
CK_FUZZ_ZINK_ARGS=(--count 4 --seed 9001 --max-size 2 --launches 1 --invalid-every 0
                   --rusticl-driver zink --policies random:7 --units 2)

# fuzz_step TITLE LOG LINES PASS_REGEX SCRIPT [ARGS...]: runs the Python
# SCRIPT into LOG, shows its last LINES lines, and counts a pass when it
# exits 0 and LOG has a line matching PASS_REGEX.
fuzz_step() {
   local title=$1 log=$2 lines=$3 pass=$4 rc=0
   shift 4
   step "$title"
   nice -n 5 /usr/bin/python3 "$@" >"$log" 2>&1 || rc=$?
   tail -n "$lines" "$log" >&2
   if [ "$rc" -eq 0 ] && grep -Eq "$pass" "$log"; then
      TOTAL_PASSED=$((TOTAL_PASSED + 1))
   else
      note_failure "$title ($log)"
   fi
}

run_fuzz_suite() {
   local out=$CK_BUILD/fuzz-test paths
   mapfile -t paths < <(fuzz_paths)
   rm -rf "$out"
   mkdir -p "$out"
   # an empty shader cache, as a new machine has: every kernel is compiled
   local -x MESA_SHADER_CACHE_DIR=$out/shader-cache
   fuzz_step "fuzz self-test" "$out.self-test.log" 8 '^self-test: PASS$' \
      "$CK_ROOT/tests/fuzz/fuzz.py" --self-test --out "$out/self-test" "${paths[@]}" \
      --policies default,random:7
   fuzz_step "fuzz: fixed seeds ${CK_FUZZ_TEST_ARGS[*]}" "$out.run.log" 6 \
      '^fuzz: [1-9][0-9]* programs, 0 mismatches, 0 crashes, 0 hangs, 0 wrong diagnostics$' \
      "$CK_ROOT/tests/fuzz/fuzz.py" --out "$out/run" --quiet "${paths[@]}" "${CK_FUZZ_TEST_ARGS[@]}"
   VK_DRIVER_FILES=$CK_LINE/lvp_icd.json \
      fuzz_step "fuzz on zink: fixed seeds ${CK_FUZZ_ZINK_ARGS[*]}" "$out.zink.log" 6 \
      '^fuzz: [1-9][0-9]* programs, 0 mismatches, 0 crashes, 0 hangs, 0 wrong diagnostics$' \
      "$CK_ROOT/tests/fuzz/fuzz.py" --out "$out/zink" --quiet "${paths[@]}" "${CK_FUZZ_ZINK_ARGS[@]}"
   fuzz_step "fuzz: a run stopped by SIGTERM" "$out.stop.log" 3 '^test_stop: PASS$' \
      "$CK_ROOT/tests/fuzz/test_stop.py" "$CK_ROOT/tests/fuzz/fuzz.py" "$out/stop" "${paths[@]}"
   CK_STEP=""
}
