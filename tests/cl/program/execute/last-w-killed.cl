/*!
[config]
name: cooperative kernels: the last W work-groups that keep offering are all killed
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels

[test]
name: 8 work-groups of 8 offer while query_kill_count() asks for them
kernel_name: last_w_killed
dimensions: 1
global_size: 64 0 0
local_size: 8 0 0
arg_in:  0 buffer uint[3] repeat 0
arg_out: 0 buffer uint[3] 0 0 1
arg_in:  1 uint 2000000
!*/

// covers: 6-ndrange 10.7-eventually-killed

/* Section 10.7: "If query_kill_count() returned W and the last W active
 * work-groups keep calling offer_kill, each is eventually killed (a policy
 * may decline single offers, never all of them)." Every work-group polls
 * query_kill_count() and offers while it is among the last W; work-group 0
 * (never killed, never among them) polls until it is alone. If any
 * work-group was ever asked, every other one must have been killed by
 * then: M = 1. Under the random policies every kill is requested while
 * M > 1 and single offers are declined at random, which is the case the
 * statement is about; the profile requires those launches to kill (and,
 * through the forks at the end, to fork). Under the other policies nothing
 * is requested and the check holds trivially.
 * tries bounds work-group 0's polls: 2,000,000, because with the local
 * word of the protocol gathered (patch 0063) a poll is fast enough that 200,000
 * of them ran out before the last kills on 2 loaded CPUs (18 of 50 runs
 * failed, 6 of 50 before 0063; none of 20 with the larger bound). Under
 * the policies that never kill, the whole bound runs: 0.35 s.
 * result[]:
 *   0  a request was seen (some work-group read a nonzero count)
 *   1  1 if a request was seen and work-group 0 never saw M = 1
 *   2  1 once work-group 0 is done */
enum { ASKED, UNMET, DONE };

kernel void last_w_killed(global uint *result, uint tries)
{
   transmit uint forker;
   local uint shared_m;
   uint alone = 0;
   for (uint i = 0; i < tries && !alone; ++i) {
      const uint q = query_kill_count();
      /* Read by each work-item, M could differ between them (another
         work-group's kill in between), and the build rejects offer_kill
         under a condition on it: local work-item 0 broadcasts it. */
      if (get_local_id(0) == 0)
         shared_m = get_num_groups(0);
      barrier(CLK_LOCAL_MEM_FENCE);
      const uint m = shared_m;
      if (q > 0 && get_local_id(0) == 0)
         atomic_or(&result[ASKED], 1);
      if (m == 1)
         alone = 1;
      else if (get_group_id(0) + q >= m)
         offer_kill();
   }
   if (get_group_id(0) != 0)
      return;
   if (get_local_id(0) == 0) {
      result[UNMET] = atomic_or(&result[ASKED], 0) && !alone;
      result[ASKED] = 0;
      result[DONE] = 1;
   }
   /* A few forks, which the random policies offer units for, so that
    * --require-resizing can tell that this launch resized. */
   for (uint j = 0; j < 1000; ++j) {
      forker = get_group_id(0);
      request_fork();
      if (get_group_id(0) != forker)
         return;
   }
}
