/*!
[config]
name: Work-group barriers in a loop over local memory, and one over global memory: ordered by the barriers alone
clc_version_min: 10

[test]
name: four rounds of reversing a tile, then a neighbour's global result
kernel_name: rounds
dimensions: 1
global_size: 32 0 0
local_size: 16 0 0
arg_out: 0 buffer int[32] 42 40 38 36 34 32 30 28 26 24 22 20 18 16 14 12 74 72 70 68 66 64 62 60 58 56 54 52 50 48 46 44
arg_out: 1 buffer int[32] 12 14 16 18 20 22 24 26 28 30 32 34 36 38 40 42 44 46 48 50 52 54 56 58 60 62 64 66 68 70 72 74
!*/

/* A work-group's invocations run on one thread in llvmpipe, so these
 * barriers need no fence instruction: run-program-test.sh --fences
 * single-thread checks that the IR has only compiler fences. */
kernel void rounds(global int *out, global int *scratch)
{
   local int tile[16];
   const size_t l = get_local_id(0), n = get_local_size(0);

   tile[l] = (int)get_global_id(0);
   for (int r = 0; r < 4; r++) {
      barrier(CLK_LOCAL_MEM_FENCE);
      const int mirrored = tile[n - 1 - l] + r;
      barrier(CLK_LOCAL_MEM_FENCE);
      tile[l] = mirrored;
   }
   barrier(CLK_LOCAL_MEM_FENCE);
   scratch[get_global_id(0)] = tile[l] * 2;
   barrier(CLK_GLOBAL_MEM_FENCE);
   out[get_global_id(0)] = scratch[get_group_id(0) * n + (n - 1 - l)];
}
