/*!
[config]
name: One kernel launched again and again: compiled once (rusticl keeps its compute state in the context)
clc_version_min: 10

[test]
name: first launch
kernel_name: scale
dimensions: 1
global_size: 32 0 0
local_size: 16 0 0
arg_out: 0 buffer uint[32] 0 112 224 33 145 257 66 178 290 99 211 20 132 244 53 165 277 86 198 310 119 231 40 152 264 73 185 297 106 218 330 139
arg_in:  1 buffer uint[32] 0 37 74 10 47 84 20 57 94 30 67 3 40 77 13 50 87 23 60 97 33 70 6 43 80 16 53 90 26 63 100 36
arg_in:  2 uint 3

[test]
name: a second launch, another argument
kernel_name: scale
dimensions: 1
global_size: 32 0 0
local_size: 16 0 0
arg_out: 0 buffer uint[32] 0 186 372 53 239 425 106 292 478 159 345 26 212 398 79 265 451 132 318 504 185 371 52 238 424 105 291 477 158 344 530 211
arg_in:  1 buffer uint[32] 0 37 74 10 47 84 20 57 94 30 67 3 40 77 13 50 87 23 60 97 33 70 6 43 80 16 53 90 26 63 100 36
arg_in:  2 uint 5

[test]
name: a third launch, other work-group and grid sizes
kernel_name: scale
dimensions: 1
global_size: 16 0 0
local_size: 8 0 0
arg_out: 0 buffer uint[16] 0 260 520 73 333 593 146 406 666 219 479 32 292 552 105 365
arg_in:  1 buffer uint[16] 0 37 74 10 47 84 20 57 94 30 67 3 40 77 13 50
arg_in:  2 uint 7

[test]
name: a fourth launch, one work-group
kernel_name: scale
dimensions: 1
global_size: 32 0 0
local_size: 32 0 0
arg_out: 0 buffer uint[32] 0 75 150 23 98 173 46 121 196 69 144 17 92 167 40 115 190 63 138 213 86 161 34 109 184 57 132 207 80 155 230 103
arg_in:  1 buffer uint[32] 0 37 74 10 47 84 20 57 94 30 67 3 40 77 13 50 87 23 60 97 33 70 6 43 80 16 53 90 26 63 100 36
arg_in:  2 uint 2
!*/

kernel void scale(global uint *out, global const uint *in, uint k)
{
   size_t i = get_global_id(0);
   out[i] = in[i] * k + (uint)i;
}
