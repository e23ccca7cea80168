/*!
[config]
name: Loads moved out of loops keep what the loops compute
clc_version_min: 10

[test]
name: a CSR row loop whose bound is loaded in its condition, rows of 0 to 7 entries
kernel_name: csr_rows
dimensions: 1
global_size: 16 0 0
local_size: 8 0 0
arg_out: 0 buffer uint[16] 0 1 3 6 10 15 21 28 7 6 11 4 0 0 2 2
arg_in:  1 buffer uint[17] 0 0 1 3 6 10 15 21 28 29 31 33 35 35 35 36 38
arg_in:  2 buffer uint[38] 1 1 2 1 2 3 1 2 3 4 1 2 3 4 5 1 2 3 4 5 6 1 2 3 4 5 6 7 7 3 3 5 6 4 0 2 1 1

[test]
name: a loop that stores to the word its condition loads
kernel_name: bound_written_in_loop
dimensions: 1
global_size: 8 0 0
local_size: 8 0 0
arg_out: 0 buffer uint[8] 0 0 1 1 2 2 3 3
arg_in:  0 buffer uint[8] 0 1 2 3 4 5 6 7
arg_out: 1 buffer uint[8] 0 1 1 2 2 3 3 4

[test]
name: a loop whose atomic changes the word its condition loads
kernel_name: bound_changed_by_atomic
dimensions: 1
global_size: 8 0 0
local_size: 8 0 0
arg_out: 0 buffer uint[8] 0 0 1 1 2 2 3 3
arg_in:  0 buffer uint[8] 0 1 2 3 4 5 6 7

[test]
name: nested loops, the inner bound invariant in both
kernel_name: nested_bounds
dimensions: 1
global_size: 8 0 0
local_size: 8 0 0
arg_out: 0 buffer uint[8] 0 2 8 18 32 50 72 98
arg_in:  1 buffer uint[8] 0 1 2 3 4 5 6 7
!*/

/* gallivm moves loop-invariant instructions, and in loops without side
 * effects loop-invariant global loads, out of OpenCL kernels' loops
 * (nir_opt_hoist_loop_invariants). The CSR loop's bound takes that path,
 * with lanes that leave after 0 to 7 iterations; the other loops write
 * what their conditions load, by a store or an atomic, and must reload it
 * on every iteration (i and the bound meet halfway: the loop runs bound/2
 * times rounded up, and leaves bound/2 rounded down). */

kernel void csr_rows(global uint *out, global const uint *row_ptr, global const uint *vals)
{
   uint row = get_global_id(0);
   uint sum = 0;
   for (uint j = row_ptr[row]; j < row_ptr[row + 1]; j++)
      sum += vals[j];
   out[row] = sum;
}

kernel void bound_written_in_loop(global uint *bound, global uint *iterations)
{
   uint g = get_global_id(0);
   uint i = 0;
   for (; i < bound[g]; i++)
      bound[g] -= 1;
   iterations[g] = i;
}

kernel void bound_changed_by_atomic(global uint *bound)
{
   uint g = get_global_id(0);
   for (uint i = 0; i < bound[g]; i++)
      atomic_dec(&bound[g]);
}

kernel void nested_bounds(global uint *out, global const uint *n)
{
   uint g = get_global_id(0);
   uint sum = 0;
   for (uint i = 0; i < n[g]; i++)
      for (uint j = 0; j < n[g] + n[g]; j++)
         sum++;
   out[g] = sum;
}
