/*!
[config]
name: Loops longer than gallivm's loop limiter run to the end, and no longer
clc_version_min: 10

[test]
name: 200000 iterations of one loop
kernel_name: lcg
dimensions: 1
global_size: 1 0 0
local_size: 1 0 0
arg_out: 0 buffer uint[1] 3783823169
arg_in: 1 uint 200000

[test]
name: 70000 outer iterations of a nested loop (all loops share one budget)
kernel_name: nested
dimensions: 1
global_size: 8 0 0
local_size: 8 0 0
arg_out: 0 buffer uint[8] repeat 210000
arg_in: 1 uint 70000

[test]
name: a spin-wait ends in a work-group smaller than the SIMD width
kernel_name: spin_on_flag
dimensions: 1
global_size: 12 0 0
local_size: 4 0 0
arg_out: 0 buffer uint[15] repeat 1
!*/

kernel void lcg(global uint *out, uint n)
{
   uint state = 1;
   for (uint i = 0; i < n; ++i)
      state = state * 1664525u + 1013904223u;
   out[0] = state;
}

kernel void nested(global uint *out, uint n)
{
   uint count = 0;
   for (uint i = 0; i < n; ++i)
      for (uint j = 0; j < 3; ++j)
         count++;
   out[get_global_id(0)] = count;
}

/* Work-item 0 of each work-group raises its work-group's flag, on which the
 * others spin. The SIMD chunk of a work-group of 4 has lanes that run no
 * work-item; the loop must end once the work-items have left it. */
kernel void spin_on_flag(global uint *out)
{
   global uint *flag = out + get_global_size(0) + get_group_id(0);
   if (get_local_id(0) == 0)
      atomic_xchg(flag, 1);
   while (atomic_or(flag, 0) == 0)
      ;
   out[get_global_id(0)] = 1;
}
