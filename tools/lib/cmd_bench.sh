# tools/ck bench. Sourced by tools/ck.

bench_help() {
   cat <<EOF2
usage: tools/ck bench [micro] [--threads "2 4 8"] [--repeats N] [-- --benchmark_...]
       tools/ck bench runtime [--driver llvmpipe|zink] [--repeats N] [--runs N]
                              [--scale test|bench] [--apps NAME,...]
       tools/ck bench compile [--repeats N] [--filter TEXT]... [--skip TEXT]...
                              [--program FILE.cl]...
       tools/ck bench progress [--configs LIST] [--threads N] [--timeout S] [--confirm S]
                               [--sample K | --short] [--out DIR] [-- RUNNER ARGS]
       tools/ck bench table2|fig5|fig6|all [--threads N] [--repeats N] [--platform pocl]
                      [--rounds R] [--scale test|bench] [--apps NAME,...] [--out DIR] [-- CK-EVAL ARGS]
       tools/ck bench pocl [--repeats N] [--runs N] [--threads N] [--kernels NAME,...]
                           [--platforms NAME,...] [--apps NAME,...|all] [--scale test|bench]
                           [--out DIR]
       tools/ck bench public --suite-dir DIR [--programs LIST] [--repeats N] [--size test|bench]
                             [--platforms LIST] [--threads N]

Builds if needed, then measures. Benchmarks are not tests: nothing here
passes or fails on a figure (a wrong application result does fail).
Mesa runs the programs on rusticl and llvmpipe, where cooperative kernels
run; runtime, which runs ordinary kernels only, takes --driver llvmpipe|zink
(default: CK_DRIVER, else llvmpipe).

micro (the default)
  The micro-benchmarks (bench/ck-bench.cpp), once per llvmpipe
  compute-thread count in --threads (default "2 4 8"), with the default
  policy (a kernel alone on every unit is never resized): launch latency,
  global_barrier against the occupancy-bound barrier and host barriers, the
  fast-path cost of a cooperative kernel against the same source as
  persistent-thread code, and the gather time and fork latency when an
  ordinary kernel takes k = 1, N/4, N/2, N-1 units from a cooperative one.
  Google Benchmark runs each --repeats times (default 5), repetitions
  interleaved at random, and prints median, mean, spread, min and max;
  then the ratios of the medians. --benchmark_... flags after '--' go to
  Google Benchmark (e.g. -- --benchmark_filter=barrier).

runtime
  Run time of ordinary kernels, patched against unpatched Mesa (built as
  'piglit-baseline' builds it): the FSE'17 applications' persistent-thread
  builds (no extension needed) with one work-group on one compute thread
  and the test-scale inputs (stock llvmpipe cannot run their barriers
  across work-groups, and its loop limiter cuts the bench-scale inputs'
  loops short), compiled in an untimed warm-up. Runs alternate between
  the two Mesas; prints each application's median time with min-max, the
  ratio, and the geometric mean and worst ratio; a run with a wrong result
  is named, not timed.
  --driver (under rusticl on both Mesas: llvmpipe, or zink over each
  build's lavapipe; default CK_DRIVER, else llvmpipe), --repeats
  (processes per Mesa, default 5), --runs (timed runs per process, default
  10), --scale, --apps, --groups.

compile
  Compile time of programs nobody here wrote, patched against unpatched
  Mesa (built as 'piglit-baseline' builds it), with the shader cache
  disabled: every piglit builtin-float-*-1.0 math test, a sample of piglit's
  other cl programs, and (separately, patched only) the project's cooperative
  program tests, each run by cl-program-tester. Runs are paired; prints each
  program's median time with min-max, the ratio, and the geometric mean and
  worst ratio. --repeats (default 3), --filter TEXT keeps programs whose
  name contains TEXT, --skip TEXT leaves them out, --program adds a
  piglit-format .cl file. The whole corpus takes about an hour on 2 CPUs
  (sin, cos, sincos and tan take minutes each).

progress
  Progress litmus tests (tests/progress, docs/progress-models.md) as OpenCL
  kernels, under the plain, round-robin and chunked mappings of OOPSLA'21,
  with at most as many work-groups as compute units and with many more,
  each launch under a watchdog (a worker process, killed and restarted
  after a hang). Prints per configuration which progress models (unfair,
  HSA, OBE, HSA+OBE, LOBE, fair; weak and strong fairness) the results are
  consistent with, then one table of all (also DIR/progress.md).
  --configs  comma-separated, default unpatched,ordinary,cooperative,pocl:
               unpatched    unpatched Mesa (built as 'piglit-baseline' builds
                            it), ordinary kernels
               ordinary     patched Mesa, ordinary kernels
               cooperative  patched Mesa, the tests as cooperative kernels
                            (CK_POLICY=default)
               cooperative-random  the same under CK_POLICY=random:1 (kills
                            and forks at random)
               pocl         Debian's PoCL (pocl-opencl-icd, installed if
                            missing), ordinary kernels
  --threads N  LP_NUM_THREADS (and PoCL's compute units), default 4: the
               compute units, so that a plain launch (2 or 3 work-groups)
               fits and the many-instance launches (4 instances per unit)
               do not
  --timeout S  seconds before a launch counts as hung (default 2)
  --confirm S  a hang that refutes LOBE, or with N <= units, runs again
               with S seconds before it counts (default 10)
  --sample K   K tests spread over the generated suite (default: all 983)
  --short      the fixed sample of the short form (meson test progress_litmus)
  Anything after -- goes to bench/progress_bench.py (--help lists it).
  Each hang costs the timeout; the whole suite takes minutes to tens of
  minutes per configuration on 2 CPUs (docs/progress-models.md).

pocl
  Run time against PoCL (Debian's pocl-opencl-icd, installed if missing),
  the CPU OpenCL a user would otherwise pick (issue 30). Well-known ordinary
  kernels of several shapes (bench/kernels, run by bench/ck-kernels.cpp):
  naive and 16x16-tiled float matmul, a Jacobi 5-point stencil, a tree
  reduction in local memory, a Blelloch scan with block sums, scalar CSR
  SpMV, 256-bin histograms with global and with local atomics, and a
  level-synchronous BFS (one launch per level); on PoCL, and on rusticl
  and llvmpipe of the patched Mesa and of the unpatched Mesa (built as
  'piglit-baseline' builds it). Per repeat and kernel, one process per
  platform, the platforms in round-robin order; each process compiles in
  an untimed warm-up run, then times --runs runs on the host clock (first
  enqueue to clFinish). Every run is checked against a sequential host
  reference: a wrong result is named, not timed there, and fails the
  command. Prints each kernel's median milliseconds with min-max per
  platform, then the ratios of the medians (patched/PoCL, unpatched/PoCL,
  patched/unpatched) with the geometric mean and the worst case, and the
  same ratios of the runs' CPU time (user + system, all threads), which
  other processes' load moves less (DIR/kernels.txt).
  --repeats N       processes per kernel and platform (default 3)
  --runs N          timed runs per process (default 3)
  --threads N       LP_NUM_THREADS and PoCL's compute units (default: the
                    number of CPUs, $(nproc))
  --kernels LIST    only these (comma-separated; default all)
  --platforms LIST  only these of pocl, rusticl-patched, rusticl-unpatched
  --apps LIST|all   then the FSE'17 applications too, as 'bench table2
                    --platform pocl' runs them (same --repeats and
                    --threads, output in DIR): cooperative and persistent
                    builds on the patched Mesa (rusticl, llvmpipe)
                    against the persistent builds on PoCL (the unpatched
                    Mesa cannot run them: see runtime); 'all' for all 12
                    inputs
  --scale test|bench  the applications' inputs (default bench)
  --out DIR         default $CK_BUILD/bench-pocl
  A few minutes on 2 CPUs with the defaults (--repeats 5 took 10 minutes
  while other work loaded the machine); --apps all adds about 8 (bench
  scale).

public
  Kernel time of ordinary programs of a public GPU benchmark suite, Rodinia
  3.1's OpenCL programs (bench/public_suite.py): lud, backprop, nw,
  pathfinder, bfs, srad, nn and kmeans, each built from the checkout that
  --suite-dir names with the system g++/gcc (-O2, -lOpenCL) into
  $CK_BUILD/public-suite. The suite is never fetched nor kept in this
  repository: clone https://github.com/yuhc/gpu-rodinia (or unpack Rodinia
  3.1) somewhere outside it. Per repeat and program, one process per
  platform, the platforms in round-robin order; LD_PRELOAD of
  kernel_time_shim.so (bench/kernel_time_shim.c, built here if needed) makes
  every queue a profiling one and sums END - START of every kernel launch:
  that is the time reported, with the launch count and the process's wall
  time. Every run's result is checked against a sequential CPU reference:
  Rodinia's own check where the program has one (lud -v, bfs), else the
  suite's OpenMP version of the program built without -fopenmp and run on
  the same input (the docstring of bench/public_suite.py says how each is
  compared). A wrong result is named, not timed there, and fails the
  command. Prints each program's median kernel time with min-max and the
  launch count per platform, the ratios of the medians against the first
  platform with the geometric mean and worst case, the wall times and each
  platform's device ($CK_BUILD/public-suite/report.txt). Builds the patched
  Mesa if needed.
  --suite-dir DIR   a Rodinia 3.1 checkout (required)
  --programs LIST   only these (comma-separated; default all eight)
  --repeats N       processes per program and platform (default 3)
  --size test|bench inputs: test (well under a second per run on one CPU)
                    or bench (default; about 0.2-2 s of kernel time on PoCL
                    with 2 threads)
  --platforms LIST  of pocl (Debian's PoCL, $CK_BUILD/pocl-icd) and rusticl
                    (rusticl and llvmpipe of the patched Mesa $MESA_VERSION);
                    default pocl,rusticl, the first the ratios' base
  --threads N       LP_NUM_THREADS and PoCL's compute units (default: the
                    number of CPUs, $(nproc))

table2, fig5, fig6, all
  The evaluation of FSE'17 section 5 (bench/ck-eval.cpp) on the FSE'17
  applications, each printing its table with the paper's figures beside it,
  writing DIR/NAME.csv and DIR/NAME.txt (the printed table), then drawing
  DIR/NAME.png (bench/eval_plots.py). DIR is --out (default $CK_BUILD/eval).
    table2  cooperative against persistent-thread slowdown, no multitasking:
            CK_POLICY=never, --threads default: the number of CPUs ($(nproc)).
            --platform pocl also runs the persistent-thread builds on Debian's
            PoCL (installed if missing) and prints them beside ours
            (DIR/table2-pocl.txt, bench/table2_against.py); --rounds R
            alternates ours and PoCL's R times (DIR/round-I) and takes each
            ratio within a round, so that the machine's phases fall on
            both sides: the median of the rounds' ratios, and their range.
    fig5    gather time and matmul time when the matmul asks for 1, N/4,
            N/2, N-1 of the N units, query and without-query barriers.
            --priority: each run also with the matmul on a high-priority
            queue and the kernel on a low-priority one, and alone: frame
            latency and the kernel's slowdown with and without priorities.
    fig6    cooperative slowdown and achieved period under light (70/3 ms),
            medium (40/3 ms) and heavy (40/10 ms) loads; Table 3.
            fig5 and fig6: CK_POLICY=default, --threads default: the larger
            of 4 and the number of CPUs (so that N/4 >= 1).
    all     table2, fig5 and fig6 in turn (each with its own default threads
            unless --threads is given); fails at the end if any did.
  --repeats N       runs per configuration (default: table2 5, fig5/fig6 3)
  --scale test|bench  input sizes (default bench; test is for trial runs)
  --apps NAME,...   only these applications (name or name:input)
  --graph PATH,...  run the graph applications on these files (Matrix Market
                    .mtx, DIMACS .gr, or edge lists) instead of generated graphs
  Anything after -- goes to ck-eval (e.g. -- --loads heavy --k N/2);
  '$CK_PLUGIN_BUILD/bench/ck-eval --help' lists its options.
  A bench-scale 'all' takes on the order of an hour on 2 CPUs.
EOF2
}

cmd_bench() {
   local sub=micro
   case "${1:-}" in
      micro|runtime|compile|progress|pocl|public|table2|fig5|fig6|all) sub=$1; shift ;;
   esac
   if [ "$sub" = micro ]; then
      bench_micro "$@"
   elif [ "$sub" = compile ]; then
      bench_compile "$@"
   elif [ "$sub" = runtime ]; then
      bench_runtime "$@"
   elif [ "$sub" = progress ]; then
      bench_progress "$@"
   elif [ "$sub" = pocl ]; then
      bench_pocl "$@"
   elif [ "$sub" = public ]; then
      bench_public "$@"
   else
      bench_eval "$sub" "$@"
   fi
}

bench_micro() {
   local threads="2 4 8" repeats=5 extra=()
   while [ $# -gt 0 ]; do
      case "$1" in
         --threads) threads=$2; shift ;;
         --repeats) repeats=$2; shift ;;
         --) shift; extra=("$@"); break ;;
         -h|--help) bench_help; return 0 ;;
         *) bench_help >&2; die "unknown option '$1'" ;;
      esac
      shift
   done
   build_if_needed
   eval "$(mesa_env_exports llvmpipe)"
   note "machine: $(nproc) CPUs, $(uname -m); rusticl on llvmpipe"
   local t
   for t in $threads; do
      step "benchmarks with LP_NUM_THREADS=$t"
      LP_NUM_THREADS=$t CK_POLICY=default "$CK_PLUGIN_BUILD/bench/ck-bench" \
         --kernels "$CK_ROOT/kernels" --include "$CK_ROOT/include" --repeats "$repeats" \
         "${extra[@]}"
   done
   CK_STEP=""
}

bench_compile() {
   local arg
   for arg in "$@"; do
      case "$arg" in -h|--help) bench_help; return 0 ;; esac
   done
   build_if_needed
   ensure_unpatched_build
   note "machine: $(nproc) CPUs, $(uname -m); rusticl on llvmpipe"
   /usr/bin/python3 "$CK_ROOT/bench/bench_compile.py" --root "$CK_ROOT" \
      --patched-icd "$CK_ICD_DIR" --unpatched-icd "$CK_UNPATCHED_ICD" "$@"
}

bench_runtime() {
   # --driver anywhere on the line; everything else goes to bench_runtime.py
   local args=()
   while [ $# -gt 0 ]; do
      case "$1" in
         -h|--help) bench_help; return 0 ;;
         --driver) parse_driver "$@"; shift 2 ;;
         *) args+=("$1"); shift ;;
      esac
   done
   check_driver "$CK_DRIVER"
   build_if_needed
   ensure_unpatched_build
   note "machine: $(nproc) CPUs, $(uname -m); rusticl on $CK_DRIVER"
   /usr/bin/python3 "$CK_ROOT/bench/bench_runtime.py" --eval "$CK_PLUGIN_BUILD/bench/ck-eval" \
      --kernels "$CK_ROOT/kernels" --include "$CK_ROOT/include" --driver "$CK_DRIVER" \
      --patched-icd "$CK_ICD_DIR" --unpatched-icd "$CK_UNPATCHED_ICD" \
      --patched-vk-icd "$CK_LINE/lvp_icd.json" --unpatched-vk-icd "$CK_UNPATCHED_VK_ICD" \
      "${args[@]}"
}

# The ICD directory that names Debian's PoCL alone, installing it if needed.
CK_POCL_ICD=$CK_BUILD/pocl-icd
ensure_pocl() {
   local CK_PACKAGES=(pocl-opencl-icd)
   ensure_packages
   [ -f /etc/OpenCL/vendors/pocl.icd ] || die "pocl-opencl-icd has no /etc/OpenCL/vendors/pocl.icd"
   mkdir -p "$CK_POCL_ICD"
   cp /etc/OpenCL/vendors/pocl.icd "$CK_POCL_ICD/pocl.icd"
}

# progress_env CONFIG THREADS: the environment of one configuration, as exports.
progress_env() {
   local config=$1 threads=$2
   printf 'export LP_NUM_THREADS=%q\n' "$threads"
   case "$config" in
      unpatched) mesa_env_exports llvmpipe "$CK_UNPATCHED_ICD" ;;
      ordinary) mesa_env_exports llvmpipe ;;
      cooperative) mesa_env_exports llvmpipe; printf 'export CK_POLICY=default\n' ;;
      cooperative-random) mesa_env_exports llvmpipe; printf 'export CK_POLICY=random:1\n' ;;
      pocl)
         printf 'export OCL_ICD_VENDORS=%q\n' "$CK_POCL_ICD"
         printf 'export POCL_CPU_MAX_CU_COUNT=%q POCL_MAX_PTHREAD_COUNT=%q\n' "$threads" "$threads"
         printf 'export POCL_CACHE_DIR=%q\n' "$CK_BUILD/pocl-cache" ;;
   esac
}

bench_progress() {
   local configs=unpatched,ordinary,cooperative,pocl threads=4 timeout=2 confirm=10
   local out=$CK_BUILD/progress
   local args=()
   while [ $# -gt 0 ]; do
      case "$1" in
         --configs) configs=$2; shift ;;
         --threads)
            [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--threads takes one number, got '${2:-}'"
            threads=$2; shift ;;
         --timeout) timeout=$2; shift ;;
         --confirm) confirm=$2; shift ;;
         --sample) args+=(--sample "$2"); shift ;;
         --short) args+=(--short) ;;
         --out) out=$2; shift ;;
         --) shift; args+=("$@"); break ;;
         -h|--help) bench_help; return 0 ;;
         *) bench_help >&2; die "unknown option '$1'" ;;
      esac
      shift
   done
   local config kernel jsons=() failed=()
   IFS=, read -r -a config_list <<<"$configs"
   for config in "${config_list[@]}"; do
      case "$config" in
         unpatched|ordinary|cooperative|cooperative-random|pocl) ;;
         *) die "unknown configuration '$config'" ;;
      esac
   done
   [[ ",$configs," =~ ,(ordinary|cooperative|cooperative-random), ]] && build_if_needed
   [[ ",$configs," == *,unpatched,* ]] && ensure_unpatched_build
   [[ ",$configs," == *,pocl,* ]] && ensure_pocl
   mkdir -p "$out"
   note "machine: $(nproc) CPUs, $(uname -m); rusticl on llvmpipe; LP_NUM_THREADS=$threads"
   for config in "${config_list[@]}"; do
      kernel=ordinary
      [[ $config == cooperative* ]] && kernel=cooperative
      step "progress litmus tests: $config"
      local rc=0
      (
         eval "$(progress_env "$config" "$threads")"
         /usr/bin/python3 "$CK_ROOT/bench/progress_bench.py" --config "$config" \
            --kernel "$kernel" --units "$threads" --timeout "$timeout" --confirm "$confirm" \
            --json "$out/$config.json" "${args[@]}"
      ) || rc=$?
      [ "$rc" -eq 0 ] && jsons+=("$out/$config.json") || failed+=("$config (exit $rc)")
   done
   CK_STEP=""
   if [ ${#jsons[@]} -gt 0 ]; then
      /usr/bin/python3 "$CK_ROOT/bench/progress_bench.py" --summary "${jsons[@]}" |
         tee "$out/progress.md"
   fi
   [ ${#failed[@]} -eq 0 ] || die "failed: ${failed[*]}"
}

bench_pocl() {
   local threads apps="" scale=bench out=$CK_BUILD/bench-pocl repeats=3 args=() failed=() rc=0
   local platforms=pocl,rusticl-patched,rusticl-unpatched
   threads=$(nproc)
   while [ $# -gt 0 ]; do
      case "$1" in
         --repeats|--runs|--threads)
            [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "$1 takes one number, got '${2:-}'" ;;&
         --repeats) repeats=$2; shift ;;
         --threads) threads=$2; shift ;;
         --runs|--kernels)
            [ $# -ge 2 ] || die "$1 needs a value"
            args+=("$1" "$2"); shift ;;
         --platforms)
            [ $# -ge 2 ] || die "--platforms needs a list"
            platforms=$2; shift ;;
         --apps)
            [ $# -ge 2 ] || die "--apps needs a list or 'all'"
            apps=$2; shift ;;
         --scale)
            [ $# -ge 2 ] || die "--scale needs test or bench"
            scale=$2; shift ;;
         --out)
            [ $# -ge 2 ] || die "--out needs a directory"
            out=$2; shift ;;
         -h|--help) bench_help; return 0 ;;
         *) bench_help >&2; die "unknown option '$1'" ;;
      esac
      shift
   done
   build_if_needed
   [[ ",$platforms," == *-unpatched,* ]] && ensure_unpatched_build
   [[ ",$platforms," == *,pocl,* || -n $apps ]] && ensure_pocl
   mkdir -p "$out"
   note "machine: $(nproc) CPUs, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//'); load average $(cut -d' ' -f1-3 /proc/loadavg)"
   step "ordinary kernels on PoCL and on the patched and unpatched Mesa ($threads threads)"
   /usr/bin/python3 "$CK_ROOT/bench/bench_pocl.py" --binary "$CK_PLUGIN_BUILD/bench/ck-kernels" \
      --dir "$CK_ROOT/bench/kernels" --pocl-icd "$CK_POCL_ICD" --pocl-cache "$CK_BUILD/pocl-cache" \
      --patched-icd "$CK_ICD_DIR" --unpatched-icd "$CK_UNPATCHED_ICD" \
      --repeats "$repeats" --threads "$threads" --platforms "$platforms" "${args[@]}" |
      tee "$out/kernels.txt" || rc=$?
   [ "$rc" -eq 0 ] || failed+=("ordinary kernels (exit $rc)")
   CK_STEP=""
   if [ -n "$apps" ]; then
      local eval_args=(--platform pocl --threads "$threads" --repeats "$repeats" --scale "$scale"
                       --out "$out")
      [ "$apps" = all ] || eval_args+=(--apps "$apps")
      rc=0
      (bench_eval table2 "${eval_args[@]}") || rc=$?
      [ "$rc" -eq 0 ] || failed+=("FSE'17 applications (exit $rc)")
   fi
   [ ${#failed[@]} -eq 0 ] || die "failed: ${failed[*]}"
}

# public_platform NAME THREADS: bench/public_suite.py's NAME=ICD_DIR,ENV=VAL...
public_platform() {
   local name=$1 threads=$2
   case "$name" in
      pocl)
         printf 'pocl=%s,POCL_CPU_MAX_CU_COUNT=%s,POCL_MAX_PTHREAD_COUNT=%s,POCL_CACHE_DIR=%s\n' \
            "$CK_POCL_ICD" "$threads" "$threads" "$CK_BUILD/pocl-cache" ;;
      rusticl)
         # what 'tools/ck env --driver llvmpipe' exports
         printf 'rusticl=%s,RUSTICL_ENABLE=llvmpipe,LP_NUM_THREADS=%s\n' "$CK_ICD_DIR" "$threads" ;;
      *) die "unknown platform '$name' (pocl, rusticl)" ;;
   esac
}

bench_public() {
   local suite="" repeats=3 size=bench threads platforms=pocl,rusticl args=() rc=0
   local out=$CK_BUILD/public-suite
   threads=$(nproc)
   while [ $# -gt 0 ]; do
      case "$1" in
         --repeats|--threads)
            [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "$1 takes one number, got '${2:-}'" ;;&
         --repeats) repeats=$2; shift ;;
         --threads) threads=$2; shift ;;
         --suite-dir)
            [ $# -ge 2 ] || die "--suite-dir needs a directory"
            suite=$2; shift ;;
         --programs)
            [ $# -ge 2 ] || die "--programs needs a list"
            args+=(--programs "$2"); shift ;;
         --size)
            [[ ${2:-} =~ ^(test|bench)$ ]] || die "--size takes test or bench, got '${2:-}'"
            size=$2; shift ;;
         --platforms)
            [ $# -ge 2 ] || die "--platforms needs a list"
            platforms=$2; shift ;;
         -h|--help) bench_help; return 0 ;;
         *) bench_help >&2; die "unknown option '$1'" ;;
      esac
      shift
   done
   # The suite is public code that this project never fetches nor contains.
   [ -n "$suite" ] || die "bench public needs --suite-dir DIR, a checkout of Rodinia 3.1" \
      "(https://github.com/yuhc/gpu-rodinia, public; this project never fetches nor contains it):" \
      "git clone https://github.com/yuhc/gpu-rodinia ../rodinia, then --suite-dir ../rodinia"
   [ -d "$suite/opencl" ] && [ -d "$suite/openmp" ] ||
      die "$suite has no opencl/ and openmp/: not a Rodinia 3.1 checkout (https://github.com/yuhc/gpu-rodinia)"
   local name names=() specs=()
   IFS=, read -r -a names <<<"$platforms"
   for name in "${names[@]}"; do
      case "$name" in
         pocl) ensure_pocl ;;
         rusticl) build_if_needed ;;
      esac
      specs+=("$(public_platform "$name" "$threads")")
   done
   [ -f "$CK_PLUGIN_BUILD/build.ninja" ] || die "no plugin build in $CK_PLUGIN_BUILD: run 'tools/ck build'"
   mkdir -p "$out"
   step "building bench/kernel_time_shim.so"
   with_toolchain ninja -C "$CK_PLUGIN_BUILD" bench/kernel_time_shim.so >"$out/shim-build.log" 2>&1 ||
      { tail -n 20 "$out/shim-build.log" >&2; false; }
   note "machine: $(nproc) CPUs, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//'); load average $(cut -d' ' -f1-3 /proc/loadavg)"
   step "Rodinia 3.1 OpenCL programs on $platforms ($threads threads, size $size)"
   /usr/bin/python3 "$CK_ROOT/bench/public_suite.py" --suite-dir "$suite" --build-dir "$out" \
      --shim "$CK_PLUGIN_BUILD/bench/kernel_time_shim.so" --repeats "$repeats" --size "$size" \
      --platforms "${specs[@]}" "${args[@]}" | tee "$out/report.txt" || rc=$?
   CK_STEP=""
   [ "$rc" -eq 0 ] || die "public suite: a result was wrong or a program failed (exit $rc; see the FAIL lines above)"
}

bench_eval() {
   local sub=$1
   shift
   local threads="" out=$CK_BUILD/eval platform="" rounds=1
   local args=()
   while [ $# -gt 0 ]; do
      case "$1" in
         --platform)
            [ "${2:-}" = pocl ] || die "--platform takes 'pocl' (Debian's pocl-opencl-icd), got '${2:-}'"
            [ "$sub" = table2 ] || die "--platform is for table2"
            platform=$2; shift ;;
         --rounds)
            [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--rounds takes a number, got '${2:-}'"
            rounds=$2; shift ;;
         --threads)
            [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--threads takes one number for $sub, got '${2:-}'"
            threads=$2; shift ;;
         --repeats|--scale|--apps|--graph)
            [ $# -ge 2 ] || die "$1 needs a value"
            args+=("$1" "$2"); shift ;;
         --priority)
            [ "$sub" = fig5 ] || die "--priority is for fig5"
            args+=("$1") ;;
         --out)
            [ $# -ge 2 ] || die "--out needs a directory"
            out=$2; shift ;;
         --) shift; args+=("$@"); break ;;
         -h|--help) bench_help; return 0 ;;
         *) bench_help >&2; die "unknown option '$1'" ;;
      esac
      shift
   done
   [ "$rounds" -eq 1 ] || [ "$platform" = pocl ] || die "--rounds is for table2 --platform pocl"
   build_if_needed
   eval "$(mesa_env_exports llvmpipe)"
   mkdir -p "$out"
   out=$(cd "$out" && pwd)
   local cpus
   cpus=$(nproc)
   note "machine: $cpus CPUs, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//'); rusticl on llvmpipe"

   local subs=("$sub") failed=()
   [ "$sub" = all ] && subs=(table2 fig5 fig6)
   [ "$platform" != pocl ] || ensure_pocl
   # With --rounds R, ours and PoCL's alternate R times (a round each in
   # DIR/round-I), so that the machine's phases fall on both sides of the
   # ratios that table2_against.py takes within each round.
   local s t policy rc=0 round dir pairs=()
   for ((round = 1; round <= rounds; round++)); do
      dir=$out
      [ "$rounds" -eq 1 ] || { dir=$out/round-$round; mkdir -p "$dir"; }
      for s in "${subs[@]}"; do
         if [ "$s" = table2 ]; then
            t=${threads:-$cpus}
            policy=never
         else
            t=${threads:-$((cpus > 4 ? cpus : 4))}
            policy=default
         fi
         step "$s with LP_NUM_THREADS=$t CK_POLICY=$policy${dir#"$out"}"
         rc=0
         LP_NUM_THREADS=$t CK_POLICY=$policy "$CK_PLUGIN_BUILD/bench/ck-eval" "$s" \
            --kernels "$CK_ROOT/kernels" --include "$CK_ROOT/include" --out "$dir" "${args[@]}" |
            tee "$dir/$s.txt" || rc=$?
         [ "$rc" -eq 0 ] || failed+=("$s${dir#"$out"} (exit $rc)")
      done
      [ "$platform" = pocl ] && [ "$rc" -eq 0 ] || break
      # PoCL has no cooperative kernels: its persistent-thread builds, on as
      # many work-groups as ours had (one per compute unit).
      step "persistent-thread builds on PoCL ($t threads)${dir#"$out"}"
      (
         eval "$(progress_env pocl "$t")"
         "$CK_PLUGIN_BUILD/bench/ck-eval" persistent --groups "$t" --kernels "$CK_ROOT/kernels" \
            --include "$CK_ROOT/include" --out "$dir/pocl" "${args[@]}"
      ) | tee "$dir/pocl.txt" || rc=$?
      if [ "$rc" -ne 0 ]; then
         failed+=("persistent on PoCL${dir#"$out"} (exit $rc)")
         break
      fi
      pairs+=(--ours "$dir/table2.csv" --other "$dir/pocl/persistent.csv")
   done
   if [ "$platform" = pocl ] && [ ${#failed[@]} -eq 0 ]; then
      /usr/bin/python3 "$CK_ROOT/bench/table2_against.py" "${pairs[@]}" --name PoCL |
         tee "$out/table2-pocl.txt"
   fi
   CK_STEP=""
   step "plots in $dir"
   /usr/bin/python3 "$CK_ROOT/bench/eval_plots.py" --dir "$dir"  # the last round's
   CK_STEP=""
   note "tables: $out/*.txt, CSV: $out/*.csv, plots: $out/*.png"
   [ ${#failed[@]} -eq 0 ] || die "failed: ${failed[*]} (see the FAIL lines above)"
}
