/*!
[config]
name: Private arrays indexed per work-item are gathered and scattered by 32-bit offsets from one base
clc_version_min: 12
build_options: -cl-std=CL1.2

[test]
name: a stack of words, of longs and of uint2 pairs
kernel_name: permute
dimensions: 1
global_size: 8 0 0
local_size: 8 0 0
arg_out: 0 buffer uint[8] 3 2 6 4 9 14 8 13
arg_out: 1 buffer ulong[8] 1000000000001 1000000000000 1000000000006 \
                           1000000000010 1000000000011 1000000000012 \
                           1000000000004 1000000000005
arg_out: 2 buffer uint2[8] 3 103  1 101  4 104  1 101  5 105  9 109  2 102  6 106
arg_in:  3 buffer uint[8] 3 1 4 1 5 9 2 6

[test]
name: arrays of bytes and shorts, and a store under a partial mask
kernel_name: narrow
dimensions: 1
global_size: 8 0 0
local_size: 8 0 0
arg_out: 0 buffer uchar[8] 21 200 16 200 11 200 90 200
arg_out: 1 buffer ushort[8] 10000 3001 7002 9003 4 7005 9006 7
arg_in:  2 buffer uint[8] 3 1 4 1 5 9 2 6
!*/

// The machine code (tests/cl/run-program-test.sh --asm). A private array
// that work-items index with values of their own lives in scratch, each
// lane's copy scratch_size bytes after the previous lane's, and SIMD code
// reads and writes it with gathers and scatters. x86's take a base
// register and 32-bit offsets (vpgatherdd, vpgatherdq, vpscatterdd,
// vpscatterdq): 0057 builds the lanes' addresses as one GEP of the scratch
// base by their 32-bit offsets, where 64-bit addresses of their own made
// every access a 64-bit-index form with no base ("(,%zmm2)") and a widening
// of its offsets first. AVX2 has gathers; scatters need AVX-512.
//
// CPU-CHECKS: avx2 avx512f
// AVX2: {{[[:space:]]}}vpgatherdd{{[[:space:]]+}}(%r{{[0-9a-z]+}},%ymm{{[0-9]+}})
// AVX2: {{[[:space:]]}}vpgatherdq{{[[:space:]]+}}(%r{{[0-9a-z]+}},%{{[xy]}}mm{{[0-9]+}})
// AVX512F: {{[[:space:]]}}vpscatterdd{{[[:space:]]+}}%ymm{{[0-9]+}}, (%r{{[0-9a-z]+}},%ymm{{[0-9]+}})
// AVX512F: {{[[:space:]]}}vpscatterdq{{[[:space:]]+}}%zmm{{[0-9]+}}, (%r{{[0-9a-z]+}},%ymm{{[0-9]+}})

// Work-item id fills three arrays in orders of its own, then reads the
// element its entry of which[] names: words[k] = (k + id) mod 16, longs in
// a permutation by 3 of 10^12 + (0..15), and pairs[k] = (k, 100 + k).
kernel void permute(global uint *words_out, global ulong *longs_out,
                    global uint2 *pairs_out, global const uint *which)
{
   const uint id = get_global_id(0);
   uint words[16];
   ulong longs[16];
   uint2 pairs[16];
   for (uint i = 0; i < 16; ++i) {
      words[(i + id) & 15] = (i + 2 * id) & 15;
      longs[(i * 3 + id) & 15] = 1000000000000ul + i;
      pairs[(i + id) & 15] = (uint2)((i + id) & 15, 100 + ((i + id) & 15));
   }
   words_out[id] = words[which[id]];
   longs_out[id] = longs[which[id]];
   pairs_out[id] = pairs[which[id]];
}

// Elements narrower than the offsets' 32 bits, and odd work-items
// overwriting one byte of their own array (a scatter whose even lanes are
// off) before every work-item reads it back.
kernel void narrow(global uchar *bytes_out, global ushort *shorts_out,
                   global const uint *which)
{
   const uint id = get_global_id(0);
   uchar bytes[16];
   ushort shorts[16];
   for (uint i = 0; i < 16; ++i) {
      bytes[(i + id) & 15] = (uchar)(i * 7 + id);
      shorts[(i * 5 + id) & 15] = (ushort)(i * 1000 + id);
   }
   if (id & 1)
      bytes[which[id]] = 200;
   bytes_out[id] = bytes[which[id]];
   shorts_out[id] = shorts[which[id] ^ 1];
}
