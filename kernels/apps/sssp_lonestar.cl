// Single-source shortest paths as a cooperative kernel (FSE'17 "l-sssp",
// after Lonestar GPU's worklist SSSP): round r relaxes the edges of the
// nodes in its in-worklist, lowering dist[] with atomic_min, and pushes every
// node it lowers to the out-worklist for round r + 1. The result is the
// unique shortest-distance vector whatever the order of the relaxations, so
// it equals reference_sssp (Dijkstra) exactly.
//
// A node lowered several times in a round is pushed once: pushed[v] holds
// the last round v was pushed for, raised with atomic_max, and only the
// work-item that raised it pushes. The in- and out-worklists,
// lists[r % 2] and lists[(r + 1) % 2], swap at the resizing barrier that
// ends the round (indexed by the transmitted round, so work-groups that join
// use the right ones). The kernel ends, uniformly, when a round's
// in-worklist is empty.
//
// sizes[r % 3] is round r's in-worklist size: filled during round r - 1,
// read during round r, and cleared during round r - 2 (as the size two rounds
// ahead), when every read of its previous use is behind a barrier. The host
// puts the source in lists[0], sets sizes = {1, 0, 0}, dist[source] = 0,
// every other distance to "unreached" and pushed[] to 0.
//
// Hosts prepend include/cooperative_kernels.cl.h; CK_SYNC_PARAM lets the same
// source build as persistent-thread code (-DCK_DEFINE_AWAY).

kernel void sssp_lonestar(uint n, global const uint *row_offsets, global const uint *columns,
                          global const uint *weights, global uint *dist, global uint *lists,
                          global uint *sizes, global uint *pushed CK_SYNC_PARAM)
{
   transmit uint round = 0;
   for (;;) {
      const uint in_size = sizes[round % 3]; // ordered by the last barrier
      if (in_size == 0)
         break;
      global const uint *in = lists + (round & 1) * n;
      global uint *out = lists + ((round + 1) & 1) * n;
      global uint *out_size = &sizes[(round + 1) % 3];
      if (get_global_id(0) == 0)
         atomic_xchg(&sizes[(round + 2) % 3], 0);
      const uint next = round + 1;
      for (uint i = get_global_id(0); i < in_size; i += get_global_size(0)) {
         const uint u = in[i];
         const uint d = dist[u];
         for (uint e = row_offsets[u]; e < row_offsets[u + 1]; e++) {
            const uint v = columns[e];
            const uint candidate = d + weights[e];
            if (candidate < dist[v] && atomic_min(&dist[v], candidate) > candidate &&
                atomic_max(&pushed[v], next) < next)
               out[atomic_inc(out_size)] = v;
         }
      }
      round = next;
      resizing_global_barrier();
   }
}
