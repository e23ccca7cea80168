/*!
[config]
name: Loads from local memory in control flow, some lanes inactive at addresses far out of range
clc_version_min: 10

[test]
name: an if that a third of the lanes take; the others' indices far beyond the array
kernel_name: masked_far
dimensions: 1
global_size: 32 0 0
local_size: 16 0 0
arg_out: 0 buffer uint[32] 46 7 7 37 7 7 28 7 7 19 7 7 10 7 7 1 146 7 7 137 7 7 128 7 7 119 7 7 110 7 7 101
arg_in:  1 buffer uint[32] 15 268500992 268566528 12 268697600 268763136 9 268894208 268959744 6 269090816 269156352 3 269287424 269352960 0 15 268500992 268566528 12 268697600 268763136 9 268894208 268959744 6 269090816 269156352 3 269287424 269352960 0

[test]
name: an if that every lane takes, addresses descending
kernel_name: reversed
dimensions: 1
global_size: 32 0 0
local_size: 16 0 0
arg_out: 0 buffer uint[32] 46 43 40 37 34 31 28 25 22 19 16 13 10 7 4 1 146 143 140 137 134 131 128 125 122 119 116 113 110 107 104 101
arg_in:  1 uint 16

[test]
name: a loop that lanes leave at different iterations, the lanes that left stepping far out of range
kernel_name: loop_far
dimensions: 1
global_size: 32 0 0
local_size: 16 0 0
arg_out: 0 buffer uint[32] 10 30 10 100 10 210 10 360 10 30 10 100 10 210 10 360 11 32 11 104 11 216 11 368 11 32 11 104 11 216 11 368
arg_in:  1 buffer uint[32] 1 2 1 4 1 6 1 8 1 2 1 4 1 6 1 8 1 2 1 4 1 6 1 8 1 2 1 4 1 6 1 8
arg_in:  2 buffer uint[32] 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1

[test]
name: the same loop over 64-bit words
kernel_name: loop_far64
dimensions: 1
global_size: 32 0 0
local_size: 16 0 0
arg_out: 0 buffer ulong[32] 1000000007 3000000021 1000000007 10000000070 1000000007 21000000147 1000000007 36000000252 1000000007 3000000021 1000000007 10000000070 1000000007 21000000147 1000000007 36000000252 1000000008 3000000023 1000000008 10000000074 1000000008 21000000153 1000000008 36000000260 1000000008 3000000023 1000000008 10000000074 1000000008 21000000153 1000000008 36000000260
arg_in:  1 buffer uint[32] 1 2 1 4 1 6 1 8 1 2 1 4 1 6 1 8 1 2 1 4 1 6 1 8 1 2 1 4 1 6 1 8
arg_in:  2 buffer uint[32] 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1 16777216 1
!*/

/* llvmpipe loads local memory in control flow with one masked gather where
 * the CPU has AVX-512: a lane that is off must not be loaded from, whatever
 * its address (here up to about 1 GB beyond the array). The indices come
 * from buffers so that the compiler cannot tell the far ones are unused. */

kernel void masked_far(global uint *out, global const uint *index)
{
   local uint s[16];
   uint lid = get_local_id(0), gid = get_global_id(0);
   s[lid] = lid * 3 + 1 + get_group_id(0) * 100;
   barrier(CLK_LOCAL_MEM_FENCE);
   uint value = 7, i = index[gid];
   if (lid % 3 == 0)
      value = s[i];
   out[gid] = value;
}

kernel void reversed(global uint *out, uint n)
{
   local uint s[16];
   uint lid = get_local_id(0), gid = get_global_id(0);
   s[lid] = lid * 3 + 1 + get_group_id(0) * 100;
   barrier(CLK_LOCAL_MEM_FENCE);
   uint value = 0;
   if (lid < n)
      value = s[n - 1 - lid];
   out[gid] = value;
}

/* Lane k sums s[0], s[stride], ... for trips[k] iterations: the lanes with a
 * far stride run one iteration (index 0) and are off for the later ones,
 * whose indices 1..7 times the stride lie far out of range. */
kernel void loop_far(global uint *out, global const uint *trips, global const uint *strides)
{
   local uint s[16];
   uint lid = get_local_id(0), gid = get_global_id(0);
   s[lid] = (lid + 1) * 10 + get_group_id(0);
   barrier(CLK_LOCAL_MEM_FENCE);
   uint sum = 0, stride = strides[gid];
   for (uint i = 0; i < trips[gid]; i++)
      sum += s[i * stride];
   out[gid] = sum;
}

kernel void loop_far64(global ulong *out, global const uint *trips, global const uint *strides)
{
   local ulong s[16];
   uint lid = get_local_id(0), gid = get_global_id(0);
   s[lid] = (lid + 1) * 1000000007ul + get_group_id(0);
   barrier(CLK_LOCAL_MEM_FENCE);
   ulong sum = 0;
   uint stride = strides[gid];
   for (uint i = 0; i < trips[gid]; i++)
      sum += s[i * stride];
   out[gid] = sum;
}
