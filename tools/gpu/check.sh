#!/bin/bash
# check.sh BUNDLE.tar.xz OUT_DIR [--lavapipe]: the checks of issue 56 on a
# lent GPU machine, from a bundle of tools/gpu/bundle.sh (nothing else of
# the project needs to be there). rusticl runs on zink over the Vulkan
# driver the loader finds (VK_DRIVER_FILES, or NVIDIA's where the device
# tool's machines keep it); with --lavapipe, over the bundle's lavapipe
# instead, which is this script's own test (tests/meson.build) and, on the
# GPU machine, the same checks on its CPU for comparison. Either way
# rusticl opens zink through its software device slot (RUSTICL_ENABLE=
# swrast, GALLIUM_DRIVER=zink), where zink takes the loader's first
# Vulkan device, a CPU one only with LIBGL_ALWAYS_SOFTWARE: Mesa has no
# DRM driver that would lead it to NVIDIA's kernel driver.
#
# Each step runs under its own timeout, all of them within 8 minutes, and
# appends its output to OUT_DIR/steps.log; OUT_DIR/summary.txt says which
# passed, OUT_DIR/table2/ holds ck-eval's CSV (a handful of files: the
# device tool brings back 8), and the exit status is 1 if any failed:
#   bundle        every library the bundle's programs load comes from the
#                 bundle, or is glibc's or GCC's runtime
#   clinfo        the zink device and its extensions
#   units         its compute units (more than 1 on NVIDIA's driver)
#   programs      the program tests that run on zink: ordinary kernels,
#                 and cooperative ones whose results hold for any M
#   discovery     64 work-groups per launch, those resident together
#                 finding each other (M >= 2 in some launch)
#   launch_reuse  ordinary kernels whose __local arguments change size
#   apps          the FSE'17 applications, cooperative launches of 4x the
#                 compute units, checked against their references
#   table2        the applications' Table 2 (cooperative against
#                 persistent-thread builds) at test scale, on as many
#                 work-groups as the device's compute units (zink reports
#                 NVIDIA's SMs and AMD's compute units, which their Vulkan
#                 drivers count in vendor extensions, and 1 elsewhere)
# Figure 5 needs kills of cooperative work-groups, which zink asks for only
# where the host reaches the running kernel's memory, a CPU device
# (docs/zink-backend.md, step 4).
set -uo pipefail
source "$(dirname "$0")/system-libraries.sh"

[ $# -ge 2 ] || { echo "usage: check.sh BUNDLE.tar.xz OUT_DIR [--lavapipe]" >&2; exit 2; }
bundle_archive=$(realpath "$1")
out=$(realpath -m "$2")
lavapipe=${3:-}
case "$lavapipe" in
   ""|--lavapipe) ;;
   *) echo "check.sh: unknown option '$lavapipe'" >&2; exit 2 ;;
esac
mkdir -p "$out"
: > "$out/steps.log"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -C "$work" -xJf "$bundle_archive"
b=$work/ck-gpu
export b

export LD_LIBRARY_PATH=$b/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$work/vendors"
echo "$b/lib/libRusticlOpenCL.so.1" > "$work/vendors/rusticl.icd"
export OCL_ICD_VENDORS=$work/vendors
export MESA_SHADER_CACHE_DIR=$work/shader-cache
unset OCL_ICD_FILENAMES CK_POLICY CK_CAP_FILE LIBGL_ALWAYS_SOFTWARE
export RUSTICL_ENABLE=swrast GALLIUM_DRIVER=zink
if [ "$lavapipe" = --lavapipe ]; then
   # with the compute queue on which zink runs cooperative launches
   export VK_DRIVER_FILES=$b/lib/lvp_icd.json LIBGL_ALWAYS_SOFTWARE=1 LVP_COMPUTE_QUEUES=1
   export LP_NUM_THREADS=${LP_NUM_THREADS:-2}
else
   nvidia_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
   if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$nvidia_icd" ]; then
      export VK_DRIVER_FILES=$nvidia_icd
   fi
fi

failed=0
summary=$out/summary.txt
{
   echo "bundle of commit $(cat "$b/commit")"
   echo "Vulkan driver: ${VK_DRIVER_FILES:-found by the loader}, RUSTICL_ENABLE=$RUSTICL_ENABLE"
} > "$summary"

# step NAME SECONDS COMMAND...: runs COMMAND, its output in steps.log.
step() {
   local name=$1 seconds=$2
   shift 2
   local start=$SECONDS
   echo "=== $name" >> "$out/steps.log"
   timeout --kill-after=10 "$seconds" "$@" >> "$out/steps.log" 2>&1
   local status=$?
   local verdict=pass
   [ $status -eq 0 ] || { verdict="FAIL (exit $status$([ $status -eq 124 ] && echo ", past ${seconds} s"))"; failed=1; }
   echo "$name: $verdict, $((SECONDS - start)) s" | tee -a "$summary"
}

# program_tests: the program tests that the suite runs on zink
# (share/tests/zink_program_tests.txt, written by its meson.build), each
# through piglit's tester, judged by the suite's own run-program-test.sh (a
# pass, not a skip).
program_tests() {
   local status=0 test count=0
   while read -r test <&3; do
      test=$b/share/tests/$test
      count=$((count + 1))
      if "$b/share/tests/cl/run-program-test.sh" "$b/bin/cl-program-tester" "$test" > /dev/null 2>&1; then
         echo "$(basename "$test"): pass"
      else
         echo "$(basename "$test"): FAIL"
         status=1
      fi
   done 3< "$b/share/tests/zink_program_tests.txt"
   [ $count -gt 0 ] || { echo "no program tests listed"; return 1; }
   echo "$count program tests"
   return $status
}

# bundle_complete: what the dynamic linker finds for the bundle's files,
# outside glibc and GCC's runtime, is in the bundle.
bundle_complete() {
   local status=0 file dependency
   for file in "$b"/bin/* "$b"/lib/*.so*; do
      while read -r dependency; do
         if [[ "$dependency" != "$b"/lib/* ]] && ! grep -Eq "$system_libraries" <<< "$dependency"; then
            echo "$(basename "$file") loads $dependency, from outside the bundle"
            status=1
         fi
      done < <(ldd "$file" 2>/dev/null | awk '$2 == "=>" { print $3 }')
      if ldd "$file" 2>/dev/null | grep -q 'not found'; then
         echo "$(basename "$file"): $(ldd "$file" | grep 'not found' | tr -s ' \t' ' ')"
         status=1
      fi
   done
   return $status
}

export -f bundle_complete
step bundle 60 bash -c bundle_complete
# a zink device, whose extensions include the project's
step clinfo 60 sh -c "'$b/bin/clinfo' && '$b/bin/clinfo' | grep -q 'Device Name .*zink' &&
   '$b/bin/clinfo' | grep '^ *Device Extensions  ' | grep -q cl_ext_cooperative_kernels"
# compute_units: the zink device's CL_DEVICE_MAX_COMPUTE_UNITS, which on
# NVIDIA's Vulkan driver is its SM count (VK_NV_shader_sm_builtins)
compute_units() {
   local units
   units=$("$b/bin/clinfo" | awk '/^ *Max compute units/ { print $NF; exit }')
   echo "compute units: ${units:-none reported}"
   case "${VK_DRIVER_FILES:-}" in
      *nvidia*) [ "${units:-0}" -gt 1 ] ;;
      *) [ -n "$units" ] ;;
   esac
}
export -f compute_units
step units 60 bash -c compute_units
grep '^compute units: ' "$out/steps.log" | tail -1 >> "$summary"
export -f program_tests
step programs 180 bash -c program_tests
# the test bounds M by LP_NUM_THREADS: on a GPU, by the 64 launched
step discovery 60 env LP_NUM_THREADS="${LP_NUM_THREADS:-64}" "$b/bin/discovery"
step launch_reuse 60 "$b/bin/launch_reuse"
# an ordinary kernel of another queue runs beside a cooperative one (zink's
# second queue); each waits for the other for at most 2^24 reads
step beside_cooperative 60 env CK_BESIDE_READS=16777216 "$b/bin/beside_cooperative"
step apps 120 env CK_POLICY=never "$b/bin/apps" "$b/share/kernels" "$b/share/include"
step table2 120 env CK_POLICY=never "$b/bin/ck-eval" table2 --scale test --repeats 3 \
   --out "$out/table2" --kernels "$b/share/kernels" --include "$b/share/include"

cat "$summary"
exit $failed
