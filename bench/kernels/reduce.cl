// Sum of n uints (modulo 2^32), a tree in local memory (Harris, "Optimizing
// Parallel Reduction in CUDA", kernel 4: sequential addressing, first add
// during the load). Each work-group of 256 sums 512 elements into
// partial[group]; the host launches again on the partial sums until one is
// left.
#define GROUP 256
__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void reduce_sum(__global const uint *in, __global uint *partial, uint n)
{
   __local uint scratch[GROUP];
   uint lid = get_local_id(0);
   uint i = get_group_id(0) * GROUP * 2 + lid;
   uint sum = 0;
   if (i < n)
      sum = in[i];
   if (i + GROUP < n)
      sum += in[i + GROUP];
   scratch[lid] = sum;
   barrier(CLK_LOCAL_MEM_FENCE);
   for (uint s = GROUP / 2; s > 0; s >>= 1) {
      if (lid < s)
         scratch[lid] += scratch[lid + s];
      barrier(CLK_LOCAL_MEM_FENCE);
   }
   if (lid == 0)
      partial[get_group_id(0)] = scratch[0];
}
