/*!
[config]
name: Float values carried around loops that run one work-item after the other stay floats
clc_version_min: 10

[test]
name: a float sum of products
kernel_name: row_sums
dimensions: 1
global_size: 8 0 0
local_size: 8 0 0
arg_out: 0 buffer float[8] 0 0.5 3.5 -2.5 13.5 27.5 27.5 -1.5
arg_in:  1 buffer float[8] 1 2 3 4 5 6 7 8
arg_in:  2 buffer float[8] 0.5 1.5 -2 0.25 3 -1 2 0.75
arg_in:  3 buffer uint[8] 0 1 2 3 5 8 8 4

[test]
name: a float2 sum, and a value used as a float and as bits
kernel_name: pair_sums_and_bits
dimensions: 1
global_size: 8 0 0
local_size: 8 0 0
arg_out: 0 buffer float2[8] 0 1  1 1.5  3.5 0.5  3.75 4.5 \
                            2.25 8  10 11.5  10.25 7.5  0.75 6.5
arg_out: 1 buffer uint[8] 0 1065353216 1080033281 1081081859 \
                          1074790400 1092616196 1092878341 1061158927
arg_in:  2 buffer float2[8] 1 0.5  2.5 -1  0.25 4  -3 2 \
                            1.5 1.5  8 -0.5  0.75 3  -1 1
arg_in:  3 buffer float[8] 1 2.5 0.25 -3 1.5 8 0.75 -1
arg_in:  4 buffer uint[8] 0 1 2 3 5 8 6 4
!*/

// The machine code (tests/cl/run-program-test.sh --asm). llvmpipe runs a
// divergent loop over memory one work-item at a time, in scalar code, and
// keeps each register the loop carries in a scalar of the register's type.
// NIR's registers are untyped; a lane's copy takes the type most of its
// uses have (0041), so that row_sums' sum stays in a vector register
// between its multiply-add and the next, where an integer copy crossed to
// the integer unit and back (movd) at every iteration. The order of the
// checks follows row_sums' loop: its only scalar multiply, its addition,
// and the jump back.
//
// CPU-CHECKS: sse2
// SSE2: {{[[:space:]]v?mulss[[:space:]]}}
// SSE2-NOT: {{[[:space:]]v?movd[[:space:]]}}
// SSE2: {{[[:space:]]v?addss[[:space:]]}}
// SSE2-NOT: {{[[:space:]]v?movd[[:space:]]}}
// SSE2: {{[[:space:]]}}jmp{{[[:space:]]}}

// Work-item i sums values[j] * weights[j] over j < ends[i] (a CSR matrix
// row's product with a vector, as in kernels/spmv.cl).
kernel void row_sums(global float *sums, global const float *values,
                     global const float *weights, global const uint *ends)
{
   const uint id = get_global_id(0), end = ends[id];
   float sum = 0.0f;
   for (uint j = 0; j < end; ++j)
      sum += values[j] * weights[j];
   sums[id] = sum;
}

// A float2 register (one scalar per component), and one whose value is
// added as a float and combined as bits: either type gives the same bits.
// No multiplies, so that the checks above find row_sums' loop.
kernel void pair_sums_and_bits(global float2 *pair_sums, global uint *bits,
                               global const float2 *pairs, global const float *offsets,
                               global const uint *ends)
{
   const uint id = get_global_id(0), end = ends[id];
   float2 sum = (float2)(0.0f, 1.0f);
   uint x = 0;
   for (uint j = 0; j < end; ++j) {
      sum += pairs[j];
      x = as_uint(as_float(x) + offsets[j]) ^ j;
   }
   pair_sums[id] = sum;
   bits[id] = x;
}
