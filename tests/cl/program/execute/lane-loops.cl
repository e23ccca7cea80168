/*!
[config]
name: Divergent loops over memory run one work-item after the other
clc_version_min: 10

[test]
name: the slots a work-item claims in its loop are consecutive
kernel_name: claim_order
dimensions: 1
global_size: 16 0 0
local_size: 16 0 0
arg_out: 0 buffer uint[32] 0 1 1 2 2 2 3 4 4 5 5 5 6 7 7 8 \
                           8 8 9 10 10 11 11 11 12 13 13 14 14 14 15 99
arg_in:  0 buffer uint[32] repeat 99
arg_in:  1 buffer uint[1] 0
arg_out: 1 buffer uint[1] 31

[test]
name: claims bounded by a load in the loop, whose address is used again after it
kernel_name: claim_order_loaded_bound
dimensions: 1
global_size: 16 0 0
local_size: 16 0 0
arg_out: 0 buffer uint[28] 1 2 2 3 3 3 5 6 6 7 7 7 9 10 10 11 \
                           11 11 13 14 14 15 15 15 99 99 99 99
arg_in:  0 buffer uint[28] repeat 99
arg_in:  1 buffer uint[1] 0
arg_out: 1 buffer uint[1] 24
arg_in:  2 buffer uint[16] 0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3
arg_out: 2 buffer uint[16] 100 101 102 103 100 101 102 103 100 101 102 103 100 101 102 103

[test]
name: claims in a grid-stride loop, the grid's size read in it (rusticl's constant buffer)
kernel_name: claim_order_strided
dimensions: 1
global_size: 16 0 0
local_size: 16 0 0
arg_out: 0 buffer uint[24] 0 1 1 2 3 3 4 5 5 6 7 7 8 9 9 10 11 11 12 13 13 14 15 15
arg_in:  0 buffer uint[24] repeat 99
arg_in:  1 buffer uint[1] 0
arg_out: 1 buffer uint[1] 24
arg_in:  2 uint 1

[test]
name: vectors, 64-bit, 16-bit and 8-bit values from before the loop and after it
kernel_name: wide_and_narrow
dimensions: 1
global_size: 16 0 0
local_size: 16 0 0
arg_out: 0 buffer ulong[16] 0 8589934594 17179869191 25769803791 \
                            34359738368 42949672966 51539607567 60129542171 \
                            68719476736 77309411338 85899345943 94489280551 \
                            103079215104 111669149710 120259084319 128849018931
arg_out: 1 buffer float4[16] 0 0 0 0 2 4 6 1 5 9 13 0 9 15 21 1 \
                             4 8 12 0 6 12 18 1 9 17 25 0 13 23 33 1 \
                             8 16 24 0 10 20 30 1 13 25 37 0 17 31 45 1 \
                             12 24 36 0 14 28 42 1 17 33 49 0 21 39 57 1
arg_out: 2 buffer short[16] 0 1 -1 3 0 5 -1 7 0 9 -1 11 0 13 -1 15
arg_out: 3 buffer uchar[16] 0 1 23 3 4 5 59 7 8 9 95 11 12 13 131 15
arg_in:  4 buffer uint[16] 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16

[test]
name: nested loops with continue and break over local memory and its atomics
kernel_name: nested_local
dimensions: 1
global_size: 32 0 0
local_size: 16 0 0
arg_out: 0 buffer uint[32] 0 0 1 1 4 8 8 14 21 21 30 40 40 52 65 65 \
                           0 0 1 1 4 8 8 14 21 21 30 40 40 52 65 65
arg_out: 1 buffer uint[2] 85 85

[test]
name: work-group sizes and ids in the loop, work-groups of 13 (a partial SIMD chunk)
kernel_name: strided_sysvals
dimensions: 1
global_size: 26 0 0
local_size: 13 0 0
arg_out: 0 buffer uint[80] 0 2 4 6 8 10 12 14 16 18 20 22 24 26 28 30 32 34 36 38 \
                           40 42 44 46 48 50 52 54 56 58 60 62 64 66 68 70 72 74 76 78 \
                           1001 1003 1005 1007 1009 1011 1013 1015 1017 1019 1021 1023 1025 1027 1029 1031 1033 1035 1037 1039 \
                           1041 1043 1045 1047 1049 1051 1053 1055 1057 1059 1061 1063 1065 1067 1069 1071 1073 1075 1077 1079

[test]
name: a compare-and-swap loop of every work-item on one word
kernel_name: cas_sum
dimensions: 1
global_size: 32 0 0
local_size: 16 0 0
arg_in:  0 buffer uint[1] 0
arg_out: 0 buffer uint[1] 496
!*/

/* llvmpipe runs a loop whose work-items leave it at different iterations,
 * and which reads or writes memory, as scalar code for each work-item of a
 * SIMD chunk in turn, as PoCL's work-item loops do. */

/* Work-item l claims l % 3 + 1 slots of the log, one per iteration. Run one
 * work-item after the other, each one's slots are consecutive. */
kernel void claim_order(global uint *log, global uint *next)
{
   uint lid = get_local_id(0);
   for (uint k = 0; k <= lid % 3; k++)
      log[atomic_inc(next)] = lid;
}

/* Work-item l claims counts[l] slots (none for some), reading its bound at
 * each iteration, then writes how many it claimed to the same place. The
 * bound's address is computed in the loop and used after it: NIR's LICM
 * moves it before the loop, where the scan that picks per-lane loops
 * accepts it (0042). */
kernel void claim_order_loaded_bound(global uint *log, global uint *next,
                                     global uint *counts)
{
   uint lid = get_local_id(0);
   uint k = 0;
   for (; k < counts[lid]; k++)
      log[atomic_inc(next)] = lid;
   counts[lid] = k + 100;
}

/* Work-item l claims l % 2 + 1 slots in a grid-stride loop:
 * get_global_size() in the loop is a load from the constant buffer that
 * holds the arguments on rusticl, which the lane's code reads too (0036). */
kernel void claim_order_strided(global uint *log, global uint *next, uint step)
{
   uint lid = get_local_id(0);
   for (uint k = 0; k <= lid % 2 * get_global_size(0); k += step * get_global_size(0))
      log[atomic_inc(next)] = lid;
}

/* Work-item l runs l % 4 iterations over in[0..]: values of each width made
 * before the loop and changed in it. */
kernel void wide_and_narrow(global ulong *out64, global float4 *outv,
                            global short *out16, global uchar *out8,
                            global const uint *in)
{
   uint lid = get_local_id(0);
   ulong wide = (ulong)lid << 33;
   float4 v = (float4)(lid, 2 * lid, 3 * lid, lid % 2);
   short s = lid % 2 ? (short)lid : 0;
   uchar c = lid;
   for (uint i = 0; i < lid % 4; i++) {
      wide += in[i] + lid;
      v.xyz += (float3)(in[i], in[i + 1], in[i + 2]);
      s = (short)(-s - in[i]);
      c = (uchar)(c * 3 + in[i]);
   }
   out64[lid] = wide;
   outv[lid] = v;
   out16[lid] = lid % 2 ? (short)lid : s;
   out8[lid] = lid % 2 ? (uchar)lid : c;
}

/* Each work-item sums s[j] over the j < lid it does not skip (every third),
 * leaving at the first sum over 60; the local counter counts the additions. */
kernel void nested_local(global uint *out, global uint *counts)
{
   local uint s[16];
   local uint added;
   uint lid = get_local_id(0), sum = 0;
   s[lid] = lid;
   if (lid == 0)
      added = 0;
   barrier(CLK_LOCAL_MEM_FENCE);
   for (uint round = 0; round < 2; round++) {
      for (uint j = round; j < lid; j += 2) {
         if (j % 3 == 2)
            continue;
         sum += s[j];
         atomic_inc(&added);
         if (sum > 60)
            break;
      }
      if (sum > 60)
         break;
   }
   out[get_global_id(0)] = sum;
   barrier(CLK_LOCAL_MEM_FENCE);
   if (lid == 0)
      counts[get_group_id(0)] = added;
}

/* The work-items of a group write its 40 words, 13 apart. */
kernel void strided_sysvals(global uint *out)
{
   for (uint i = get_local_id(0); i < 40; i += get_local_size(0))
      out[get_group_id(0) * 40 + i] = get_group_id(0) * 1001 + 2 * i;
}

/* Every work-item adds its id to one word with compare-and-swap. */
kernel void cas_sum(global uint *total)
{
   uint gid = get_global_id(0), old;
   do
      old = *(volatile global uint *)total;
   while (atomic_cmpxchg(total, old, old + gid) != old);
}
