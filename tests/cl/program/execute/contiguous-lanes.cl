/*!
[config]
name: Loads and stores in control flow whose lanes are all active at consecutive addresses, or not
clc_version_min: 10

[test]
name: a 3-point sum inside the boundary: interior chunks whole, the end chunks partial
kernel_name: sum3_inside
dimensions: 1
global_size: 32 0 0
local_size: 16 0 0
arg_out: 0 buffer uint[32] 0 111 121 131 141 151 161 171 181 191 100 110 120 130 140 150 160 170 180 190 200 109 119 129 139 149 159 169 179 189 199 0
arg_in:  1 buffer uint[32] 0 37 74 10 47 84 20 57 94 30 67 3 40 77 13 50 87 23 60 97 33 70 6 43 80 16 53 90 26 63 100 36
arg_in:  2 uint 32

[test]
name: every lane active, addresses two elements apart
kernel_name: strided
dimensions: 1
global_size: 32 0 0
local_size: 16 0 0
arg_out: 0 buffer uint[32] 0 74 47 20 94 67 40 13 87 60 33 6 80 53 26 100 0 74 47 20 94 67 40 13 87 60 33 6 80 53 26 100
arg_in:  1 buffer uint[32] 0 37 74 10 47 84 20 57 94 30 67 3 40 77 13 50 87 23 60 97 33 70 6 43 80 16 53 90 26 63 100 36
arg_in:  2 uint 32

[test]
name: every lane active, addresses descending
kernel_name: reversed
dimensions: 1
global_size: 32 0 0
local_size: 16 0 0
arg_out: 0 buffer uint[32] 36 100 63 26 90 53 16 80 43 6 70 33 97 60 23 87 50 13 77 40 3 67 30 94 57 20 84 47 10 74 37 0
arg_in:  1 buffer uint[32] 0 37 74 10 47 84 20 57 94 30 67 3 40 77 13 50 87 23 60 97 33 70 6 43 80 16 53 90 26 63 100 36
arg_in:  2 uint 32

[test]
name: bytes, every lane active
kernel_name: bytes
dimensions: 1
global_size: 32 0 0
local_size: 16 0 0
arg_out: 0 buffer uchar[32] 4 11 18 25 32 39 46 53 60 67 74 81 88 95 102 109 116 123 130 137 144 151 158 165 172 179 186 193 200 207 214 221
arg_in:  1 buffer uchar[32] 3 10 17 24 31 38 45 52 59 66 73 80 87 94 101 108 115 122 129 136 143 150 157 164 171 178 185 192 199 206 213 220
arg_in:  2 uint 32

[test]
name: 64-bit words, every lane active
kernel_name: words64
dimensions: 1
global_size: 32 0 0
local_size: 16 0 0
arg_out: 0 buffer ulong[32] 0 3000000021 6000000042 9000000063 12000000084 15000000105 18000000126 21000000147 24000000168 27000000189 30000000210 33000000231 36000000252 39000000273 42000000294 45000000315 48000000336 51000000357 54000000378 57000000399 60000000420 63000000441 66000000462 69000000483 72000000504 75000000525 78000000546 81000000567 84000000588 87000000609 90000000630 93000000651
arg_in:  1 buffer ulong[32] 0 1000000007 2000000014 3000000021 4000000028 5000000035 6000000042 7000000049 8000000056 9000000063 10000000070 11000000077 12000000084 13000000091 14000000098 15000000105 16000000112 17000000119 18000000126 19000000133 20000000140 21000000147 22000000154 23000000161 24000000168 25000000175 26000000182 27000000189 28000000196 29000000203 30000000210 31000000217
arg_in:  2 uint 32
!*/

kernel void sum3_inside(global uint *out, global const uint *in, uint n)
{
   uint i = get_global_id(0);
   uint sum = 0;
   if (i >= 1 && i < n - 1)
      sum = in[i - 1] + in[i] + in[i + 1];
   if (i < n)
      out[i] = sum;
}

kernel void strided(global uint *out, global const uint *in, uint n)
{
   uint i = get_global_id(0);
   if (i < n)
      out[i] = in[(2 * i) % n];
}

kernel void reversed(global uint *out, global const uint *in, uint n)
{
   uint i = get_global_id(0);
   if (i < n)
      out[i] = in[n - 1 - i];
}

kernel void bytes(global uchar *out, global const uchar *in, uint n)
{
   uint i = get_global_id(0);
   if (i < n)
      out[i] = in[i] + 1;
}

kernel void words64(global ulong *out, global const ulong *in, uint n)
{
   uint i = get_global_id(0);
   if (i < n)
      out[i] = in[i] * 3;
}
