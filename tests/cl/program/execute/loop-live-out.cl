/*!
[config]
name: Values computed in a loop keep each work-item's last iteration after the loop
clc_version_min: 10

[test]
name: do-while over local memory (work-items leave at different iterations)
kernel_name: do_while_local
dimensions: 1
global_size: 16 0 0
local_size: 16 0 0
arg_out: 0 buffer uint[16] 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16

[test]
name: do-while over local memory, work-groups of 13 (a partial SIMD chunk)
kernel_name: do_while_local
dimensions: 1
global_size: 26 0 0
local_size: 13 0 0
arg_out: 0 buffer uint[26] 1 2 3 4 5 6 7 8 9 10 11 12 13 \
                           1 2 3 4 5 6 7 8 9 10 11 12 13

[test]
name: while whose condition loads global memory
kernel_name: while_global
dimensions: 1
global_size: 16 0 0
local_size: 16 0 0
arg_out: 0 buffer uint[16] 0 201 201 402 402 603 603 804 804 1005 1005 1206 1206 1407 1407 1608
arg_in:  1 buffer uint[16] 0 2 4 6 8 10 12 14 16 18 20 22 24 26 28 30

[test]
name: do-while reading a private array
kernel_name: do_while_private
dimensions: 1
global_size: 16 0 0
local_size: 16 0 0
arg_out: 0 buffer uint[16] 7 11 16 23 23 32 43 56 71 88 107 128 151 176 203 232
arg_in:  1 uint 7
arg_in:  2 uint 16

[test]
name: breaks out of nested loops, the value used after each loop
kernel_name: nested_break
dimensions: 1
global_size: 16 0 0
local_size: 16 0 0
arg_out: 0 buffer uint[16] 0 1001 3002 1003 3004 5 2006 7 2008 3009 1010 3011 1012 2013 14 2015
arg_in:  1 buffer uint[16] 0 7 14 5 12 3 10 1 8 15 6 13 4 11 2 9

[test]
name: an atomic's result in a loop
kernel_name: atomic_in_loop
dimensions: 1
global_size: 16 0 0
local_size: 16 0 0
arg_out: 0 buffer uint[16] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15
arg_in:  1 buffer uint[16] repeat 0
arg_out: 1 buffer uint[16] 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16

[test]
name: a 64-bit value loaded in a loop, used in a branch after it
kernel_name: while_global_ulong
dimensions: 1
global_size: 16 0 0
local_size: 16 0 0
arg_out: 0 buffer uint[16] 0 2 2 4 4 6 6 8 8 10 10 12 12 14 14 16
arg_in:  1 buffer ulong[16] 0 2 4 6 8 10 12 14 16 18 20 22 24 26 28 30
!*/

/* SIMD lanes run a loop until the last of them leaves it; a lane that left
 * earlier must see the values of its own last iteration after the loop, not
 * those of a later iteration in which it was masked off (where its loads read
 * nothing). Every kernel here reads memory in the loop, so a lane that sees a
 * later iteration sees a zero. */

kernel void do_while_local(global uint *out)
{
   local uint s[64];
   uint lid = get_local_id(0), count;
   s[lid] = 0;
   do {
      count = s[lid] + 1;
      s[lid] = count;
   } while (s[lid] <= lid);
   out[get_global_id(0)] = count;
}

/* in[i] = 2i: work-item g stops at i = ceil(g / 2), with v = 2i. */
kernel void while_global(global uint *out, global const uint *in)
{
   uint g = get_global_id(0), i = 0, v;
   while ((v = in[i]) < g)
      i++;
   out[g] = v * 100 + i;
}

/* a[k] = k * k + seed (n = 16: a loop the compiler does not unroll);
 * work-item g stops at the first a[(k + g) % 16] that reaches 4g + seed. */
kernel void do_while_private(global uint *out, uint seed, uint n)
{
   uint g = get_global_id(0), a[16], found, k = 0;
   for (uint i = 0; i < n; i++)
      a[i & 15] = i * i + seed;
   do
      found = a[(k++ + g) & 15];
   while (found < 4 * g + seed);
   out[g] = found;
}

/* in holds a permutation of 0..15 as 4 rows of 4: work-item g finds itself
 * in row r and leaves both loops there. */
kernel void nested_break(global uint *out, global const uint *in)
{
   uint g = get_global_id(0), r = 0, v;
   for (;;) {
      uint c = 0;
      for (;;) {
         v = in[r * 4 + c];
         if (v == g || c == 3)
            break;
         c++;
      }
      if (v == g || r == 3)
         break;
      r++;
   }
   out[g] = v + 1000 * r;
}

/* Each work-item counts its own counter up to g + 1. */
kernel void atomic_in_loop(global uint *out, global uint *counters)
{
   uint g = get_global_id(0), old;
   do {
      old = atomic_inc(&counters[g]);
   } while (old < g);
   out[g] = old;
}

kernel void while_global_ulong(global uint *out, global const ulong *in)
{
   uint g = get_global_id(0), i = 0;
   ulong v;
   while ((v = in[i]) < g)
      i++;
   out[g] = v == 2 * i ? (uint)v : 1000;
}
