// Iterative relaxation as a cooperative kernel (the pattern of FSE'17,
// Fig. 4): the step counter is transmitted to work-groups that join, the
// work is redistributed over the active work-groups after every resizing
// barrier, and the scheduler may grow or shrink the kernel at each one.
// Hosts prepend include/cooperative_kernels.cl.h, so the same source also
// builds as persistent-thread code (CK_SYNC_PARAM, CK_DEFINE_AWAY).
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
