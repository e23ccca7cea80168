// Exclusive prefix sum of uints (modulo 2^32), work-efficient (Blelloch;
// Harris, Sengupta and Owens, GPU Gems 3 ch. 39, without the bank-conflict
// padding): each work-group of 256 scans a block of 512 elements in local
// memory (up-sweep, then down-sweep) and writes the block's total to
// sums[group]; the host scans the block sums the same way, then
// add_block_sums adds each block's offset.
#define GROUP 256
#define BLOCK (2 * GROUP)
__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void scan_blocks(__global uint *data, __global uint *sums)
{
   __local uint temp[BLOCK];
   uint lid = get_local_id(0);
   __global uint *block = data + get_group_id(0) * BLOCK;
   temp[2 * lid] = block[2 * lid];
   temp[2 * lid + 1] = block[2 * lid + 1];
   uint offset = 1;
   for (uint d = BLOCK / 2; d > 0; d >>= 1) {
      barrier(CLK_LOCAL_MEM_FENCE);
      if (lid < d)
         temp[offset * (2 * lid + 2) - 1] += temp[offset * (2 * lid + 1) - 1];
      offset *= 2;
   }
   if (lid == 0) {
      sums[get_group_id(0)] = temp[BLOCK - 1];
      temp[BLOCK - 1] = 0;
   }
   for (uint d = 1; d < BLOCK; d *= 2) {
      offset >>= 1;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (lid < d) {
         uint ai = offset * (2 * lid + 1) - 1, bi = offset * (2 * lid + 2) - 1;
         uint t = temp[ai];
         temp[ai] = temp[bi];
         temp[bi] += t;
      }
   }
   barrier(CLK_LOCAL_MEM_FENCE);
   block[2 * lid] = temp[2 * lid];
   block[2 * lid + 1] = temp[2 * lid + 1];
}

__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void add_block_sums(__global uint *data, __global const uint *sums)
{
   uint lid = get_local_id(0), s = sums[get_group_id(0)];
   __global uint *block = data + get_group_id(0) * BLOCK;
   block[2 * lid] += s;
   block[2 * lid + 1] += s;
}
