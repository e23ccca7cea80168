# tools/ck run / env / demo. Sourced by tools/ck.

run_help() {
   cat <<EOF2
usage: tools/ck run [--frontend clover|rusticl | --mesa 25.0.7 [--driver llvmpipe|zink]] [--] PROGRAM [ARGS...]

Runs any unmodified OpenCL program (clinfo, piglit, your application) on the
patched Mesa in $CK_MESA_BUILD: it points the ICD loader at that build
(OCL_ICD_VENDORS) and enables llvmpipe for the frontend (Clover: LP_CL=1
and the driver directory GALLIUM_PIPE_SEARCH_DIR; rusticl:
RUSTICL_ENABLE=llvmpipe). The frontend is Clover unless --frontend or
CK_FRONTEND says otherwise. LP_NUM_THREADS, if set, picks llvmpipe's number
of compute threads. 'tools/ck env' prints the same settings.

--mesa 25.0.7 [--driver llvmpipe|zink] runs it on rusticl of the next Mesa
instead ('tools/ck build --mesa 25.0.7', unpatched until its series lands:
no cooperative kernels there yet), on llvmpipe or on zink over the
build's lavapipe.
EOF2
}

# run_on_mesa25 ARGS...: 'run --mesa 25.0.7 [--driver D] [--] PROGRAM ...'.
run_on_mesa25() {
   local driver=llvmpipe
   if [ "${1:-}" = --driver ]; then
      driver=${2:-}
      shift 2
   fi
   [ "${1:-}" = -- ] && shift
   [ $# -gt 0 ] || { run_help >&2; die "run needs a program"; }
   [ -f "$CK25_BUILD_OK" ] || die "no finished Mesa $MESA25_VERSION build: run 'tools/ck build --mesa $MESA25_VERSION'"
   eval "$(mesa25_env_exports "$driver")"
   exec "$@"
}

# parse_frontend ARGS...: when ARGS start with --frontend NAME, sets
# CK_FRONTEND to NAME and succeeds (the caller then shifts 2).
parse_frontend() {
   if [ "${1:-}" = --frontend ]; then
      [ $# -ge 2 ] || die "--frontend needs clover or rusticl"
      check_frontend "$2"
      CK_FRONTEND=$2
      return 0
   fi
   return 1
}

cmd_run() {
   case "${1:-}" in -h|--help) run_help; return 0 ;; esac
   if [ "${1:-}" = --mesa ]; then
      [ "${2:-}" = "$MESA25_VERSION" ] || die "--mesa takes $MESA25_VERSION (the pinned Mesa is the default)"
      shift 2
      run_on_mesa25 "$@"
   fi
   if parse_frontend "$@"; then shift 2; fi
   [ "${1:-}" = -- ] && shift
   [ $# -gt 0 ] || { run_help >&2; die "run needs a program"; }
   require_build
   eval "$(mesa_env_exports)"
   exec "$@"
}

cmd_env() {
   case "${1:-}" in
      -h|--help)
         echo "usage: eval \"\$(tools/ck env [--frontend clover|rusticl])\"   # use the patched Mesa in this shell"
         return 0 ;;
   esac
   if parse_frontend "$@"; then shift 2; fi
   [ $# -eq 0 ] || die "env takes no arguments but --frontend"
   require_build
   mesa_env_exports
}

demo_help() {
   cat <<EOF2
usage: tools/ck demo [--frontend clover|rusticl] [DEMO ARGS...]

Builds if needed, then runs the main job on the patched Mesa: a cooperative
relaxation (resizing global barriers, transmitted state) with more
work-groups than compute units, on a built-in generated input, while
another host thread launches a short non-cooperative kernel every 20 ms.
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
   if parse_frontend "$@"; then shift 2; fi
   build_if_needed
   eval "$(mesa_env_exports)"
   local trace=$CK_BUILD/demo-trace.json
   rm -f "$trace"
   CK_TRACE=$trace "$CK_PLUGIN_BUILD/examples/ck-demo" --kernels "$CK_ROOT/kernels" \
      --include "$CK_ROOT/include" "$@"
   [ -f "$trace" ] || return 0 # --help
   /usr/bin/python3 "$CK_ROOT/tools/trace_report.py" "$trace" --png "$CK_BUILD/demo-timeline.png"
   note "scheduler trace: $trace (Perfetto, chrome://tracing)"
}
