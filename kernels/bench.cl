// Kernels of 'tools/ck bench', built after include/cooperative_kernels.cl.h and
// relax_cooperative.cl, with CK_DEFINE_AWAY for the persistent-thread variants.

kernel void empty(global uint *out)
{
}

// Nothing but global barriers: their latency.
kernel void barriers(global uint *out, int rounds CK_SYNC_PARAM)
{
   for (int r = 0; r < rounds; ++r)
      global_barrier();
   if (get_global_id(0) == 0)
      out[0] = rounds;
}
