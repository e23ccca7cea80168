/*!
[config]
name: Stores to local memory in control flow, some lanes inactive at addresses far out of range
clc_version_min: 10

[test]
name: an if that a third of the lanes take; the others' indices far beyond the array
kernel_name: masked_far
dimensions: 1
global_size: 32 0 0
local_size: 16 0 0
arg_out: 0 buffer uint[32] 105 101 102 84 104 105 63 107 108 42 110 111 21 113 114 0 106 102 103 85 105 106 64 108 109 43 111 112 22 114 115 1
arg_in:  1 buffer uint[32] 15 268500992 268566528 12 268697600 268763136 9 268894208 268959744 6 269090816 269156352 3 269287424 269352960 0 15 268500992 268566528 12 268697600 268763136 9 268894208 268959744 6 269090816 269156352 3 269287424 269352960 0

[test]
name: a loop that lanes leave at different iterations, the lanes that left stepping far out of range
kernel_name: loop_far
dimensions: 1
global_size: 32 0 0
local_size: 16 0 0
arg_out: 0 buffer uint[32] 0 21 20 126 40 101 60 286 80 181 100 446 120 261 140 606 160 341 180 766 200 421 220 926 240 501 260 1086 280 581 300 1246
arg_in:  1 buffer uint[32] 1 2 1 4 1 2 1 4 1 2 1 4 1 2 1 4 1 2 1 4 1 2 1 4 1 2 1 4 1 2 1 4
arg_in:  2 buffer uint[32] 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1
!*/

/* llvmpipe stores local memory in control flow with one masked scatter
 * where the CPU has AVX-512: a lane that is off must not store, whatever
 * its address (here up to about 200 MB beyond the array). The indices come
 * from buffers so that the compiler cannot tell the far ones are unused. */

kernel void masked_far(global uint *out, global const uint *index)
{
   local uint s[16];
   uint lid = get_local_id(0), gid = get_global_id(0);
   s[lid] = 100 + lid + get_group_id(0);
   barrier(CLK_LOCAL_MEM_FENCE);
   uint i = index[gid];
   if (lid % 3 == 0)
      s[i] = lid * 7 + get_group_id(0);
   barrier(CLK_LOCAL_MEM_FENCE);
   out[gid] = s[lid];
}

/* Lane k writes trips[k] words of its own four, s[4k + i * stride]: the
 * lanes with a far stride write once (i = 0) and are off for the later
 * iterations, whose addresses lie far out of range. */
kernel void loop_far(global uint *out, global const uint *trips, global const uint *strides)
{
   local uint s[64];
   uint lid = get_local_id(0), gid = get_global_id(0);
   for (uint j = 0; j < 4; j++)
      s[lid * 4 + j] = 0;
   barrier(CLK_LOCAL_MEM_FENCE);
   uint stride = strides[gid];
   for (uint i = 0; i < trips[gid]; i++)
      s[lid * 4 + i * stride] = gid * 10 + i;
   barrier(CLK_LOCAL_MEM_FENCE);
   out[gid] = s[lid * 4] + s[lid * 4 + 1] + s[lid * 4 + 2] + s[lid * 4 + 3];
}
