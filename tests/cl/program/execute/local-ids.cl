/*!
[config]
name: Local invocation ids of every block shape: each work-item's ids name it once
clc_version_min: 10

[test]
name: 3-D blocks narrower than a SIMD chunk (3 x 2 x 2)
kernel_name: visit
dimensions: 3
global_size: 12 6 4
local_size: 3 2 2
arg_out: 0 buffer uint[288] repeat 1
arg_out: 1 buffer uint[1] 0

[test]
name: rows of exactly a chunk (8 x 3 x 2)
kernel_name: visit
dimensions: 3
global_size: 16 6 2
local_size: 8 3 2
arg_out: 0 buffer uint[192] repeat 1
arg_out: 1 buffer uint[1] 0

[test]
name: rows wider than a chunk, rows and planes ending inside chunks (10 x 3 x 3)
kernel_name: visit
dimensions: 3
global_size: 20 9 3
local_size: 10 3 3
arg_out: 0 buffer uint[540] repeat 1
arg_out: 1 buffer uint[1] 0

[test]
name: one row a plane (16 x 1 x 2)
kernel_name: visit
dimensions: 3
global_size: 16 4 6
local_size: 16 1 2
arg_out: 0 buffer uint[384] repeat 1
arg_out: 1 buffer uint[1] 0

[test]
name: 2-D blocks of 7 x 5, a partial last chunk
kernel_name: visit
dimensions: 2
global_size: 14 10 0
local_size: 7 5 0
arg_out: 0 buffer uint[140] repeat 1
arg_out: 1 buffer uint[1] 0

[test]
name: 2-D blocks of 16 x 16, a stencil's
kernel_name: visit
dimensions: 2
global_size: 32 32 0
local_size: 16 16 0
arg_out: 0 buffer uint[1024] repeat 1
arg_out: 1 buffer uint[1] 0

[test]
name: 1-D blocks of 40, a partial last chunk
kernel_name: visit
dimensions: 1
global_size: 80 0 0
local_size: 40 0 0
arg_out: 0 buffer uint[80] repeat 1
arg_out: 1 buffer uint[1] 0
!*/

// Each work-item finds its place in the grid from its group and local ids
// and counts itself there: 1 everywhere when every id names exactly one
// work-item (a wrong local id counts one place twice and another not at
// all); ids out of their range count 100, and a place outside the grid
// counts in stray.
kernel void visit(global uint *visits, global uint *stray)
{
   size_t lx = get_local_id(0), ly = get_local_id(1), lz = get_local_id(2);
   size_t x = get_group_id(0) * get_local_size(0) + lx;
   size_t y = get_group_id(1) * get_local_size(1) + ly;
   size_t z = get_group_id(2) * get_local_size(2) + lz;
   uint in_range = lx < get_local_size(0) && ly < get_local_size(1) && lz < get_local_size(2) &&
                   x == get_global_id(0) && y == get_global_id(1) && z == get_global_id(2);

   if (x < get_global_size(0) && y < get_global_size(1) && z < get_global_size(2))
      atomic_add(&visits[(z * get_global_size(1) + y) * get_global_size(0) + x], in_range ? 1 : 100);
   else
      atomic_add(stray, 1);
}
