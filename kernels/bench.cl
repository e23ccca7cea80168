// Kernels of 'tools/ck bench'. The host prepends include/cooperative_kernels.cl.h,
// with -DCK_DEFINE_AWAY for the persistent-thread (non-cooperative) variants.

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

// The relaxation of the demo: a resizing barrier per step.
kernel void relax(global int *a, global int *b, int n, int steps CK_SYNC_PARAM)
{
   transmit int step = 0;
   while (step < steps) {
      global const int *src = (step & 1) ? b : a;
      global int *dst = (step & 1) ? a : b;
      for (int i = get_global_id(0); i < n; i += get_global_size(0))
         dst[i] = (i == 0 || i == n - 1) ? src[i]
                                         : (src[i - 1] + 2 * src[i] + src[i + 1]) >> 2;
      step++;
      resizing_global_barrier();
   }
}
