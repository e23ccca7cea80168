/*!
[config]
name: Phis narrowed to the width of their char sources keep their constant sources right
clc_version_min: 10

[test]
name: a char or a constant, after a branch that also stores
kernel_name: char_or_constant
dimensions: 1
global_size: 16 0 0
local_size: 16 0 0
arg_out: 0 buffer int[16] 27 -6 27 12 27 -300 27 381 27 -3 27 15 27 -384 27 3
arg_in:  1 buffer char[16] 0 -2 -7 4 0 -100 -1 127 0 -1 -128 5 0 -128 -3 1
arg_in:  2 buffer int[16] repeat 0

[test]
name: a char or a constant that needs more than 8 bits
kernel_name: char_or_wide_constant
dimensions: 1
global_size: 16 0 0
local_size: 16 0 0
arg_out: 0 buffer int[16] 1000 -2 1000 4 1000 -100 1000 127 1000 -1 1000 5 1000 -128 1000 1
arg_in:  1 buffer char[16] 0 -2 -7 4 0 -100 -1 127 0 -1 -128 5 0 -128 -3 1
!*/

/* NIR's phi-precision pass narrows phi(i2i32(char), constant) to an 8-bit
 * phi; it converted the constant to 16 bits whatever the other sources'
 * width, which gallivm turned into invalid LLVM IR (a crash in the x86
 * back end). Odd work-items take the branch (a store keeps it a branch). */

kernel void char_or_constant(global int *out, global const char *in, global int *side)
{
   int g = get_global_id(0);
   int v = 9;
   if (g & 1) {
      side[g] = 1;
      v = in[g];
   }
   out[g] = v * 3;
}

kernel void char_or_wide_constant(global int *out, global const char *in)
{
   int g = get_global_id(0);
   int v = 1000;
   if (g & 1) {
      out[g] = 0;
      v = in[g];
   }
   out[g] = v;
}
