/*!
[config]
name: kernels whose work-groups wait for the one before them
clc_version_min: 10

[test]
name: waiting on volatile loads
kernel_name: chain_volatile
dimensions: 1
global_size: 16 0 0
local_size: 1 0 0
arg_out: 0 buffer int[16] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15
arg_in: 1 buffer int[16] repeat 0
arg_out: 1 buffer int[16] repeat 1

[test]
name: waiting on atomics
kernel_name: chain_atomic
dimensions: 1
global_size: 16 0 0
local_size: 1 0 0
arg_out: 0 buffer int[16] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15
arg_in: 1 buffer int[16] repeat 0
arg_out: 1 buffer int[16] repeat 1
!*/

/* Work-group g waits until work-group g - 1 has set its flag. Work-groups
 * that start in id order (LOBE) always finish; the order of the scheduler's
 * unit shares, on one unit (CK_POLICY=cap:1), would start the last
 * work-group before the one it waits for, and hang. So llvmpipe must see
 * that these kernels can wait (volatile loads, atomics) and keep the id
 * order (run-program-test.sh --claim-order ids). */
kernel void chain_volatile(global int *order, global volatile int *flags)
{
   const size_t g = get_group_id(0);

   if (g > 0)
      while (flags[g - 1] == 0)
         ;
   order[g] = (int)g;
   mem_fence(CLK_GLOBAL_MEM_FENCE);
   flags[g] = 1;
}

kernel void chain_atomic(global int *order, global int *flags)
{
   const size_t g = get_group_id(0);

   if (g > 0)
      while (atomic_add(&flags[g - 1], 0) == 0)
         ;
   order[g] = (int)g;
   atomic_xchg(&flags[g], 1);
}
