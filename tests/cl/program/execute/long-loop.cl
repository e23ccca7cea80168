/*!
[config]
name: Loops longer than gallivm's loop limiter run to the end
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
