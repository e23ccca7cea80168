# tools/ck piglit / piglit-baseline. Sourced by tools/ck.

PIGLIT_EXPECTATION=$CK_ROOT/tests/piglit/cl-unpatched.expected
PIGLIT_EXCLUDES=(-x bswap -x phatk -x clz-optimizations)
# Per-test limit: generous against the slowest passing test (see the README).
PIGLIT_TIMEOUT=${CK_PIGLIT_TIMEOUT:-180}

piglit_help() {
   cat <<EOF
usage: tools/ck piglit [--results DIR] [-t REGEX]...

Runs Debian's piglit 'cl' profile (without ${PIGLIT_EXCLUDES[*]}) on the
patched Mesa and compares every result with
  ${PIGLIT_EXPECTATION#"$CK_ROOT"/}
which records unpatched Mesa $MESA_DEB_VERSION. A test that passes unpatched
and does not pass patched fails the gate. -t limits the run to matching tests.
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

# run_piglit MESA_BUILD ICD_DIR RESULTS [piglit args...]
run_piglit() {
   local build=$1 icd=$2 results=$3
   shift 3
   command -v piglit >/dev/null || die "piglit is not installed (apt-get install piglit)"
   rm -rf "$results"
   (
      eval "$(mesa_env_exports "$build" "$icd")"
      piglit run cl "${PIGLIT_EXCLUDES[@]}" "$@" --timeout "$PIGLIT_TIMEOUT" \
         -l dummy "$results"
   ) || die "piglit run failed to complete (results in $results)"
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
   # A test that timed out unpatched cannot regress: skip the minutes it takes.
   local name
   local excludes=()
   while read -r name; do
      excludes+=(-x "^${name//./\\.}\$")
   done < <(awk '$1 == "timeout" {print $2}' "$PIGLIT_EXPECTATION")
   step "piglit cl profile on the patched Mesa (results: $results)"
   local start=$SECONDS
   run_piglit "$CK_MESA_BUILD" "$CK_ICD_DIR" "$results" "${filters[@]}" "${excludes[@]}"
   note "piglit ran in $((SECONDS - start))s"
   local subset=()
   [ ${#filters[@]} -gt 0 ] && subset=(--subset)
   python3 "$CK_ROOT/tools/piglit_gate.py" compare "$PIGLIT_EXPECTATION" "$results" "${subset[@]}"
}

cmd_piglit_baseline() {
   case "${1:-}" in -h|--help) baseline_help; return 0 ;; esac
   mkdir -p "$CK_BUILD"
   ensure_packages
   write_native_file
   fetch_mesa
   unpack_mesa
   # Same relative layout as the patched tree, so ccache shares their objects.
   local src=$CK_BUILD/unpatched/mesa-src build=$CK_BUILD/unpatched/mesa
   local icd=$CK_BUILD/unpatched/icd results=$CK_BUILD/unpatched/piglit-results
   mkdir -p "$CK_BUILD/unpatched"
   if [ ! -d "$src" ]; then
      git -C "$CK_MESA_SRC" worktree prune
      git -C "$CK_MESA_SRC" worktree add -q --detach "$src" ck-base
   fi
   build_mesa_tree "$src" "$build" "unpatched Mesa"
   write_icd "$build" "$icd"
   step "piglit cl profile on unpatched Mesa (results: $results)"
   run_piglit "$build" "$icd" "$results"
   mkdir -p "$(dirname "$PIGLIT_EXPECTATION")"
   python3 "$CK_ROOT/tools/piglit_gate.py" record "$results" "$PIGLIT_EXPECTATION" \
      --header "unpatched Mesa $MESA_DEB_VERSION, LLVM 14, LP_NUM_THREADS=${LP_NUM_THREADS:-default}, timeout ${PIGLIT_TIMEOUT}s"
}
