// Maximal independent set as a cooperative kernel (FSE'17 "mis", after
// Pannotia's Luby-style MIS with fixed random values; graph.hpp documents
// the algorithm, reference_mis the sequential version every run is checked
// against).
//
// state[u] is CK_UNDECIDED, CK_OUT, or the round in which u joined the set.
// Each round has two phases separated by resizing barriers:
//  1. every undecided node whose random value is smaller than that of each
//     neighbour undecided when the round began (ties to the smaller id)
//     joins: state = round. A neighbour that joined in this round was
//     undecided when it began, so it still takes part in the comparison;
//  2. every node that joined in this round moves its undecided neighbours
//     out (compare-and-swap, so a node that joined stays in).
// Phase 1 also raises the round's "some node was undecided" flag; after the
// first barrier every work-item reads it, and the kernel ends uniformly when
// no node was undecided. The flag is double-buffered by round parity: round
// r's flag is cleared in phase 2 of round r - 1, when the reads of its
// previous use (round r - 2's, in that round's phase 2) are behind a barrier.
//
// Hosts prepend include/cooperative_kernels.cl.h; CK_SYNC_PARAM lets the same
// source build as persistent-thread code (-DCK_DEFINE_AWAY).

#define CK_UNDECIDED 0xffffffffu
#define CK_OUT 0xfffffffeu

kernel void mis(uint n, global const uint *row_offsets, global const uint *columns,
                global const uint *weights, global uint *state,
                global const uint *random, global uint *flags CK_SYNC_PARAM)
{
   transmit uint round = 0;
   for (;;) {
      // Phase 1: the round's local minima join the set.
      uint undecided = 0;
      for (uint u = get_global_id(0); u < n; u += get_global_size(0)) {
         if (state[u] != CK_UNDECIDED)
            continue;
         undecided = 1;
         const uint value = random[u];
         bool wins = true;
         for (uint e = row_offsets[u]; e < row_offsets[u + 1]; e++) {
            const uint v = columns[e];
            if (v == u)
               continue;
            const uint s = state[v];
            if (s != CK_UNDECIDED && s != round)
               continue; // decided in an earlier round
            const uint other = random[v];
            if (other < value || (other == value && v < u)) {
               wins = false;
               break;
            }
         }
         if (wins)
            state[u] = round;
      }
      if (undecided)
         atomic_or(&flags[round & 1], 1);
      resizing_global_barrier();
      if (!flags[round & 1]) // ordered by the barrier
         break;

      // Phase 2: the new members' undecided neighbours leave.
      if (get_global_id(0) == 0)
         atomic_xchg(&flags[(round + 1) & 1], 0);
      for (uint u = get_global_id(0); u < n; u += get_global_size(0)) {
         if (state[u] != round)
            continue;
         for (uint e = row_offsets[u]; e < row_offsets[u + 1]; e++) {
            const uint v = columns[e];
            if (state[v] == CK_UNDECIDED)
               atomic_cmpxchg(&state[v], CK_UNDECIDED, CK_OUT);
         }
      }
      round++;
      resizing_global_barrier();
   }
}
