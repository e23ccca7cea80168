# tools/ck run / env / demo. Sourced by tools/ck.

run_help() {
   cat <<EOF2
usage: tools/ck run [--] PROGRAM [ARGS...]

Runs any unmodified OpenCL program (clinfo, piglit, your application) on the
patched Mesa in $CK_MESA_BUILD: it points the ICD loader at that build
(OCL_ICD_VENDORS), enables OpenCL on llvmpipe (LP_CL=1) and names the
driver directory (GALLIUM_PIPE_SEARCH_DIR). LP_NUM_THREADS, if set, picks
llvmpipe's number of compute threads. 'tools/ck env' prints the same settings.
EOF2
}

cmd_run() {
   case "${1:-}" in -h|--help) run_help; return 0 ;; --) shift ;; esac
   [ $# -gt 0 ] || { run_help >&2; die "run needs a program"; }
   require_build
   eval "$(mesa_env_exports)"
   exec "$@"
}

cmd_env() {
   case "${1:-}" in
      -h|--help) echo "usage: eval \"\$(tools/ck env)\"   # use the patched Mesa in this shell"; return 0 ;;
   esac
   require_build
   mesa_env_exports
}

demo_help() {
   cat <<EOF2
usage: tools/ck demo [DEMO ARGS...]

Builds if needed, then runs the demo on the patched Mesa: an iterative
relaxation on a built-in generated input, with one global barrier per step
between workgroups, checked against a sequential reference.
'tools/ck demo --help-demo' lists the demo's own options.
EOF2
}

cmd_demo() {
   case "${1:-}" in
      -h|--help) demo_help; return 0 ;;
      --help-demo) shift; set -- --help "$@" ;;
   esac
   build_if_needed
   eval "$(mesa_env_exports)"
   "$CK_PLUGIN_BUILD/tools/ck-demo" --kernels "$CK_ROOT/kernels" "$@"
}
