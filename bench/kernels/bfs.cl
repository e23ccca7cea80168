// Level-synchronous breadth-first search on a CSR graph (Harish and
// Narayanan, "Accelerating Large Graph Algorithms on the GPU using CUDA",
// 2007): one launch per level, one work-item per node; a node on the
// current level gives its unvisited neighbours the next level (racing
// writers all write the same value) and sets *changed. The host launches
// until a level changes nothing.
__kernel void bfs_level(uint nodes, __global const uint *row_ptr, __global const uint *cols,
                        __global uint *level, uint depth, __global uint *changed)
{
   uint v = get_global_id(0);
   if (v < nodes && level[v] == depth) {
      for (uint j = row_ptr[v]; j < row_ptr[v + 1]; j++) {
         uint u = cols[j];
         if (level[u] == UINT_MAX) {
            level[u] = depth + 1;
            *changed = 1;
         }
      }
   }
}
