# tools/ck piglit / piglit-baseline. Sourced by tools/ck.

PIGLIT_EXPECTATION=$CK_ROOT/tests/piglit/cl-unpatched.expected
PIGLIT_EXCLUDES=(-x bswap -x phatk -x clz-optimizations)
# Per-test limit in the concurrent run; a test that times out there, or that
# took longer than that unpatched, is run again alone with the long limit.
PIGLIT_TIMEOUT=${CK_PIGLIT_TIMEOUT:-180}
PIGLIT_LONG_TIMEOUT=${CK_PIGLIT_LONG_TIMEOUT:-600}

piglit_help() {
   cat <<EOF
usage: tools/ck piglit [--results DIR] [-t REGEX]...

Runs Debian's piglit 'cl' profile (without ${PIGLIT_EXCLUDES[*]}) on the
patched Mesa and compares every result with
  ${PIGLIT_EXPECTATION#"$CK_ROOT"/}
which records unpatched Mesa $MESA_DEB_VERSION with each test's time. Mesa
compiles every kernel anew: piglit gets an empty shader cache of its own, as
on a new machine. A test that times out (${PIGLIT_TIMEOUT}s) is re-run alone
with ${PIGLIT_LONG_TIMEOUT}s before it counts; tests that took longer than
${PIGLIT_TIMEOUT}s unpatched run alone from the start. A test that passes
unpatched and does not pass patched fails the gate, and so does one that
takes more than 4x its unpatched time (more than 2x is named).
-t limits the run to matching tests.
EOF
}

baseline_help() {
   cat <<EOF
usage: tools/ck piglit-baseline

Builds *unpatched* Mesa $MESA_DEB_VERSION (same toolchain and options) into
$CK_BUILD/unpatched/mesa, runs the same piglit profile on it and rewrites
  ${PIGLIT_EXPECTATION#"$CK_ROOT"/}
Never edit that file by hand: regenerate it with this command.
EOF
}

# The regular expression that matches exactly the test NAME.
name_regex() {
   printf '^%s$' "$(printf '%s' "$1" | sed 's/[][\.*^$()+?{}|]/\\&/g')"
}

# run_piglit MESA_BUILD ICD_DIR RESULTS [piglit args...]: the cl profile with
# an empty shader cache of its own (RESULTS.shader-cache), never the user's.
run_piglit() {
   local build=$1 icd=$2 results=$3
   shift 3
   command -v piglit >/dev/null || die "piglit is not installed (apt-get install piglit)"
   rm -rf "$results" "$results.shader-cache"
   (
      eval "$(mesa_env_exports "$build" "$icd")"
      unset MESA_SHADER_CACHE_DISABLE
      export MESA_SHADER_CACHE_DIR=$results.shader-cache
      piglit run cl "${PIGLIT_EXCLUDES[@]}" --timeout "$PIGLIT_TIMEOUT" "$@" \
         -l dummy "$results"
   ) || die "piglit run failed to complete (results in $results)"
   rm -rf "$results.shader-cache"
}

# rerun_alone MESA_BUILD ICD_DIR RESULTS NAME...: runs the named tests one at
# a time with the long limit into RESULTS (nothing if no name).
rerun_alone() {
   local build=$1 icd=$2 results=$3
   shift 3
   rm -rf "$results"
   [ $# -gt 0 ] || return 0
   local name filters=()
   for name in "$@"; do
      filters+=(-t "$(name_regex "$name")")
   done
   step "re-running alone with ${PIGLIT_LONG_TIMEOUT}s: $*"
   run_piglit "$build" "$icd" "$results" -1 --timeout "$PIGLIT_LONG_TIMEOUT" "${filters[@]}"
}

cmd_piglit() {
   local results=$CK_BUILD/piglit-results filters=()
   while [ $# -gt 0 ]; do
      case "$1" in
         --results) results=$2; shift ;;
         -t) filters+=(-t "$2"); shift ;;
         -h|--help) piglit_help; return 0 ;;
         *) piglit_help >&2; die "unknown option '$1'" ;;
      esac
      shift
   done
   [ -f "$PIGLIT_EXPECTATION" ] || die "no expectation file $PIGLIT_EXPECTATION: run 'tools/ck piglit-baseline'"
   require_build
   # A test that timed out unpatched even alone cannot regress: skip the
   # minutes it takes. One that took longer than the limit runs alone.
   local name excludes=() long=()
   # Fields: "status name", then a tab and the seconds if recorded.
   while IFS= read -r name; do
      excludes+=(-x "$(name_regex "$name")")
   done < <(awk -F'\t' '/^timeout / {print substr($1, 9)}' "$PIGLIT_EXPECTATION")
   while IFS= read -r name; do
      excludes+=(-x "$(name_regex "$name")")
      long+=("$name")
   done < <(awk -F'\t' -v limit="$PIGLIT_TIMEOUT" \
      '/^pass / && NF == 2 && $2 + 0 > limit {print substr($1, 6)}' "$PIGLIT_EXPECTATION")
   step "piglit cl profile on the patched Mesa (results: $results)"
   local start=$SECONDS
   run_piglit "$CK_MESA_BUILD" "$CK_ICD_DIR" "$results" "${filters[@]}" "${excludes[@]}"
   local again=()
   mapfile -t again < <(python3 "$CK_ROOT/tools/piglit_gate.py" timeouts "$results" \
      --passed-in "$PIGLIT_EXPECTATION")
   [ ${#filters[@]} -gt 0 ] && long=()
   rerun_alone "$CK_MESA_BUILD" "$CK_ICD_DIR" "$results-alone" "${again[@]}" "${long[@]}"
   note "piglit ran in $((SECONDS - start))s"
   local extra=()
   [ ${#filters[@]} -gt 0 ] && extra+=(--subset)
   [ -d "$results-alone" ] && extra+=(--rerun "$results-alone")
   python3 "$CK_ROOT/tools/piglit_gate.py" compare "$PIGLIT_EXPECTATION" "$results" "${extra[@]}"
}

# Builds unpatched Mesa $MESA_DEB_VERSION (same toolchain and options, same
# relative layout as the patched tree, so ccache shares their objects) into
# $CK_UNPATCHED_BUILD, with its ICD directory $CK_UNPATCHED_ICD.
CK_UNPATCHED_SRC=$CK_BUILD/unpatched/mesa-src
CK_UNPATCHED_BUILD=$CK_BUILD/unpatched/mesa
CK_UNPATCHED_ICD=$CK_BUILD/unpatched/icd
ensure_unpatched_build() {
   mkdir -p "$CK_BUILD"
   ensure_packages
   write_native_file
   fetch_mesa
   unpack_mesa
   mkdir -p "$CK_BUILD/unpatched"
   if [ ! -d "$CK_UNPATCHED_SRC" ]; then
      git -C "$CK_MESA_SRC" worktree prune
      git -C "$CK_MESA_SRC" worktree add -q --detach "$CK_UNPATCHED_SRC" ck-base
   fi
   build_mesa_tree "$CK_UNPATCHED_SRC" "$CK_UNPATCHED_BUILD" "unpatched Mesa"
   write_icd "$CK_UNPATCHED_BUILD" "$CK_UNPATCHED_ICD"
}

cmd_piglit_baseline() {
   case "${1:-}" in -h|--help) baseline_help; return 0 ;; esac
   ensure_unpatched_build
   local results=$CK_BUILD/unpatched/piglit-results
   step "piglit cl profile on unpatched Mesa (results: $results)"
   run_piglit "$CK_UNPATCHED_BUILD" "$CK_UNPATCHED_ICD" "$results"
   local timed_out=()
   mapfile -t timed_out < <(python3 "$CK_ROOT/tools/piglit_gate.py" timeouts "$results")
   rerun_alone "$CK_UNPATCHED_BUILD" "$CK_UNPATCHED_ICD" "$results-alone" "${timed_out[@]}"
   local rerun=()
   [ -d "$results-alone" ] && rerun=(--rerun "$results-alone")
   mkdir -p "$(dirname "$PIGLIT_EXPECTATION")"
   python3 "$CK_ROOT/tools/piglit_gate.py" record "$results" "$PIGLIT_EXPECTATION" "${rerun[@]}" \
      --header "unpatched Mesa $MESA_DEB_VERSION, LLVM 14, LP_NUM_THREADS=${LP_NUM_THREADS:-default}, empty shader cache, timeout ${PIGLIT_TIMEOUT}s (${PIGLIT_LONG_TIMEOUT}s alone for tests that timed out)"
}
