/* Reduced from fuzz seed 50009 (tests/fuzz/generate.py --seed 50009 --size 3), found
 * on Clover, CK_POLICY=random:2, LP_NUM_THREADS=3, N=11, CK_CHECK=1 (docs/fuzzing.md).
 * About one launch in a thousand aborts: work-group 1 exits without a
 * logged return, kill or stuck barrier; without CK_CHECK some runs of 5000
 * launches hang. Cause: get_num_groups(0) is read by each work-item at its
 * own time, and another work-group's kill changes M in between, so some
 * work-items of work-group 1 see "last" and call offer_kill() and others do
 * not: a work-group function reached by part of the group, which the spec
 * makes undefined. With the decision taken by work-item 0 and broadcast
 * through local memory, 15000 launches passed. Since spec revision 16 the
 * build rejects this kernel (offer_kill under a condition on
 * get_num_groups(0) in a kernel that kills or forks). */
kernel void fuzz(global uint *res, global const uint *in, global uint *ctr, global uint *outb, uint k0, uint k1)
{
   local uint task1;
   request_fork();
   if (query_kill_count() > 0u && get_group_id(0) + 1u == get_num_groups(0))
      offer_kill();
   for (;;) {
      barrier(CLK_LOCAL_MEM_FENCE);
      if (get_local_id(0) == 0)
         task1 = atomic_inc(&ctr[0u]);
      barrier(CLK_LOCAL_MEM_FENCE);
      if (task1 >= 6u)
         break;
      atomic_add(&res[1], 1u);
      if (query_kill_count() > 0u && get_group_id(0) + 1u == get_num_groups(0))
         offer_kill();
      offer_kill();
   }
   global_barrier();
}
