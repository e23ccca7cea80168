/* Reduced from fuzz seed 50009 (tests/fuzz/generate.py --seed 50009 --size 3), found
 * on Clover, CK_POLICY=random:2, LP_NUM_THREADS=3, N=11, CK_CHECK=1 (docs/fuzzing.md).
 * About one launch in a thousand aborts: work-group 1 exits without a
 * logged return, kill or stuck barrier. */
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
