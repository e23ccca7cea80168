/*!
[config]
name: Global atomics where only some work-items of a SIMD chunk take part
clc_version_min: 10

[test]
name: atomic_add on each work-item's own word, every third work-item skipping
kernel_name: add_distinct
dimensions: 1
global_size: 16 0 0
local_size: 16 0 0
arg_out: 0 buffer uint[16] 0 101 102 0 104 105 0 107 108 0 110 111 0 113 114 0
arg_in:  1 buffer uint[16] 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115
arg_out: 1 buffer uint[16] 100 102 104 103 108 110 106 114 116 109 120 122 112 126 128 115

[test]
name: atomic_add on one word by the odd work-items
kernel_name: add_same
dimensions: 1
global_size: 16 0 0
local_size: 16 0 0
arg_in:  0 buffer uint[1] 0
arg_out: 0 buffer uint[1] 64

[test]
name: a work-list push: atomic_inc on one word hands out each slot once
kernel_name: push_slots
dimensions: 1
global_size: 32 0 0
local_size: 16 0 0
arg_in:  0 buffer uint[1] 0
arg_out: 0 buffer uint[1] 16
arg_in:  1 buffer uint[32] repeat 0
arg_out: 1 buffer uint[32] 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 \
                           0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0

[test]
name: atomic_add of different amounts on one word: each work-item's range apart
kernel_name: add_ranges
dimensions: 1
global_size: 16 0 0
local_size: 16 0 0
arg_in:  0 buffer uint[1] 0
arg_out: 0 buffer uint[1] 64
arg_in:  1 buffer uint[64] repeat 0
arg_out: 1 buffer uint[64] repeat 1

[test]
name: atomic_cmpxchg on each work-item's own word, every fourth skipping
kernel_name: cmpxchg_distinct
dimensions: 1
global_size: 16 0 0
local_size: 16 0 0
arg_out: 0 buffer uint[16] 0 2 4 6 0 10 12 14 0 18 20 22 0 26 28 30
arg_in:  1 buffer uint[16] 0 2 4 6 8 10 12 14 16 18 20 22 24 26 28 30
arg_out: 1 buffer uint[16] 0 7 7 7 8 7 7 7 16 7 7 7 24 7 7 7

[test]
name: atomic_min, atomic_max and atomic_xor where a loaded value decides
kernel_name: min_max_xor
dimensions: 1
global_size: 16 0 0
local_size: 16 0 0
arg_out: 0 buffer uint[16] 0 10 10 10 10 0 10 0 10 10 10 10 0 10 0 10
arg_in:  1 buffer uint[16] repeat 10
arg_out: 1 buffer uint[16] 10 7 10 5 10 10 10 10 8 10 6 10 10 10 10 9
arg_in:  2 buffer uint[16] repeat 10
arg_out: 2 buffer uint[16] 10 10 14 10 12 10 10 10 10 15 10 13 10 11 10 10
arg_in:  3 buffer uint[16] repeat 10
arg_out: 3 buffer uint[16] 10 13 4 15 6 10 0 10 2 5 12 7 10 1 10 3
arg_in:  4 buffer uint[16] 0 7 14 5 12 3 10 1 8 15 6 13 4 11 2 9

[test]
name: atomic_xchg of floats by the odd work-items
kernel_name: xchg_float
dimensions: 1
global_size: 16 0 0
local_size: 16 0 0
arg_out: 0 buffer float[16] 0 1.5 0 1.5 0 1.5 0 1.5 0 1.5 0 1.5 0 1.5 0 1.5
arg_in:  1 buffer float[16] repeat 1.5
arg_out: 1 buffer float[16] 1.5 1.5 1.5 3.5 1.5 5.5 1.5 7.5 1.5 9.5 1.5 11.5 1.5 13.5 1.5 15.5
!*/

kernel void add_distinct(global uint *old, global uint *a)
{
   uint i = get_global_id(0), r = 0;
   if (i % 3)
      r = atomic_add(&a[i], i);
   old[i] = r;
}

kernel void add_same(global uint *sum)
{
   uint i = get_global_id(0);
   if (i % 2)
      atomic_add(sum, i);
}

kernel void cmpxchg_distinct(global uint *old, global uint *a)
{
   uint i = get_global_id(0), r = 0;
   if (i % 4)
      r = atomic_cmpxchg(&a[i], 2 * i, 7u);
   old[i] = r;
}

kernel void min_max_xor(global uint *old, global uint *mn, global uint *mx, global uint *x,
                        global const uint *in)
{
   uint i = get_global_id(0), v = in[i], r = 0;
   if (v > 4) {
      r = atomic_min(&mn[i], v);
      atomic_max(&mx[i], v);
      atomic_xor(&x[i], v);
   }
   old[i] = r;
}

kernel void xchg_float(global float *old, global float *f)
{
   uint i = get_global_id(0);
   float r = 0.0f;
   if (i % 2)
      r = atomic_xchg(&f[i], (float)i + 0.5f);
   old[i] = r;
}

/* The odd work-items push: each gets a slot of its own, and marks it. */
kernel void push_slots(global uint *tail, global uint *marks)
{
   uint i = get_global_id(0);
   if (i % 2)
      atomic_inc(&marks[atomic_inc(tail)]);
}

/* The odd work-items add themselves: each owns [old, old + i), and marks
 * the words of its range; together the ranges cover [0, 64) once. */
kernel void add_ranges(global uint *total, global uint *marks)
{
   uint i = get_global_id(0);
   if (i % 2) {
      uint first = atomic_add(total, i);
      for (uint w = first; w < first + i; w++)
         atomic_inc(&marks[w]);
   }
}
