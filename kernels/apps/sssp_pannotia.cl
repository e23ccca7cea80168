// Single-source shortest paths as a cooperative kernel (FSE'17 "p-sssp",
// after Pannotia's Bellman-Ford SSSP): rounds of relaxation over all nodes,
// separated by resizing barriers, until a round lowers no distance. The
// result is the unique shortest-distance vector whatever the order of the
// relaxations, so it equals reference_sssp (Dijkstra) exactly.
//
// Relaxations lower dist[] in place with atomic_min. A node whose distance
// went down in round r is stamped r + 1 (stamp[v] = max(stamp, r + 1)), and
// round r only relaxes the edges of nodes stamped r or later: the nodes that
// went down in the previous round or already in this one. The host sets
// dist[source] = 0 and stamp[source] = 1 (rounds count from 1), everything
// else to "unreached" and 0.
//
// Termination is decided uniformly from round r's "some distance went down"
// flag, flags[r % 3], read by every work-item after round r's barrier; the
// next round's flag is cleared during round r, when every read of its
// previous use is behind a barrier (one barrier per round, three words).
//
// Hosts prepend include/cooperative_kernels.cl.h; CK_SYNC_PARAM lets the same
// source build as persistent-thread code (-DCK_DEFINE_AWAY).

kernel void sssp_pannotia(uint n, global const uint *row_offsets, global const uint *columns,
                          global const uint *weights, global uint *dist, global uint *stamp,
                          global uint *flags CK_SYNC_PARAM)
{
   transmit uint round = 1;
   for (;;) {
      if (get_global_id(0) == 0)
         atomic_xchg(&flags[(round + 1) % 3], 0);
      uint lowered = 0;
      for (uint u = get_global_id(0); u < n; u += get_global_size(0)) {
         if (stamp[u] < round)
            continue;
         const uint d = dist[u];
         for (uint e = row_offsets[u]; e < row_offsets[u + 1]; e++) {
            const uint v = columns[e];
            const uint candidate = d + weights[e];
            if (candidate < dist[v] && atomic_min(&dist[v], candidate) > candidate) {
               atomic_max(&stamp[v], round + 1);
               lowered = 1;
            }
         }
      }
      if (lowered)
         atomic_or(&flags[round % 3], 1);
      resizing_global_barrier();
      const uint more = flags[round % 3]; // ordered by the barrier
      round++;
      if (!more)
         break;
   }
}
