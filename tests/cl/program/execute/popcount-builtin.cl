/*!
[config]
name: popcount() compiles to the CPU's population count instructions
clc_version_min: 12
build_options: -cl-std=CL1.2

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

// The machine code (tests/cl/run-program-test.sh --asm): on a CPU with
// POPCNT, the loop's count is one scalar instruction, and with AVX-512
// VPOPCNTDQ the SIMD count is one vector instruction, whether or not LLVM
// knows the CPU by name (patch 0039; LLVM 15 does not know AMD Zen 4).
//
// CPU-CHECKS: popcnt avx512_vpopcntdq
// POPCNT: {{[[:space:]]}}popcntq{{[[:space:]]}}
// AVX512_VPOPCNTDQ: {{[[:space:]]}}vpopcntq{{[[:space:]]}}

// Work-item i counts the bits of words[0..ends[i]) under masks: a loop
// with a different number of iterations per work-item over memory, which
// llvmpipe runs one work-item after the other (scalar code).
kernel void count_in_loop(global uint *out, global const ulong *words,
                          global const ulong *masks, global const uint *ends)
{
   const uint id = get_global_id(0);
   for (uint i = 0; i < ends[id]; ++i)
      out[id] += (uint)popcount(words[i] & masks[i]);
}

kernel void count_each(global uint *out, global const ulong *words)
{
   const uint id = get_global_id(0);
   out[id] = (uint)popcount(words[id]);
}
