/*!
[config]
name: Vectors of floats and ints stored one component at a time
clc_version_min: 10

[test]
name: float2 and int2 into a private array at a run-time index
kernel_name: private_vectors
dimensions: 1
global_size: 4 0 0
local_size: 4 0 0
arg_in:  0 buffer uint[4] 0 1 2 3
arg_out: 1 buffer float[8] 0.5 1.5 2.5 3.5 4.5 5.5 6.5 7.5
arg_out: 2 buffer int[8] -1 -2 -3 -4 -5 -6 -7 -8

[test]
name: float2 and int2 into local memory at a run-time index
kernel_name: local_vectors
dimensions: 1
global_size: 4 0 0
local_size: 4 0 0
arg_in:  0 buffer uint[4] 3 2 1 0
arg_out: 1 buffer float[8] 6.5 7.5 4.5 5.5 2.5 3.5 0.5 1.5
arg_out: 2 buffer int[8] -7 -8 -5 -6 -3 -4 -1 -2
!*/

/* Each work-item writes a float2 and an int2 computed in their own types
   (a float add, an int negation) into an array it indexes by a loaded
   value, and reads them back. zink stores such vectors component by
   component into untyped memory (a private array kept in scratch, local
   memory). */
kernel void private_vectors(global const uint *slot, global float2 *floats,
                            global int2 *ints)
{
   uint i = get_global_id(0);
   float2 f[4];
   int2 n[4];
   for (uint k = 0; k < 4; ++k) {
      f[k] = (float2)(0.0f);
      n[k] = (int2)(0);
   }
   f[slot[i]] = (float2)(2.0f * i, 2.0f * i + 1.0f) + 0.5f;
   n[slot[i]] = -(int2)(2 * i + 1, 2 * i + 2);
   floats[i] = f[slot[i]];
   ints[i] = n[slot[i]];
}

kernel void local_vectors(global const uint *slot, global float2 *floats,
                          global int2 *ints)
{
   local float2 f[4];
   local int2 n[4];
   uint i = get_local_id(0);
   f[slot[i]] = (float2)(2.0f * i, 2.0f * i + 1.0f) + 0.5f;
   n[slot[i]] = -(int2)(2 * i + 1, 2 * i + 2);
   barrier(CLK_LOCAL_MEM_FENCE);
   floats[i] = f[i];
   ints[i] = n[i];
}
