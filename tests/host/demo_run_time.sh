#!/bin/sh
# demo_run_time.sh CK_DEMO DEMO ARGS...: the demo's kernel time is a run
# time. With an empty shader cache, as on a new machine, llvmpipe compiles
# the kernel at its first launch (most of a second; rusticl compiles at
# every launch, from the cache once it holds the kernel); the time the demo
# prints for its timed launch must stay within what the scheduler measured
# for that launch (CK_STATS: 'ran Y ms', the last cooperative launch) plus
# 20% and 50 ms, so a compile counted in it fails.
set -u
demo=$1
shift
stderr=$(mktemp)
cache=$(mktemp -d)
trap 'rm -rf "$stderr" "$cache"' EXIT
output=$(MESA_SHADER_CACHE_DIR=$cache CK_STATS=1 "$demo" "$@" 2>"$stderr")
rc=$?
printf '%s\n' "$output"
cat "$stderr" >&2
if [ "$rc" -ne 0 ]; then
   echo "demo_run_time.sh: $demo exited with $rc" >&2
   exit 1
fi
printed=$(printf '%s\n' "$output" | sed -n 's/^cooperative kernel: \([0-9.]*\) ms.*/\1/p')
ran=$(sed -n 's/^ck: cooperative launch .* ran \([0-9.]*\) ms$/\1/p' "$stderr" | tail -n 1)
if [ -z "$printed" ] || [ -z "$ran" ]; then
   echo "demo_run_time.sh: no 'cooperative kernel: X ms' or no CK_STATS 'ran Y ms'" >&2
   exit 1
fi
if ! awk -v printed="$printed" -v ran="$ran" 'BEGIN { exit !(printed <= 1.2 * ran + 50) }'; then
   echo "demo_run_time.sh: the demo printed $printed ms for a launch that ran $ran ms:" \
      "the kernel's compile is counted as run time" >&2
   exit 1
fi
echo "demo_run_time.sh: printed $printed ms, the scheduler measured $ran ms"
