// Iterative relaxation with one inter-workgroup barrier per step.
//
// This is the persistent-thread version that programmers write today: the
// barrier below is correct only under occupancy-bound execution, i.e. when
// every workgroup holds a compute unit for the whole launch, so the host must
// launch no more workgroups than CL_DEVICE_MAX_COMPUTE_UNITS.

// Master-less counter barrier: the last workgroup to arrive resets the count
// and bumps the generation that the others poll (with atomics: plain loads
// of a flag may be merged or hoisted).
void occupancy_bound_barrier(volatile global uint *count, volatile global uint *generation)
{
   barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
   if (get_local_id(0) == 0) {
      uint gen = atomic_add(generation, 0);
      if (atomic_inc(count) == get_num_groups(0) - 1) {
         atomic_xchg(count, 0);
         atomic_inc(generation);
      } else {
         while (atomic_add(generation, 0) == gen)
            ;
      }
   }
   barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
}

// One step: every interior cell becomes a weighted mean of its neighbours.
// Integer arithmetic keeps the result exact, so the host can compare it with
// a sequential reference bit for bit.
kernel void relax(global int *a, global int *b, int n, int steps, volatile global uint *sync)
{
   for (int step = 0; step < steps; ++step) {
      global const int *src = (step & 1) ? b : a;
      global int *dst = (step & 1) ? a : b;
      for (int i = get_global_id(0); i < n; i += get_global_size(0))
         dst[i] = (i == 0 || i == n - 1) ? src[i]
                                         : (src[i - 1] + 2 * src[i] + src[i + 1]) >> 2;
      occupancy_bound_barrier(&sync[0], &sync[1]);
   }
}
