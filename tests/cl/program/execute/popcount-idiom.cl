/*!
[config]
name: bit counts written out as shifts, masks and a multiply compile to the CPU's population count instructions
clc_version_min: 10

[test]
name: in a loop that runs one work-item after the other
kernel_name: count_in_loop
dimensions: 1
global_size: 8 0 0
local_size: 8 0 0
arg_out: 0 buffer uint[8] 0 1 3 11 75 76 108 108
arg_in:  0 buffer uint[8] repeat 0
arg_in:  1 buffer ulong[8] 1 3 255 18446744073709551615 9223372036854775808 \
                           6148914691236517205 0 61680
arg_in:  2 buffer ulong[8] 18446744073709551615 18446744073709551615 \
                           18446744073709551615 18446744073709551615 \
                           18446744073709551615 18446744073709551615 \
                           18446744073709551615 255
arg_in:  3 buffer uint[8] 0 1 2 3 4 5 6 7

[test]
name: in SIMD code
kernel_name: count_each
dimensions: 1
global_size: 8 0 0
local_size: 8 0 0
arg_out: 0 buffer uint[8] 1 2 8 64 1 32 0 8
arg_in:  1 buffer ulong[8] 1 3 255 18446744073709551615 9223372036854775808 \
                           6148914691236517205 0 61680
!*/

// The machine code (tests/cl/run-program-test.sh --asm): LLVM's
// aggressive-instcombine turns the idiom into a population count (patch
// 0040), which is one instruction on CPUs that have it (0039), in the
// loop's scalar code and in SIMD code.
//
// CPU-CHECKS: popcnt avx512_vpopcntdq
// POPCNT: {{[[:space:]]}}popcntq{{[[:space:]]}}
// AVX512_VPOPCNTDQ: {{[[:space:]]}}vpopcntq{{[[:space:]]}}

// The population count of Hacker's Delight (5-2), as programs that target
// OpenCL C 1.1, which has no popcount(), write it (kernels/apps/game.cl).
uint bit_count(ulong x)
{
   x = x - ((x >> 1) & 0x5555555555555555ul);
   x = (x & 0x3333333333333333ul) + ((x >> 2) & 0x3333333333333333ul);
   x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0ful;
   return (uint)((x * 0x0101010101010101ul) >> 56);
}

// Work-item i counts the bits of words[0..ends[i]) under masks: a loop
// with a different number of iterations per work-item over memory, which
// llvmpipe runs one work-item after the other (scalar code).
kernel void count_in_loop(global uint *out, global const ulong *words,
                          global const ulong *masks, global const uint *ends)
{
   const uint id = get_global_id(0);
   for (uint i = 0; i < ends[id]; ++i)
      out[id] += bit_count(words[i] & masks[i]);
}

kernel void count_each(global uint *out, global const ulong *words)
{
   const uint id = get_global_id(0);
   out[id] = bit_count(words[id]);
}
