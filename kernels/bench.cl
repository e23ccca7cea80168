// Kernels of 'tools/ck bench', built after include/cooperative_kernels.cl.h and
// relax_cooperative.cl, with CK_DEFINE_AWAY for the persistent-thread variants.

kernel void empty(global uint *out)
{
}

// An ordinary kernel of independent work-items (a few hundred flops each):
// what giving every work-group of a launch a compute unit of its own costs.
kernel void independent(global float *data, int rounds)
{
   const size_t i = get_global_id(0);
   float x = data[i];
   for (int r = 0; r < rounds; ++r)
      x = x * 0.999f + 0.001f;
   data[i] = x;
}

// Nothing but global barriers: their latency.
kernel void barriers(global uint *out, int rounds CK_SYNC_PARAM)
{
   for (int r = 0; r < rounds; ++r)
      global_barrier();
   if (get_global_id(0) == 0)
      out[0] = rounds;
}

// Resizing probe (src/host/resize_probe.cpp): offers kills and requests
// forks in a loop until state[0] is set. state[1] counts work-groups that
// joined through a fork, state[2] those that started at the top.
kernel void yield_until_stopped(volatile global uint *state)
{
   local uint stop;
   transmit uint origin = 0;
   if (get_local_id(0) == 0)
      atomic_inc(&state[2]);
   for (;;) {
      offer_kill();
      origin = get_group_id(0);
      request_fork();
      if (origin != get_group_id(0) && get_local_id(0) == 0)
         atomic_inc(&state[1]);
      origin = get_group_id(0);
      if (get_local_id(0) == 0)
         stop = atomic_add(&state[0], 0);
      barrier(CLK_LOCAL_MEM_FENCE);
      const uint stopping = stop;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (stopping)
         break;
   }
}

// An ordinary kernel whose work-groups all wait until every one of them has
// arrived: it needs as many units at once as it has work-groups.
kernel void fill_together(global uint *out, volatile global uint *arrived)
{
   if (get_local_id(0) == 0) {
      atomic_inc(arrived);
      while (atomic_add(arrived, 0) < get_num_groups(0))
         ;
   }
   barrier(CLK_GLOBAL_MEM_FENCE);
   out[get_global_id(0)] = get_global_id(0) + 1;
}
