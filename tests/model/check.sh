#!/bin/bash
# Model-checks the kernel-scheduler protocol (protocol.pml), and the
# occupancy discovery (discovery.pml) and parked late work-groups
# (parking.pml) of the zink backend with spin:
#   check.sh             every kernel and policy, N <= 4 work-groups on 2-3
#                        units, exhaustively: assertions and valid end states,
#                        then non-progress cycles under weak fairness, except
#                        the latter for the steal kernel on 3 units under
#                        the default and random policies; the mixed kernels
#                        (barrier identity) with N <= 3 on 2 units, and N = 3
#                        on 3 units under the never policy (safety only);
#                        discovery with N <= 4 work-groups on 2-3 slots;
#                        the parked late work-groups of a dispatched launch
#                        (parking.pml) with N <= 4 on 2 slots, and N = 3 on
#                        3 slots (safety only); the same under the default
#                        policy with the driver's kill requests (-DDEMAND)
#                        with N = 3 on 2 slots; zink's batch ids on two queues
#                        (timelines.pml), 3 batches and 2 waiting threads,
#                        4 batches and 1 (safety: its waits end by
#                        assertion, not by spin's liveness search)
#   check.sh --full      those as well (3.5 to 9 minutes and up to 7 GB
#                        each; docs/protocol-model.md has the results), the
#                        mixed kernels on 3 units under every policy, and
#                        the driver's kill requests with N = 4 on 2 slots,
#                        and N = 3 on 3 slots (safety, 2 host steps)
#   check.sh --mutants   each mutation of the model must make spin fail
# Runs one verifier per CPU at a time (CK_MODEL_JOBS to choose), each with
# its share of the available memory. CK_MODEL_ONLY (an extended regular
# expression) keeps only the runs whose mode and defines match it, as in
# CK_MODEL_ONLY='safety -DKERNEL_RESIZE -DPOLICY_RANDOM -DN=4 -DUNITS=3'.
# Prints one line per run, in the order above; exits nonzero if any check
# fails.
# covers: 10.1-mismatch-detected 10.1-size-constant 10.6-resize 15-m-cached 15-resize-master
set -euo pipefail

models=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/ck-model.XXXXXX")
trap 'rm -rf "$work"' EXIT

# run MODE [MODEL.pml] DEFINES...: MODE is safety or liveness, MODEL
# protocol.pml unless named; prints the verdict and
# returns 0 if spin searched the whole state space and found no error, 1 if
# it found one and wrote its error trail, 2 if the search did not finish
# (a model or verifier that does not compile, a search cut short, output
# that says neither).
run() {
   local mode=$1 model=$models/protocol.pml flags out
   shift
   local label="$*"
   if [[ "${1:-}" == *.pml ]]; then
      model=$models/$1
      shift
   fi
   rm -f pan ./*.trail
   spin "$@" -a "$model" >spin.log 2>&1 ||
      { cat spin.log >&2; printf '%-8s %s: spin cannot translate the model\n' "$mode" "$label"; return 2; }
   if [ "$mode" = safety ]; then
      flags=(-DSAFETY)
   else
      flags=(-DNP -DNFAIR=3)
   fi
   # An optimised verifier and a large hash table pay only for the large
   # state spaces (the steal kernel on 3 units).
   local optimise=-O0 hash=-w20
   [[ "$label" == *KERNEL_STEAL*UNITS=3* ]] && optimise=-O2 hash=-w26
   gcc $optimise -w -DCOLLAPSE -DMEMLIM="$memlim" "${flags[@]}" -o pan pan.c >gcc.log 2>&1 ||
      { cat gcc.log >&2; printf '%-8s %s: the verifier does not compile\n' "$mode" "$label"; return 2; }
   if [ "$mode" = safety ]; then
      out=$(./pan -m2000000 $hash 2>&1) || true
   else
      out=$(./pan -m2000000 $hash -l -f 2>&1) || true
   fi
   local errors states seconds trail
   errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' <<<"$out")
   states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' <<<"$out")
   seconds=$(sed -n 's/^pan: elapsed time \([0-9.e+]*\).*/\1/p' <<<"$out")
   trail=$(sed -n 's/^pan: wrote \(.*\.trail\)$/\1/p' <<<"$out")
   printf '%-8s %-40s %s errors, %s states, %s s' "$mode" "$label" "${errors:-?}" \
      "${states:-?}" "${seconds:-?}"
   local unfinished
   unfinished=$(grep -m1 -E 'Search not completed|out of memory|max search depth too small' <<<"$out" || true)
   if [[ "$errors" =~ ^[1-9][0-9]*$ ]]; then
      if [ -n "$trail" ] && [ -f "$trail" ]; then
         # The first violation, as spin reports it.
         printf ': %s\n' "$(grep -m1 -E 'assertion violated|invalid end state|non-progress cycle|acceptance cycle' <<<"$out" || echo "error trail $trail")"
         return 1
      fi
      unfinished="errors without an error trail"
   elif [ "$errors" != 0 ] || [ -z "$states" ]; then
      unfinished="no verdict in the output of pan"
   fi
   if [ -n "$unfinished" ]; then
      printf ': search unfinished: %s\n' "$unfinished"
      return 2
   fi
   echo
}

# The plan: one line per verifier ("check MODE DEFINES...": it must pass;
# "mutant MODE DEFINES...": spin must find a violation and write its error
# trail) or per configuration left out ("note TEXT"), in the order printed.
plan=()
if [ "${1:-}" = --mutants ]; then
   # Each mutation in a configuration where it matters.
   while read -r line; do
      plan+=("mutant $line")
   done <<'EOF'
safety -DKERNEL_STEAL -DPOLICY_NEVER -DN=3 -DUNITS=3 -DMUTATE_STALE_RELEASE
safety -DKERNEL_STEAL -DPOLICY_DEFAULT -DN=3 -DUNITS=2 -DMUTATE_STALE_RELEASE
safety -DKERNEL_RESIZE -DPOLICY_DEFAULT -DN=3 -DUNITS=2 -DMUTATE_STALE_M
safety -DKERNEL_RESIZE -DPOLICY_DEFAULT -DN=4 -DUNITS=3 -DMUTATE_PUBLISH_BEFORE_RELEASE
safety -DKERNEL_STEAL -DPOLICY_DEFAULT -DN=4 -DUNITS=3 -DMUTATE_READY_BEFORE_DOORBELL
safety -DKERNEL_STEAL -DPOLICY_DEFAULT -DN=4 -DUNITS=2 -DMUTATE_UNLOCKED_WITHDRAWAL
safety -DKERNEL_MIXED -DPOLICY_NEVER -DN=2 -DUNITS=2 -DMUTATE_NO_IDENTITY
safety -DKERNEL_MIXED -DMIX_RESIZE -DPOLICY_DEFAULT -DN=3 -DUNITS=2 -DMUTATE_NO_IDENTITY
safety -DKERNEL_MIXED -DPOLICY_NEVER -DN=3 -DUNITS=3 -DMUTATE_CLEAR_BY_STORE
safety -DKERNEL_MIXED -DMIX_RESIZE -DPOLICY_NEVER -DN=2 -DUNITS=2 -DMUTATE_NO_CLEAR
safety discovery.pml -DN=3 -DSLOTS=2 -DMUTATE_NO_CLOSE
safety discovery.pml -DN=3 -DSLOTS=2 -DMUTATE_CLOSE_FIRST
safety parking.pml -DN=3 -DSLOTS=2 -DMUTATE_REQUESTS_FIRST
safety parking.pml -DN=3 -DSLOTS=2 -DMUTATE_LEAVE_UNOFFERED
safety parking.pml -DN=3 -DSLOTS=2 -DMUTATE_CLAIM_BY_LOAD
safety parking.pml -DDEMAND -DN=3 -DSLOTS=2 -DMUTATE_HOST_M_FIRST
safety parking.pml -DDEMAND -DN=3 -DSLOTS=2 -DMUTATE_PARKED_LEAVE_ON_DEMAND
safety timelines.pml -DN=3 -DMUTATE_NO_CLAMP
safety timelines.pml -DN=3 -DMUTATE_MAIN_TIMELINE
safety timelines.pml -DN=3 -DMUTATE_LOWERING
EOF
else
   full=0
   [ "${1:-}" = --full ] && full=1
   for kernel in STEAL RESIZE; do
      for policy in NEVER DEFAULT RANDOM; do
         for size in "2 2" "3 2" "4 2" "3 3" "4 3"; do
            read -r n units <<<"$size"
            defines="-DKERNEL_$kernel -DPOLICY_$policy -DN=$n -DUNITS=$units"
            plan+=("check safety $defines")
            if [ $full -eq 0 ] && [ $kernel = STEAL ] && [ $policy != NEVER ] &&
                  [ "$units" = 3 ]; then
               plan+=("note liveness $defines: left to check.sh --full")
            else
               plan+=("check liveness $defines")
            fi
         done
      done
   done
   # Barrier identity: work-groups pick their barrier calls on their own.
   for mix in "" -DMIX_RESIZE; do
      for policy in NEVER DEFAULT RANDOM; do
         for size in "2 2" "3 2" "3 3"; do
            read -r n units <<<"$size"
            defines="-DKERNEL_MIXED${mix:+ $mix} -DPOLICY_$policy -DN=$n -DUNITS=$units"
            if [ "$units" = 3 ] && [ $full -eq 0 ]; then
               if [ $policy = NEVER ]; then
                  plan+=("check safety $defines" "note liveness $defines: left to check.sh --full")
               else
                  plan+=("note safety, liveness $defines: left to check.sh --full")
               fi
               continue
            fi
            plan+=("check safety $defines" "check liveness $defines")
         done
      done
   done
   # Occupancy discovery: more work-groups than slots, and as many.
   for size in "3 2" "4 2" "4 3" "3 3"; do
      read -r n slots <<<"$size"
      plan+=("check safety discovery.pml -DN=$n -DSLOTS=$slots"
             "check liveness discovery.pml -DN=$n -DSLOTS=$slots")
   done
   # Forks and kills of a dispatched launch: parked late work-groups.
   for size in "3 2" "4 2" "3 3"; do
      read -r n slots <<<"$size"
      plan+=("check safety parking.pml -DN=$n -DSLOTS=$slots")
      if [ "$slots" = 3 ] && [ $full -eq 0 ]; then
         plan+=("note liveness parking.pml -DN=$n -DSLOTS=$slots: left to check.sh --full")
      else
         plan+=("check liveness parking.pml -DN=$n -DSLOTS=$slots")
      fi
   done
   # The same under the default policy, whose kill requests the driver
   # posts while other work waits (DEMAND): its host multiplies the states.
   for size in "3 2" "4 2" "3 3"; do
      read -r n slots <<<"$size"
      defines="-DDEMAND -DN=$n -DSLOTS=$slots"
      if [ "$slots" = 3 ]; then
         # 3 host steps need more than 137 million states.
         defines+=" -DHOST_STEPS=2"
         if [ $full -eq 0 ]; then
            plan+=("note safety parking.pml $defines: left to check.sh --full")
         else
            plan+=("check safety parking.pml $defines")
         fi
         plan+=("note liveness parking.pml $defines: left out (twice safety's 53 million states)")
         continue
      fi
      if [ "$n" = 4 ] && [ $full -eq 0 ]; then
         # 27 million states and a minute for safety alone
         plan+=("note safety and liveness parking.pml $defines: left to check.sh --full")
      else
         plan+=("check safety parking.pml $defines" "check liveness parking.pml $defines")
      fi
   done
   # zink's batch ids on its main and cooperative queues.
   plan+=("check safety timelines.pml -DN=3 -DOBSERVERS=2"
          "check safety timelines.pml -DN=4 -DOBSERVERS=1")
fi

if [ -n "${CK_MODEL_ONLY:-}" ]; then
   kept=()
   for entry in "${plan[@]}"; do
      read -r kind args <<<"$entry"
      if [ "$kind" = note ] || ! grep -qE -e "$CK_MODEL_ONLY" <<<"$args"; then
         continue
      fi
      kept+=("$entry")
   done
   [ ${#kept[@]} -gt 0 ] || { echo "CK_MODEL_ONLY='$CK_MODEL_ONLY' matches no run" >&2; exit 2; }
   echo "only the ${#kept[@]} runs that match CK_MODEL_ONLY='$CK_MODEL_ONLY'"
   plan=("${kept[@]}")
fi

# The verifiers run CK_MODEL_JOBS at a time (default: one per CPU), each in
# a directory of its own with an equal share of the memory available; their
# lines come out in the plan's order.
parallel=${CK_MODEL_JOBS:-$(nproc)}
[[ "$parallel" =~ ^[1-9][0-9]*$ ]] || { echo "CK_MODEL_JOBS must be a positive number" >&2; exit 2; }
memlim=$(awk -v parallel="$parallel" '/^MemAvailable:/ {
   mb = int($2 / 1024 / parallel); print (mb < 16000 ? mb : 16000) }' /proc/meminfo)

index=0
for entry in "${plan[@]}"; do
   read -r kind args <<<"$entry"
   index=$((index + 1))
   [ "$kind" != note ] || continue
   while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do
      wait -n || true
   done
   (
      mkdir "$work/$index" && cd "$work/$index"
      rc=0
      # shellcheck disable=SC2086
      run $args >"$work/$index.out" 2>&1 || rc=$?
      echo "$rc" >"$work/$index.rc"
   ) &
done
wait

failed=0
index=0
for entry in "${plan[@]}"; do
   read -r kind args <<<"$entry"
   index=$((index + 1))
   if [ "$kind" = note ]; then
      echo "$args"
      continue
   fi
   cat "$work/$index.out" 2>/dev/null || true
   rc=$(cat "$work/$index.rc" 2>/dev/null || echo 2)
   if [ "$kind" = mutant ] && [ "$rc" != 1 ]; then
      echo "MUTANT NOT CAUGHT: ${args#safety }" >&2
      failed=1
   elif [ "$kind" = check ] && [ "$rc" != 0 ]; then
      failed=1
   fi
done
exit $failed
