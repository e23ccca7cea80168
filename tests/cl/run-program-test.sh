#!/bin/sh
# run-program-test.sh [--require-resizing] [--require-dispatched-resizing] [--no-warnings] [--cache-hit]
#    [--chunks FORM] [--compiles N] [--vector-accesses] [--fences KIND]
#    [--claim-order ORDER] [--asm FILECHECK] TESTER FILE.cl
# Runs one piglit-format .cl program test with piglit's cl-program-tester and
# passes only if piglit reports "pass" (a skip is a failure here: every
# project test must run on the patched Mesa). With --require-resizing, every
# cooperative launch must also have killed and forked at least once
# (CK_STATS=1 lines): a test of what happens around resizing points must not
# pass by never reaching one. With --require-dispatched-resizing (a driver
# that dispatches a launch whole, whose work-groups discover which are
# resident: zink), every launch in which two work-groups were active must
# have killed or forked, and in one of up to 20 runs (each of which must
# pass) a launch must have killed and one forked. With --no-warnings, the kernels are compiled
# with the shader cache off (a cached kernel is not compiled, and prints
# nothing) and Mesa must print no warning. With --cache-hit, the program
# runs twice with a shader cache of its own, and the second run, whose
# kernels come from the cache the first one filled, must pass too. With
# --chunks FORM, a first run with the shader cache off writes the generated
# code's symbols (GALLIVM_PERF=jitdump), and every kernel's SIMD chunk must
# have been compiled in FORM: "inlined" into the loop over the chunks (no
# cs_co_variant), "called" (cs_co_variant, not a coroutine), "coroutine"
# (cs_co_variant.resume) or "outlined", a coroutine whose code between
# suspend points was moved into functions (cs_co_variant.suspend_free).
# With --compiles N, a first run with the shader cache off must compile
# the program's kernels N times in all (cs_variant in the jitdump): the
# frontend keeps a kernel's compute state across its launches. With
# --vector-accesses, a first run with the shader cache off dumps the
# kernels' IR (GALLIVM_DEBUG=ir), which must have a masked vector access
# (llvm.masked.load/store) for lanes at consecutive addresses, whether or
# not llvmpipe also gathers or scatters (llvm.masked.gather/scatter).
# With --fences single-thread, the kernels' IR (GALLIVM_DEBUG=ir) must have
# compiler fences only (syncscope("singlethread")), at least one:
# a work-group's invocations run on one thread, so its barriers need no
# fence instruction; with --fences cross-thread, it must have a fence of the
# machine, one that other work-groups see. With --claim-order any, a run
# with a scheduler trace (CK_TRACE) must have made ordinary launches of more
# than one work-group, and the scheduler must have started every one of
# them in any order (each unit its share of the ids): kernels none of
# whose work-groups can wait for another; with --claim-order ids, in id
# order, every one: kernels whose work-groups can wait. With --asm
# FILECHECK, a first run with the shader cache off prints the kernels'
# machine code (GALLIVM_DEBUG=asm), and for each CPU flag that the file's
# "CPU-CHECKS:" line names and /proc/cpuinfo lists, LLVM's FileCheck checks
# that code against the file's directives of that flag's prefix
# (avx512_vpopcntdq: AVX512_VPOPCNTDQ). A CPU with none of them runs the
# test for its results alone, and says so.
set -u
require_resizing=0
require_dispatched_resizing=0
no_warnings=0
cache_hit=0
chunks=
compiles=
vector_accesses=0
fences=
claim_order=
filecheck=
while :; do
   case "$1" in
      --require-resizing) require_resizing=1; export CK_STATS=1 ;;
      --require-dispatched-resizing) require_dispatched_resizing=1; export CK_STATS=1 ;;
      --no-warnings) no_warnings=1; export MESA_SHADER_CACHE_DISABLE=true ;;
      --cache-hit) cache_hit=1 ;;
      --chunks) chunks=$2; shift
         case "$chunks" in
            inlined|called|coroutine|outlined) ;;
            *) echo "run-program-test: unknown chunk form $chunks" >&2; exit 2 ;;
         esac ;;
      --compiles) compiles=$2; shift
         case "$compiles" in
            ''|*[!0-9]*) echo "run-program-test: --compiles takes a number" >&2; exit 2 ;;
         esac ;;
      --vector-accesses) vector_accesses=1 ;;
      --fences) fences=$2; shift
         case "$fences" in
            single-thread|cross-thread) ;;
            *) echo "run-program-test: --fences takes single-thread or cross-thread" >&2; exit 2 ;;
         esac ;;
      --claim-order) claim_order=$2; shift
         case "$claim_order" in
            any|ids) ;;
            *) echo "run-program-test: --claim-order takes any or ids" >&2; exit 2 ;;
         esac ;;
      --asm) filecheck=$2; shift ;;
      *) break ;;
   esac
   shift
done
tester=$1
test_file=$2
# jit_symbols: the names of the functions llvmpipe compiled for the program's
# kernels, one per compile, from a run with the shader cache off. It runs
# in a command substitution, so a failure here says so (the caller then
# finds no symbols and fails).
jit_symbols() {
   jitdir=$(mktemp -d) || { echo "run-program-test: no temporary directory" >&2; exit 1; }
   MESA_SHADER_CACHE_DISABLE=true GALLIVM_PERF=jitdump JITDUMPDIR="$jitdir" \
      "$tester" "$test_file" >/dev/null 2>&1
   find "$jitdir" -name 'jit-*.dump' -exec grep -a -o -h 'cs_[a-z_]*variant[a-z._]*' {} +
   rm -rf "$jitdir"
}
if [ -n "$compiles" ]; then
   compiled=$(jit_symbols | grep -c -x 'cs_variant')
   if [ "$compiled" -ne "$compiles" ]; then
      echo "run-program-test: $test_file's kernels were compiled $compiled times, not $compiles" >&2
      exit 1
   fi
fi
# The kernels' IR from a run with the shader cache off (GALLIVM_DEBUG=ir),
# for the checks that read it; the run must have printed some.
if [ $vector_accesses -eq 1 ] || [ -n "$fences" ]; then
   ir=$(MESA_SHADER_CACHE_DISABLE=true GALLIVM_DEBUG=ir "$tester" "$test_file" 2>&1)
   if ! printf '%s\n' "$ir" | grep -q '^define '; then
      echo "run-program-test: no IR of $test_file's kernels with GALLIVM_DEBUG=ir" >&2
      exit 1
   fi
fi
if [ $vector_accesses -eq 1 ]; then
   gathers=$(printf '%s\n' "$ir" | grep -c -E 'call .*@llvm\.masked\.(gather|scatter)\.')
   vectors=$(printf '%s\n' "$ir" | grep -c -E 'call .*@llvm\.masked\.(load|store)\.')
   if [ "$vectors" -eq 0 ]; then
      echo "run-program-test: $test_file's kernels have $gathers masked gathers and scatters and no masked vector access" >&2
      exit 1
   fi
fi
if [ -n "$fences" ]; then
   compiler_fences=$(printf '%s\n' "$ir" | grep -c -E '^ *fence syncscope\("singlethread"\) ')
   machine_fences=$(printf '%s\n' "$ir" | grep -E '^ *fence ' | grep -c -v 'syncscope')
   case "$fences" in
      single-thread)
         if [ "$machine_fences" -gt 0 ] || [ "$compiler_fences" -eq 0 ]; then
            echo "run-program-test: $test_file's kernels have $machine_fences fence instructions and $compiler_fences compiler fences, not compiler fences only" >&2
            exit 1
         fi ;;
      cross-thread)
         if [ "$machine_fences" -eq 0 ]; then
            echo "run-program-test: $test_file's kernels have no fence that other work-groups see ($compiler_fences compiler fences)" >&2
            exit 1
         fi ;;
   esac
fi
if [ -n "$filecheck" ]; then
   flags=$(sed -n 's|^// CPU-CHECKS: *||p' "$test_file")
   if [ -z "$flags" ]; then
      echo "run-program-test: $test_file has no CPU-CHECKS line" >&2
      exit 2
   fi
   asm=$(MESA_SHADER_CACHE_DISABLE=true GALLIVM_DEBUG=asm "$tester" "$test_file" 2>&1)
   checked=
   for flag in $flags; do
      grep -q -w -- "$flag" /proc/cpuinfo || continue
      prefix=$(printf '%s' "$flag" | tr 'a-z' 'A-Z')
      printf '%s\n' "$asm" | "$filecheck" --dump-input=fail --check-prefix="$prefix" "$test_file" ||
         exit 1
      checked="$checked $flag"
   done
   if [ -n "$checked" ]; then
      echo "run-program-test: $test_file's machine code checked for:$checked"
   else
      echo "run-program-test: this CPU has none of $flags: $test_file's machine code not checked"
   fi
fi
if [ -n "$chunks" ]; then
   symbols=$(jit_symbols | sort -u | tr '\n' ' ')
   case " $symbols" in
      *" cs_variant "*) ;;
      *) echo "run-program-test: no jitdump of $test_file's kernels (symbols: $symbols)" >&2
         exit 1 ;;
   esac
   # The program's chunk form: outlined if any chunk is an outlined
   # coroutine, else coroutine if any is one, else called if any chunk is a
   # function, else inlined.
   case " $symbols" in
      *" cs_co_variant.suspend_free "*) form=outlined ;;
      *" cs_co_variant.resume "*) form=coroutine ;;
      *" cs_co_variant "*) form=called ;;
      *) form=inlined ;;
   esac
   if [ "$form" != "$chunks" ]; then
      echo "run-program-test: $test_file's SIMD chunks are not $chunks (symbols: $symbols)" >&2
      exit 1
   fi
fi
if [ -n "$claim_order" ]; then
   trace=$(mktemp) || exit 1
   CK_TRACE="$trace" "$tester" "$test_file" >/dev/null 2>&1
   launches=$(grep -o '"name":"ordinary launch [0-9]* ([0-9]* groups[^"]*"' "$trace" |
      grep -v '(1 groups')
   rm -f "$trace"
   total=$(printf '%s' "$launches" | grep -c .)
   any=$(printf '%s' "$launches" | grep -c 'in any order')
   case "$claim_order" in
      any) expected=$total ;;
      ids) expected=0 ;;
   esac
   if [ "$total" -eq 0 ] || [ "$any" -ne "$expected" ]; then
      echo "run-program-test: $any of $test_file's $total ordinary launches of several work-groups started them in any order, not $claim_order" >&2
      exit 1
   fi
fi
if [ $cache_hit -eq 1 ]; then
   cache=$(mktemp -d) || exit 1
   trap 'rm -rf "$cache"' EXIT
   export MESA_SHADER_CACHE_DIR="$cache"
   unset MESA_SHADER_CACHE_DISABLE
   first=$("$tester" "$test_file" 2>&1)
   if ! printf '%s\n' "$first" | grep -q '"result": "pass"'; then
      printf '%s\n' "$first"
      echo "run-program-test: $test_file did not pass with an empty shader cache" >&2
      exit 1
   fi
   if [ -z "$(find "$cache" -type f)" ]; then
      echo "run-program-test: $test_file left nothing in the shader cache" >&2
      exit 1
   fi
fi
# With --require-dispatched-resizing (zink, whose discovery may find one
# work-group resident, and whose forks need the dispatch's late
# work-groups), every launch in which two or more work-groups were active
# must have killed or forked, and the program runs again, each run checked,
# until one of its launches killed and one forked.
runs=1
[ $require_dispatched_resizing -eq 1 ] && runs=20
run=0 killed=0 forked=0
while [ $run -lt $runs ]; do
   run=$((run + 1))
   out=$("$tester" "$test_file" 2>&1)
   rc=$?
   printf '%s\n' "$out"
   if ! printf '%s\n' "$out" | grep -q '"result": "pass"' || [ "$rc" -ne 0 ]; then
      echo "run-program-test: $test_file did not pass (exit $rc)" >&2
      exit 1
   fi
   [ $require_dispatched_resizing -eq 1 ] || break
   # launches in which M reached 2 or more
   resizable=$(printf '%s\n' "$out" | grep '^ck: cooperative launch ' |
      grep -v -E 'active [01]\.\.[01],')
   static=$(printf '%s\n' "$resizable" | grep -c -E ' 0 kills, 0 forks')
   if [ -n "$resizable" ] && [ "$static" -ne 0 ]; then
      echo "run-program-test: $static cooperative launches of $test_file had two work-groups active and neither killed nor forked" >&2
      exit 1
   fi
   printf '%s\n' "$resizable" | grep -q -E ' [1-9][0-9]* kills' && killed=1
   printf '%s\n' "$resizable" | grep -q -E ' [1-9][0-9]* forks' && forked=1
   [ $killed -eq 1 ] && [ $forked -eq 1 ] && break
done
if [ $require_resizing -eq 1 ]; then
   launches=$(printf '%s\n' "$out" | grep -c '^ck: cooperative launch ')
   static=$(printf '%s\n' "$out" | grep '^ck: cooperative launch ' |
      grep -c -E ' 0 kills| 0 forks')
   if [ "$launches" -eq 0 ] || [ "$static" -ne 0 ]; then
      echo "run-program-test: $static of $launches cooperative launches of $test_file did not resize" >&2
      exit 1
   fi
fi
if [ $require_dispatched_resizing -eq 1 ] && { [ $killed -eq 0 ] || [ $forked -eq 0 ]; }; then
   echo "run-program-test: in $run runs of $test_file, no launch killed ($killed) or none forked ($forked)" >&2
   exit 1
fi
if [ $no_warnings -eq 1 ] && printf '%s\n' "$out" | grep -q '^MESA: warning'; then
   echo "run-program-test: Mesa printed a warning for $test_file" >&2
   exit 1
fi
exit 0
