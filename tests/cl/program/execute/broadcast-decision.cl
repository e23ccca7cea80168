/*!
[config]
name: cooperative kernels: a decision that work-item 0 computes under branches and broadcasts through local memory
clc_version_min: 10
require_device_extensions: cl_ext_cooperative_kernels

[test]
name: 4 work-groups of 8, a flag above 3: every work-group takes the global barrier
kernel_name: broadcast_decision
dimensions: 1
global_size: 32 0 0
local_size: 8 0 0
arg_in:  0 buffer uint[2] 5 1
arg_in:  1 buffer uint[4] repeat 0
arg_out: 1 buffer uint[4] 0 1 1 1

[test]
name: 4 work-groups of 8, a flag at most 3: no global barrier, a kill and a fork
kernel_name: broadcast_decision
dimensions: 1
global_size: 32 0 0
local_size: 8 0 0
arg_in:  0 buffer uint[2] 2 7
arg_in:  1 buffer uint[4] repeat 0
arg_out: 1 buffer uint[4] 0 1 2 2
!*/

// covers: 6-ndrange 10.8-broadcast

/* The spec's broadcast rule (Rules checked at build time): a value that one
 * work-item writes to local memory and the work-group reads after a barrier
 * does not depend on the local id, whatever that work-item computed,
 * branches included. Work-item 0 computes a decision in a private variable
 * under a branch, and another through a helper with several returns, and
 * broadcasts both; the group branches on them before global_barrier,
 * offer_kill and request_fork. The build must accept the kernel, and every
 * work-item must see work-item 0's values.
 * flags[0] > 3 selects the global barrier; flags[1] is the helper's input.
 * out[]:
 *   0  work-items whose broadcast values differ from what work-item 0
 *      computed from flags[] (they must not)
 *   1  1 once work-group 0 passed every decision
 *   2  the first decision of work-group 0 (1: barrier, 2: kill and fork)
 *   3  the helper's decision in work-group 0 */
uint classify(global uint *flags)
{
   if (atomic_or(&flags[1], 0) > 5)
      return 2;
   if (atomic_or(&flags[1], 0) > 0)
      return 1;
   return 0;
}

kernel void broadcast_decision(global uint *flags, global uint *out)
{
   local uint decision;
   local uint helped;
   if (get_local_id(0) == 0) {
      uint r = 2;
      if (atomic_or(&flags[0], 0) > 3)
         r = 1;
      decision = r;
      helped = classify(flags);
   }
   barrier(CLK_LOCAL_MEM_FENCE);

   /* What work-item 0 computed, computed again by every work-item. */
   const uint expected = flags[0] > 3 ? 1u : 2u;
   const uint expected_helped = flags[1] > 5 ? 2u : flags[1] > 0 ? 1u : 0u;
   if (decision != expected || helped != expected_helped)
      atomic_inc(&out[0]);

   if (decision == 1)
      global_barrier();
   if (helped == 2)
      offer_kill();
   if (get_group_id(0) == 0 && get_local_id(0) == 0) {
      out[1] = 1;
      out[2] = decision;
      out[3] = helped;
   }
   if (decision == 2)
      request_fork();
}
