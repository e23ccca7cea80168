# tools/ck run / env / demo. Sourced by tools/ck.

run_help() {
   cat <<EOF2
usage: tools/ck run [--driver llvmpipe|zink] [--] PROGRAM [ARGS...]

Runs any unmodified OpenCL program (clinfo, piglit, your application) on
rusticl of the patched Mesa in $CK_MESA_BUILD: it points the ICD loader at
that build (OCL_ICD_VENDORS) and enables the driver: llvmpipe
(RUSTICL_ENABLE=llvmpipe; cooperative kernels run there), or zink over the
build's lavapipe (ordinary kernels). The driver is llvmpipe unless
--driver or CK_DRIVER says otherwise. LP_NUM_THREADS, if set, picks
llvmpipe's number of compute threads. 'tools/ck env' prints the same
settings.
EOF2
}

# parse_driver ARGS...: when ARGS start with --driver NAME, sets CK_DRIVER
# to NAME and succeeds (the caller then shifts 2).
parse_driver() {
   if [ "${1:-}" = --driver ]; then
      [ $# -ge 2 ] || die "--driver needs llvmpipe or zink"
      check_driver "$2"
      CK_DRIVER=$2
      return 0
   fi
   return 1
}

cmd_run() {
   case "${1:-}" in -h|--help) run_help; return 0 ;; esac
   if parse_driver "$@"; then shift 2; fi
   [ "${1:-}" = -- ] && shift
   [ $# -gt 0 ] || { run_help >&2; die "run needs a program"; }
   require_build
   eval "$(mesa_env_exports)"
   exec "$@"
}

cmd_env() {
   case "${1:-}" in
      -h|--help)
         echo "usage: eval \"\$(tools/ck env [--driver llvmpipe|zink])\"   # use the patched Mesa in this shell"
         return 0 ;;
   esac
   if parse_driver "$@"; then shift 2; fi
   [ $# -eq 0 ] || die "env takes no arguments but --driver"
   require_build
   mesa_env_exports
}

demo_help() {
   cat <<EOF2
usage: tools/ck demo [DEMO ARGS...]

Builds if needed, then runs the main job on rusticl and llvmpipe of the
patched Mesa: a cooperative relaxation (resizing global barriers,
transmitted state) with more work-groups than compute units, on a built-in
generated input, while another host thread launches a short
non-cooperative kernel every 20 ms.
It checks the result against a sequential reference, prints the frame
latencies, the active work-groups over time and the gather times, and
writes the scheduler's trace ($CK_BUILD/demo-trace.json, open it in
Perfetto) and its timeline ($CK_BUILD/demo-timeline.png).
'tools/ck demo --help-demo' lists the demo's own options.
EOF2
}

cmd_demo() {
   case "${1:-}" in
      -h|--help) demo_help; return 0 ;;
      --help-demo) shift; set -- --help "$@" ;;
   esac
   build_if_needed
   eval "$(mesa_env_exports llvmpipe)"
   local trace=$CK_BUILD/demo-trace.json
   rm -f "$trace"
   CK_TRACE=$trace "$CK_PLUGIN_BUILD/examples/ck-demo" --kernels "$CK_ROOT/kernels" \
      --include "$CK_ROOT/include" "$@"
   [ -f "$trace" ] || return 0 # --help
   /usr/bin/python3 "$CK_ROOT/tools/trace_report.py" "$trace" --png "$CK_BUILD/demo-timeline.png"
   note "scheduler trace: $trace (Perfetto, chrome://tracing)"
}
