#!/bin/sh
# zink_spirv_valid.sh RUN_PROGRAM_TEST TESTER PROGRAM...: runs each piglit
# program test (it must pass) with zink's SPIR-V dumped (ZINK_DEBUG=spirv)
# and no shader cache, then validates every module zink gave the Vulkan
# driver (zink_spirv_val.sh). lavapipe accepts some invalid SPIR-V that
# another driver need not.
# Run it through on_zink.sh.
set -u
run_program_test=$1 tester=$2
shift 2
status=0
for program in "$@"; do
   dump_dir=$(mktemp -d)
   if ! (cd "$dump_dir" && MESA_SHADER_CACHE_DISABLE=true ZINK_DEBUG=spirv \
         "$run_program_test" "$tester" "$program") > "$dump_dir/log" 2>&1; then
      echo "zink_spirv_valid: $program did not pass:"
      cat "$dump_dir/log"
      status=1
   fi
   modules=0
   for module in "$dump_dir"/*.spv; do
      [ -e "$module" ] || continue
      modules=$((modules + 1))
      if ! "$(dirname "$0")/zink_spirv_val.sh" "$module"; then
         echo "zink_spirv_valid: $program: zink's $(basename "$module") is invalid"
         status=1
      fi
   done
   if [ "$modules" -eq 0 ]; then
      echo "zink_spirv_valid: $program: zink dumped no SPIR-V"
      status=1
   fi
   echo "zink_spirv_valid: $program: $modules modules checked"
   rm -rf "$dump_dir"
done
exit $status
