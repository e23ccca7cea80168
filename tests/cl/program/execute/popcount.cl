/*!
[config]
name: Bit counts, popcount() and the shift-and-mask idiom, compile to the CPU's population count instructions
clc_version_min: 12
build_options: -cl-std=CL1.2

[test]
name: in a loop that runs one work-item after the other
kernel_name: count_in_loop
dimensions: 1
global_size: 8 0 0
local_size: 8 0 0
arg_out: 0 buffer uint[8] 0 1 3 11 75 76 108 108
arg_out: 1 buffer uint[8] 0 63 125 181 181 244 276 340
arg_in:  0 buffer uint[8] repeat 0
arg_in:  1 buffer uint[8] repeat 0
arg_in:  2 buffer ulong[8] 1 3 255 18446744073709551615 9223372036854775808 \
                           6148914691236517205 0 61680
arg_in:  3 buffer ulong[8] 18446744073709551615 18446744073709551615 \
                           18446744073709551615 18446744073709551615 \
                           18446744073709551615 18446744073709551615 \
                           18446744073709551615 255
arg_in:  4 buffer uint[8] 0 1 2 3 4 5 6 7

[test]
name: in SIMD code
kernel_name: count_each
dimensions: 1
global_size: 8 0 0
local_size: 8 0 0
arg_out: 0 buffer uint[8] 1 2 8 64 1 32 0 8
arg_out: 1 buffer uint[8] 1 1 1 0 2 32 1 9
arg_in:  2 buffer ulong[8] 1 3 255 18446744073709551615 9223372036854775808 \
                           6148914691236517205 0 61680
!*/

// The machine code (tests/cl/run-program-test.sh --asm). On a CPU with
// POPCNT, each kernel's two counts are scalar instructions in the loop
// that runs one work-item at a time, and with AVX-512 VPOPCNTDQ vector
// instructions in SIMD code, whether or not LLVM knows the CPU by name
// (0039: LLVM 15 does not know AMD Zen 4). The idiom's count is one of
// them because aggressive-instcombine makes it llvm.ctpop (0040).
//
// CPU-CHECKS: popcnt avx512_vpopcntdq
// POPCNT: {{[[:space:]]}}popcntq{{[[:space:]]}}
// POPCNT: {{[[:space:]]}}popcntq{{[[:space:]]}}
// AVX512_VPOPCNTDQ: {{[[:space:]]}}vpopcntq{{[[:space:]]}}
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

// Work-item i counts bits of words[0..ends[i]) with masks: a loop with a
// different number of iterations per work-item over memory, which llvmpipe
// runs one work-item after the other (scalar code). The two counts are of
// different values, so that no pass can merge them.
kernel void count_in_loop(global uint *with_builtin, global uint *with_idiom,
                          global const ulong *words, global const ulong *masks,
                          global const uint *ends)
{
   const uint id = get_global_id(0);
   for (uint i = 0; i < ends[id]; ++i) {
      with_builtin[id] += (uint)popcount(words[i] & masks[i]);
      with_idiom[id] += bit_count(words[i] ^ masks[i]);
   }
}

kernel void count_each(global uint *with_builtin, global uint *with_idiom,
                       global const ulong *words)
{
   const uint id = get_global_id(0);
   with_builtin[id] = (uint)popcount(words[id]);
   with_idiom[id] = bit_count(words[id] + 1);
}
