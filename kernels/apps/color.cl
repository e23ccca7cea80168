// Graph colouring as a cooperative kernel (FSE'17 "color", after Pannotia's
// max-variant Jones-Plassmann colouring; graph.hpp documents the algorithm,
// reference_color the sequential version every run is checked against).
//
// Round r colours with r every uncoloured node whose random value beats that
// of each of its neighbours that was uncoloured when the round began (larger
// value, ties to the larger id). A node only ever colours itself, and only
// with the current round's colour, so a neighbour coloured r was uncoloured
// when the round began: one phase, and one resizing barrier, per round.
//
// Termination is decided uniformly: every work-item reads the same
// "some node is still uncoloured" flag after the barrier. Round r's flag is
// flags[r % 3]: set during round r, read just after round r's barrier, and
// cleared during round r - 1 (as "the next round's flag"), when every read
// of its previous use (round r - 3's flag, read early in round r - 2) is
// behind a barrier. Three words, so one barrier per round suffices.
//
// Hosts prepend include/cooperative_kernels.cl.h; CK_SYNC_PARAM lets the same
// source build as persistent-thread code (-DCK_DEFINE_AWAY).

#define CK_UNCOLOURED 0xffffffffu

kernel void color(uint n, global const uint *row_offsets, global const uint *columns,
                  global const uint *weights, global uint *colour,
                  global const uint *random, global uint *flags CK_SYNC_PARAM)
{
   transmit uint round = 0;
   for (;;) {
      if (get_global_id(0) == 0)
         atomic_xchg(&flags[(round + 1) % 3], 0);
      uint left = 0;
      for (uint u = get_global_id(0); u < n; u += get_global_size(0)) {
         if (colour[u] != CK_UNCOLOURED)
            continue;
         const uint value = random[u];
         bool wins = true;
         for (uint e = row_offsets[u]; e < row_offsets[u + 1]; e++) {
            const uint v = columns[e];
            if (v == u)
               continue;
            const uint c = colour[v];
            if (c != CK_UNCOLOURED && c != round)
               continue; // coloured in an earlier round
            const uint other = random[v];
            if (other > value || (other == value && v > u)) {
               wins = false;
               break;
            }
         }
         if (wins)
            colour[u] = round;
         else
            left = 1;
      }
      if (left)
         atomic_or(&flags[round % 3], 1);
      resizing_global_barrier();
      const uint more = flags[round % 3]; // ordered by the barrier
      round++;
      if (!more)
         break;
   }
}
