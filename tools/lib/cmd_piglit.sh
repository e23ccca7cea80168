# tools/ck piglit / piglit-baseline. Sourced by tools/ck.

PIGLIT_EXCLUDES=(-x bswap -x phatk -x clz-optimizations)
# Per-test limit in the concurrent run: the slowest tests that pass (libclc's
# sin, cos and tan, compiled cold) take 260-290 s alone on 2 CPUs. A test
# that times out there fails unless it timed out unpatched at the same
# limit; it is run again alone with the long limit, which decides only in
# that case. One that timed out alone unpatched (sincos) is not run.
PIGLIT_TIMEOUT=${CK_PIGLIT_TIMEOUT:-450}
PIGLIT_LONG_TIMEOUT=${CK_PIGLIT_LONG_TIMEOUT:-600}

# The expectation file of DRIVER: rusticl on DRIVER against itself, unpatched.
piglit_expectation() {
   printf '%s\n' "$CK_ROOT/tests/piglit/cl-rusticl-$1.expected"
}

piglit_help() {
   cat <<EOF
usage: tools/ck piglit [--driver llvmpipe|zink] [--results DIR] [-t REGEX]...

Runs Debian's piglit 'cl' profile (without ${PIGLIT_EXCLUDES[*]}) on rusticl
of the patched Mesa, on llvmpipe (default) or on zink over the build's
lavapipe, and compares every result with that driver's expectation file,
  tests/piglit/cl-rusticl-llvmpipe.expected
  tests/piglit/cl-rusticl-zink.expected
which records unpatched Mesa $MESA_DEB_VERSION with each test's time. Mesa
compiles every kernel anew: piglit gets an empty shader cache of its own, as
on a new machine. A test that passes unpatched and does not pass patched
fails the gate, and so does one that takes more than 4x its unpatched time
(more than 2x is named). A timeout (${PIGLIT_TIMEOUT}s) fails unless the test
timed out unpatched at the same limit too; either way it is re-run alone
with ${PIGLIT_LONG_TIMEOUT}s and both results are printed, and only in that
case does the re-run's result stand for it.
-t limits the run to matching tests.
EOF
}

baseline_help() {
   cat <<EOF
usage: tools/ck piglit-baseline [--driver llvmpipe|zink]

Builds *unpatched* Mesa $MESA_DEB_VERSION (same toolchain and options) into
$CK_UNPATCHED_BUILD, runs the same piglit profile on rusticl and the driver
(default llvmpipe) and rewrites its expectation file (see 'piglit --help').
Never edit those files by hand: regenerate them with this command.
EOF
}

# The regular expression that matches exactly the test NAME.
name_regex() {
   printf '^%s$' "$(printf '%s' "$1" | sed 's/[][\.*^$()+?{}|]/\\&/g')"
}

# run_piglit ENV RESULTS [piglit args...]: the cl profile, in the
# environment that the shell exports ENV set (mesa_env_exports), with an empty shader cache of its own
# (RESULTS.shader-cache), never the user's.
run_piglit() {
   local env=$1 results=$2
   shift 2
   command -v piglit >/dev/null || die "piglit is not installed (apt-get install piglit)"
   rm -rf "$results" "$results.shader-cache"
   (
      eval "$env"
      unset MESA_SHADER_CACHE_DISABLE
      export MESA_SHADER_CACHE_DIR=$results.shader-cache
      piglit run cl "${PIGLIT_EXCLUDES[@]}" --timeout "$PIGLIT_TIMEOUT" "$@" \
         -l dummy "$results"
   ) || die "piglit run failed to complete (results in $results)"
   rm -rf "$results.shader-cache"
}

# rerun_alone ENV RESULTS NAME...: runs the named tests one at a time with
# the long limit into RESULTS (nothing if no name).
rerun_alone() {
   local env=$1 results=$2
   shift 2
   rm -rf "$results"
   [ $# -gt 0 ] || return 0
   local name filters=()
   for name in "$@"; do
      filters+=(-t "$(name_regex "$name")")
   done
   step "re-running alone with ${PIGLIT_LONG_TIMEOUT}s: $*"
   run_piglit "$env" "$results" -1 --timeout "$PIGLIT_LONG_TIMEOUT" "${filters[@]}"
}

cmd_piglit() {
   local results="" filters=()
   while [ $# -gt 0 ]; do
      case "$1" in
         --driver) parse_driver "$@"; shift ;;
         --results) results=$2; shift ;;
         -t) filters+=(-t "$2"); shift ;;
         -h|--help) piglit_help; return 0 ;;
         *) piglit_help >&2; die "unknown option '$1'" ;;
      esac
      shift
   done
   local expectation env what
   [ -n "$results" ] || results=$CK_LINE/piglit-gate-$CK_DRIVER
   expectation=$(piglit_expectation "$CK_DRIVER")
   [ -f "$expectation" ] ||
      die "no expectation file $expectation: run 'tools/ck piglit-baseline --driver $CK_DRIVER'"
   require_build
   env=$(mesa_env_exports "$CK_DRIVER")
   what="the patched Mesa, rusticl on $CK_DRIVER"
   # A test that timed out unpatched even alone cannot regress: skip the
   # minutes it takes.
   local name excludes=()
   while IFS= read -r name; do
      excludes+=(-x "$(name_regex "$name")")
   done < <(awk -F'\t' '/^timeout / {print substr($1, 9)}' "$expectation")
   step "piglit cl profile on $what (results: $results)"
   local start=$SECONDS
   run_piglit "$env" "$results" "${filters[@]}" "${excludes[@]}"
   local again=()
   mapfile -t again < <(python3 "$CK_ROOT/tools/piglit_gate.py" timeouts "$results" \
      --passed-in "$expectation")
   rerun_alone "$env" "$results-alone" "${again[@]}"
   note "piglit ran in $((SECONDS - start))s"
   local extra=()
   [ ${#filters[@]} -gt 0 ] && extra+=(--subset)
   [ -d "$results-alone" ] && extra+=(--rerun "$results-alone")
   python3 "$CK_ROOT/tools/piglit_gate.py" compare "$expectation" "$results" \
      --timeout "$PIGLIT_TIMEOUT" "${extra[@]}"
}

# Builds unpatched Mesa $MESA_DEB_VERSION (same toolchain and options, same
# relative layout as the patched tree, so ccache shares their objects) into
# $CK_UNPATCHED_BUILD, with its ICD directory $CK_UNPATCHED_ICD.
CK_UNPATCHED_SRC=$CK_LINE/unpatched/mesa-src
CK_UNPATCHED_BUILD=$CK_LINE/unpatched/mesa
CK_UNPATCHED_ICD=$CK_LINE/unpatched/icd-rusticl
CK_UNPATCHED_VK_ICD=$CK_LINE/unpatched/lvp_icd.json
ensure_unpatched_build() {
   mkdir -p "$CK_LINE/unpatched"
   prepare_build
   if [ ! -d "$CK_UNPATCHED_SRC" ]; then
      git -C "$CK_MESA_SRC" worktree prune
      git -C "$CK_MESA_SRC" worktree add -q --detach "$CK_UNPATCHED_SRC" ck-base
   fi
   build_mesa_tree "$CK_UNPATCHED_SRC" "$CK_UNPATCHED_BUILD" "unpatched Mesa" ||
      die "building unpatched Mesa failed; log: $CK_UNPATCHED_BUILD.build.log"
   write_icds "$CK_UNPATCHED_BUILD" "$CK_UNPATCHED_ICD" "$CK_UNPATCHED_VK_ICD"
}

cmd_piglit_baseline() {
   while [ $# -gt 0 ]; do
      case "$1" in
         --driver) parse_driver "$@"; shift ;;
         -h|--help) baseline_help; return 0 ;;
         *) baseline_help >&2; die "unknown option '$1'" ;;
      esac
      shift
   done
   local results expectation env header
   ensure_unpatched_build
   results=$CK_LINE/unpatched/piglit-results-$CK_DRIVER
   expectation=$(piglit_expectation "$CK_DRIVER")
   env=$(mesa_env_exports "$CK_DRIVER" "$CK_UNPATCHED_ICD" "$CK_UNPATCHED_VK_ICD")
   header="unpatched Mesa $MESA_DEB_VERSION, rusticl on $CK_DRIVER, LLVM 15"
   step "piglit cl profile on $header (results: $results)"
   run_piglit "$env" "$results"
   local timed_out=()
   mapfile -t timed_out < <(python3 "$CK_ROOT/tools/piglit_gate.py" timeouts "$results")
   rerun_alone "$env" "$results-alone" "${timed_out[@]}"
   local rerun=()
   [ -d "$results-alone" ] && rerun=(--rerun "$results-alone")
   mkdir -p "$(dirname "$expectation")"
   python3 "$CK_ROOT/tools/piglit_gate.py" record "$results" "$expectation" "${rerun[@]}" \
      --timeout "$PIGLIT_TIMEOUT" \
      --header "$header, LP_NUM_THREADS=${LP_NUM_THREADS:-default}, empty shader cache, timeout ${PIGLIT_TIMEOUT}s (${PIGLIT_LONG_TIMEOUT}s alone for tests that timed out)"
}
