// Breadth-first search as a cooperative kernel (FSE'17 "bfs", after
// Lonestar GPU's worklist BFS; reference_bfs is the sequential version every
// run is checked against).
//
// Level L's frontier is the in-worklist lists[L % 2]; its nodes' unvisited
// neighbours go to the out-worklist lists[(L + 1) % 2], pushed with
// atomic_inc on its size. A neighbour is pushed once: level[v] is lowered to
// L + 1 with atomic_min, and only the work-item that saw it higher pushes.
// The lists swap at the resizing barrier that ends the level (they are
// indexed by the transmitted level, so work-groups that join use the right
// ones). The kernel ends, uniformly, when a level's in-worklist is empty.
//
// sizes[L % 3] is level L's in-worklist size: filled during level L - 1,
// read during level L, and cleared during level L - 2 (as the size two
// levels ahead), when every read of its previous use is behind a barrier.
// The host puts the source in lists[0], sets sizes = {1, 0, 0},
// level[source] = 0 and every other level to "unreached".
//
// Hosts prepend include/cooperative_kernels.cl.h; CK_SYNC_PARAM lets the same
// source build as persistent-thread code (-DCK_DEFINE_AWAY).

kernel void bfs(uint n, global const uint *row_offsets, global const uint *columns,
                global const uint *weights, global uint *level, global uint *lists,
                global uint *sizes CK_SYNC_PARAM)
{
   transmit uint current = 0;
   for (;;) {
      const uint in_size = sizes[current % 3]; // ordered by the last barrier
      if (in_size == 0)
         break;
      global const uint *in = lists + (current & 1) * n;
      global uint *out = lists + ((current + 1) & 1) * n;
      global uint *out_size = &sizes[(current + 1) % 3];
      if (get_global_id(0) == 0)
         atomic_xchg(&sizes[(current + 2) % 3], 0);
      const uint next = current + 1;
      for (uint i = get_global_id(0); i < in_size; i += get_global_size(0)) {
         const uint u = in[i];
         for (uint e = row_offsets[u]; e < row_offsets[u + 1]; e++) {
            const uint v = columns[e];
            if (level[v] > next && atomic_min(&level[v], next) > next)
               out[atomic_inc(out_size)] = v;
         }
      }
      current = next;
      resizing_global_barrier();
   }
}
