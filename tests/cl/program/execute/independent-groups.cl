/*!
[config]
name: kernels whose work-groups cannot wait for each other
clc_version_min: 10

[test]
name: a smoothing step over local memory, 8 work-groups
kernel_name: smooth
dimensions: 1
global_size: 64 0 0
local_size: 8 0 0
arg_in: 0 buffer int[64] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
arg_out: 1 buffer int[64] 1 3 6 9 12 15 18 21 24 27 30 33 36 39 42 45 48 51 54 57 60 63 66 69 72 75 78 81 84 87 90 93 96 99 102 105 108 111 114 117 120 123 126 129 132 135 138 141 144 147 150 153 156 159 162 165 168 171 174 177 180 183 186 125
arg_out: 2 buffer int[8] repeat 8

[test]
name: the same step, 2 work-groups
kernel_name: smooth
dimensions: 1
global_size: 16 0 0
local_size: 8 0 0
arg_in: 0 buffer int[16] 0 2 4 1 3 0 2 4 1 3 0 2 4 1 3 0
arg_out: 1 buffer int[16] 2 6 7 8 4 5 6 7 8 4 5 6 7 8 4 3
arg_out: 2 buffer int[2] repeat 8
!*/

/* No work-group of this kernel can wait for another: it reads and writes
 * global memory without atomics or volatile accesses, and synchronises
 * only its own work-items, in local memory (a barrier, local atomics). On
 * Mesa 25.0.7, llvmpipe lets the scheduler start its work-groups in any
 * order (run-program-test.sh --claim-order any). Work-groups of 8. */
kernel void smooth(global const int *in, global int *out, global int *arrivals)
{
   local int tile[10];
   local int arrived;
   const size_t l = get_local_id(0), g = get_global_id(0), n = get_global_size(0);

   if (l == 0)
      arrived = 0;
   tile[l + 1] = in[g];
   if (l == 0)
      tile[0] = g > 0 ? in[g - 1] : 0;
   if (l == get_local_size(0) - 1)
      tile[l + 2] = g + 1 < n ? in[g + 1] : 0;
   barrier(CLK_LOCAL_MEM_FENCE);
   atomic_inc(&arrived);
   barrier(CLK_LOCAL_MEM_FENCE);
   out[g] = tile[l] + tile[l + 1] + tile[l + 2];
   if (l == 0)
      arrivals[get_group_id(0)] = arrived;
}
