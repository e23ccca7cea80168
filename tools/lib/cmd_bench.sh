# tools/ck bench. Sourced by tools/ck.

bench_help() {
   cat <<EOF2
usage: tools/ck bench [--threads "2 4 8"] [--repeats N]

Builds if needed, then runs the micro-benchmarks (tools/ck-bench.cpp) once
per llvmpipe compute-thread count, with CK_POLICY=never so that nothing is
resized: launch latency, global_barrier against the occupancy-bound barrier
and host barriers, and the fast-path cost of a cooperative kernel against the
same source as persistent-thread code. Prints medians with min and max.
Benchmarks are not tests: nothing here passes or fails on a figure.
EOF2
}

cmd_bench() {
   local threads="2 4 8" repeats=5
   while [ $# -gt 0 ]; do
      case "$1" in
         --threads) threads=$2; shift ;;
         --repeats) repeats=$2; shift ;;
         -h|--help) bench_help; return 0 ;;
         *) bench_help >&2; die "unknown option '$1'" ;;
      esac
      shift
   done
   build_if_needed
   eval "$(mesa_env_exports)"
   note "machine: $(nproc) CPUs, $(uname -m)"
   local t
   for t in $threads; do
      step "benchmarks with LP_NUM_THREADS=$t"
      LP_NUM_THREADS=$t CK_POLICY=never "$CK_PLUGIN_BUILD/tools/ck-bench" \
         --kernels "$CK_ROOT/kernels" --include "$CK_ROOT/include" --repeats "$repeats"
   done
   CK_STEP=""
}
