// 256-bin histogram of n bytes (stored one per uint), one work-item per
// element.

// Every element one atomic increment in global memory.
__kernel void histogram_global(__global const uint *data, uint n, __global uint *bins)
{
   uint i = get_global_id(0);
   if (i < n)
      atomic_inc(&bins[data[i] & 255]);
}

// Privatised per work-group (the CUDA samples' histogram256, Podlozhnyuk
// 2007): increments in local memory, then one global add per bin and group.
#define GROUP 256
__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void histogram_local(__global const uint *data, uint n, __global uint *bins)
{
   __local uint local_bins[256];
   uint lid = get_local_id(0), i = get_global_id(0);
   local_bins[lid] = 0;
   barrier(CLK_LOCAL_MEM_FENCE);
   if (i < n)
      atomic_inc(&local_bins[data[i] & 255]);
   barrier(CLK_LOCAL_MEM_FENCE);
   if (local_bins[lid])
      atomic_add(&bins[lid], local_bins[lid]);
}
